#include "api_request.h"

#include <cmath>
#include <limits>
#include <set>

#include "client_text.h"
#include "structured_request.h"
#include "tool_calls.h"

namespace vtserve {
namespace {

using Json = nlohmann::json;

// The fields each endpoint honours. Anything else is refused: a field the server ignored
// would change what the client believes it asked for (vLLM warns; we say no).
const std::set<std::string> kSampling = {"model", "max_tokens", "temperature", "top_p", "top_k", "min_p", "seed",
                                         "stop", "repetition_penalty", "presence_penalty", "frequency_penalty",
                                         "ignore_eos", "n", "stream", "stream_options", "user", "logit_bias", "logprobs",
                                         // OpenAI's bookkeeping, which changes no token: accepted, unused
                                         "store", "metadata", "service_tier", "prompt_cache_key", "safety_identifier"};
const std::set<std::string> kCompletionOnly = {"prompt", "echo"};
const std::set<std::string> kChatOnly = {"messages", "max_completion_tokens", "chat_template_kwargs", "reasoning_effort",
                                         "add_generation_prompt", "top_logprobs", "tools", "tool_choice", "parallel_tool_calls"};

ApiError Bad(const std::string& param, const std::string& message) { return ApiError{400, message, param}; }

// Choices per request (prompts times n), each a job in the queue.
constexpr int64_t kMaxChoices = 128;

// Each reader leaves `*out` alone when the field is absent or null, and says what is wrong.
bool ReadDouble(const Json& j, const char* key, double* out, ApiError* e) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_number()) return *e = Bad(key, std::string(key) + " must be a number"), false;
  *out = it->get<double>();
  return true;
}

bool ReadInt(const Json& j, const char* key, int64_t lo, int64_t hi, std::optional<int64_t>* out, ApiError* e) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  // A whole number written as a float (1e20, 5.0) is an integer too, as pydantic reads it for
  // vLLM: then its range is what is wrong.
  if (it->is_number_float()) {
    const double d = it->get<double>();
    if (d != std::floor(d)) return *e = Bad(key, std::string(key) + " must be an integer"), false;
    if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
      return *e = Bad(key, std::string(key) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi)), false;
    }
    *out = static_cast<int64_t>(d);
    return true;
  }
  if (!it->is_number_integer() && !it->is_number_unsigned()) return *e = Bad(key, std::string(key) + " must be an integer"), false;
  // nlohmann reads a non-negative literal as unsigned: compared with both bounds too.
  const bool out_of_range = it->is_number_unsigned()
                                ? it->get<uint64_t>() > static_cast<uint64_t>(hi) || (lo > 0 && it->get<uint64_t>() < static_cast<uint64_t>(lo))
                                : it->get<int64_t>() < lo || it->get<int64_t>() > hi;
  if (out_of_range) {
    return *e = Bad(key, std::string(key) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi)), false;
  }
  *out = it->is_number_unsigned() ? static_cast<int64_t>(it->get<uint64_t>()) : it->get<int64_t>();
  return true;
}

bool ReadBool(const Json& j, const char* key, bool* out, ApiError* e) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_boolean()) return *e = Bad(key, std::string(key) + " must be true or false"), false;
  *out = it->get<bool>();
  return true;
}

bool ReadStop(const Json& j, std::vector<std::string>* out, ApiError* e) {
  auto it = j.find("stop");
  if (it == j.end() || it->is_null()) return true;
  if (it->is_string()) return out->push_back(it->get<std::string>()), true;
  if (!it->is_array()) return *e = Bad("stop", "stop must be a string or an array of strings"), false;
  for (const Json& s : *it) {
    if (!s.is_string()) return *e = Bad("stop", "stop must be a string or an array of strings"), false;
    out->push_back(s.get<std::string>());
  }
  return true;
}

// {"token id": bias, ...}: keys are ids written as decimal strings, as OpenAI's are.
bool ReadLogitBias(const Json& j, vt::SamplingParams* s, ApiError* e) {
  auto it = j.find("logit_bias");
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_object()) return *e = Bad("logit_bias", "logit_bias must be an object of token ids to numbers"), false;
  for (const auto& [key, value] : it->items()) {
    const bool digits = !key.empty() && key.size() <= 9 && key.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) return *e = Bad("logit_bias", "logit_bias keys must be token ids, got \"" + key + "\""), false;
    if (!value.is_number()) return *e = Bad("logit_bias", "logit_bias values must be numbers"), false;
    s->logit_bias.push_back({std::stoi(key), value.get<float>()});
  }
  return true;
}

// Completions: logprobs N (0..20). Chat: logprobs true, and top_logprobs N beside it.
bool ReadLogprobs(const Json& j, Endpoint endpoint, vt::SamplingParams* s, ApiError* e) {
  std::optional<int64_t> n, top;
  if (endpoint == Endpoint::kCompletions) {
    if (!ReadInt(j, "logprobs", 0, 20, &n, e)) return false;
    if (n) s->logprobs = static_cast<int>(*n);
    return true;
  }
  bool on = false;
  if (!ReadBool(j, "logprobs", &on, e) || !ReadInt(j, "top_logprobs", 0, 20, &top, e)) return false;
  if (top && !on) return *e = Bad("top_logprobs", "top_logprobs needs logprobs: true"), false;
  if (on) s->logprobs = static_cast<int>(top.value_or(0));
  return true;
}

bool ReadSampling(const Json& j, ServeRequest* r, ApiError* e) {
  vt::SamplingParams& s = r->sampling;
  std::optional<int64_t> top_k, seed, n, max_tokens, max_completion;
  if (!ReadDouble(j, "temperature", &s.temperature, e) || !ReadDouble(j, "top_p", &s.top_p, e) ||
      !ReadDouble(j, "min_p", &s.min_p, e) || !ReadDouble(j, "repetition_penalty", &s.repetition_penalty, e) ||
      !ReadDouble(j, "presence_penalty", &s.presence_penalty, e) || !ReadDouble(j, "frequency_penalty", &s.frequency_penalty, e) ||
      !ReadInt(j, "top_k", -1, std::numeric_limits<int>::max(), &top_k, e) ||
      !ReadInt(j, "seed", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), &seed, e) ||
      !ReadInt(j, "n", 1, kMaxChoices, &n, e) || !ReadInt(j, "max_tokens", 0, 1 << 30, &max_tokens, e) ||
      !ReadInt(j, "max_completion_tokens", 1, 1 << 30, &max_completion, e) ||
      !ReadBool(j, "ignore_eos", &s.ignore_eos, e) || !ReadBool(j, "stream", &r->stream, e) || !ReadStop(j, &s.stop, e)) {
    return false;
  }
  if (!ReadLogitBias(j, &s, e) || !ReadLogprobs(j, r->endpoint, &s, e)) return false;
  if (n) r->n = static_cast<int>(*n);
  if (top_k) s.top_k = static_cast<int>(*top_k);
  if (seed) s.seed = static_cast<uint64_t>(*seed);
  if (max_completion) max_tokens = max_completion;  // OpenAI's newer name wins, as in vLLM
  if (max_tokens) r->max_tokens = static_cast<int>(*max_tokens);
  s.max_tokens = std::max(1, r->max_tokens.value_or(1));  // the real bound is set once the prompt is known
  vt::Status valid = s.Validate();
  if (!valid.ok()) return *e = Bad(valid.message().substr(0, valid.message().find(' ')), valid.message()), false;
  return true;
}

bool ReadStreamOptions(const Json& j, ServeRequest* r, ApiError* e) {
  auto it = j.find("stream_options");
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_object()) return *e = Bad("stream_options", "stream_options must be an object"), false;
  for (const auto& [key, value] : it->items()) {
    if (key != "include_usage") return *e = Bad("stream_options." + key, "unknown field stream_options." + key), false;
  }
  if (!r->stream) return *e = Bad("stream_options", "stream_options is only allowed with stream: true"), false;
  return ReadBool(*it, "include_usage", &r->include_usage, e);
}

// One prompt: a string, or an array of token ids.
bool ReadOnePrompt(const Json& p, ServeRequest::Prompt* out) {
  if (p.is_string()) return out->text = p.get<std::string>(), true;
  if (!p.is_array() || p.empty()) return false;
  std::vector<int32_t> ids;
  for (const Json& id : p) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > std::numeric_limits<int32_t>::max()) return false;
    ids.push_back(static_cast<int32_t>(id.get<int64_t>()));
  }
  out->ids = std::move(ids);
  return true;
}

// OpenAI's four shapes: a string, an array of ids, an array of strings, an array of id arrays.
bool ReadPrompt(const Json& j, ServeRequest* r, ApiError* e) {
  auto it = j.find("prompt");
  if (it == j.end()) return *e = Bad("prompt", "prompt is required"), false;
  const char* shapes = "prompt must be a string, an array of token ids, or an array of either";
  ServeRequest::Prompt one;
  if (it->is_string() || (it->is_array() && !it->empty() && it->front().is_number())) {
    if (!ReadOnePrompt(*it, &one)) return *e = Bad("prompt", shapes), false;
    r->prompts.push_back(std::move(one));
  } else {
    if (!it->is_array() || it->empty()) return *e = Bad("prompt", shapes), false;
    if (it->size() > kMaxChoices) return *e = Bad("prompt", "at most " + std::to_string(kMaxChoices) + " prompts per request"), false;
    for (const Json& p : *it) {
      ServeRequest::Prompt each;
      if (!ReadOnePrompt(p, &each)) return *e = Bad("prompt", shapes), false;
      r->prompts.push_back(std::move(each));
    }
  }
  if (static_cast<int64_t>(r->prompts.size()) * r->n > kMaxChoices) {
    return *e = Bad("n", "at most " + std::to_string(kMaxChoices) + " choices per request (prompts times n)"), false;
  }
  if (!ReadBool(j, "echo", &r->echo, e)) return false;
  return true;
}

// OpenAI's reasoning_effort (gpt-oss's template writes it into its system message); the
// top-level field wins over chat_template_kwargs', as it is read last.
bool ReadEffort(const Json& j, const std::string& where, std::string* out, ApiError* e) {
  auto it = j.find("reasoning_effort");
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_string() || (*it != "low" && *it != "medium" && *it != "high")) return *e = Bad(where, where + " must be low, medium or high"), false;
  *out = it->get<std::string>();
  return true;
}

// Text parts are joined into one string, as vLLM does for text-only models.
bool ReadContent(const Json& content, size_t index, std::string* out, ApiError* e) {
  std::string where = "messages[" + std::to_string(index) + "].content";
  if (content.is_string()) return *out = content.get<std::string>(), true;
  if (!content.is_array()) return *e = Bad(where, where + " must be a string or an array of text parts"), false;
  for (const Json& part : content) {
    auto type = part.is_object() ? part.find("type") : part.end();
    auto text = part.is_object() ? part.find("text") : part.end();
    if (type == part.end() || *type != "text" || text == part.end() || !text->is_string()) {
      return *e = Bad(where, where + ": only {\"type\": \"text\", \"text\": ...} parts are supported"), false;
    }
    *out += text->get<std::string>();
  }
  return true;
}

// An assistant's tool_calls, each call's arguments (a JSON string, as OpenAI sends them) made
// the object a chat template writes out (as vLLM does before rendering).
bool ReadToolCalls(const Json& m, const std::string& where, Json* flat, ApiError* e) {
  auto it = m.find("tool_calls");
  if (it == m.end() || it->is_null()) return flat->erase("tool_calls"), true;
  if (!it->is_array()) return *e = Bad(where + ".tool_calls", where + ".tool_calls must be an array"), false;
  for (size_t k = 0; k < it->size(); ++k) {
    const Json& call = (*it)[k];
    const std::string at = where + ".tool_calls[" + std::to_string(k) + "]";
    if (!call.is_object() || !call.contains("function") || !call["function"].is_object() || !call["function"].contains("name") ||
        !call["function"]["name"].is_string()) {
      return *e = Bad(at, at + " must be {\"id\", \"type\": \"function\", \"function\": {\"name\", \"arguments\"}}"), false;
    }
    const Json& args = call["function"].contains("arguments") ? call["function"]["arguments"] : Json("{}");
    if (args.is_string()) {
      Json parsed = Json::parse(args.get<std::string>(), nullptr, false);
      if (!parsed.is_discarded()) (*flat)["tool_calls"][k]["function"]["arguments"] = parsed;
    }
  }
  return true;
}

bool ReadMessages(const Json& j, ServeRequest* r, ApiError* e) {
  auto it = j.find("messages");
  if (it == j.end() || !it->is_array() || it->empty()) return *e = Bad("messages", "messages must be a non-empty array"), false;
  r->messages = Json::array();
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& m = (*it)[i];
    std::string where = "messages[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string()) return *e = Bad(where + ".role", where + ".role must be a string"), false;
    Json flat = m;
    std::string text;
    // An assistant's turn that only called tools has content null.
    if (!ReadContent(m.contains("content") && !m["content"].is_null() ? m["content"] : Json(""), i, &text, e)) return false;
    flat["content"] = text;
    if (!ReadToolCalls(m, where, &flat, e)) return false;
    r->messages.push_back(std::move(flat));
  }
  auto kwargs = j.find("chat_template_kwargs");
  if (kwargs != j.end() && !kwargs->is_null()) {
    if (!kwargs->is_object()) return *e = Bad("chat_template_kwargs", "chat_template_kwargs must be an object"), false;
    for (const auto& [key, value] : kwargs->items()) {
      if (key != "enable_thinking" && key != "reasoning_effort") return *e = Bad("chat_template_kwargs." + key, "unknown chat_template_kwargs." + key), false;
    }
    bool thinking = false;
    if (!ReadBool(*kwargs, "enable_thinking", &thinking, e)) return false;
    if (kwargs->contains("enable_thinking") && !(*kwargs)["enable_thinking"].is_null()) r->enable_thinking = thinking;
    if (!ReadEffort(*kwargs, "chat_template_kwargs.reasoning_effort", &r->reasoning_effort, e)) return false;
  }
  return ReadEffort(j, "reasoning_effort", &r->reasoning_effort, e) && ReadBool(j, "add_generation_prompt", &r->add_generation_prompt, e);
}

// The body as JSON, refused before parsing when it nests deeper than kMaxJsonDepth: every walk
// that follows (copies, dumps, templates) recurses, and one thread's stack is the limit.
Json ParseBody(const std::string& body, ApiError* e) {
  if (JsonDepth(body, kMaxJsonDepth) > kMaxJsonDepth) {
    *e = Bad("", "the request body nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    return Json::value_t::discarded;
  }
  Json j;
  try {
    j = Json::parse(body);
  } catch (const Json::exception& error) {  // parse_error, and out_of_range for a number past double
    // nlohmann's own words say where and why ("number overflow", "unexpected '}'"); only the
    // library's prefix is dropped.
    std::string why = error.what();
    if (size_t at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);
    *e = Bad("", "malformed JSON in the request body: " + why);
    return Json::value_t::discarded;
  }
  if (!j.is_object()) *e = Bad("", "the request body must be a JSON object"), j = Json::value_t::discarded;
  return j;
}

}  // namespace

ApiError UnencodableError(const std::string& bytes, const std::string& param) {
  return Bad(param, param + " holds bytes the model's vocabulary has no token for (no byte tokens, no unknown token): " +
                        Printable(bytes));
}

Json ApiError::ToJson() const {
  return {{"error", {{"message", message}, {"type", type}, {"param", param.empty() ? nlohmann::json() : nlohmann::json(param)},
                     {"code", status}}}};
}

ParsedRequest ParseRequest(Endpoint endpoint, const std::string& body, const std::string& served) {
  ParsedRequest out;
  Json j = ParseBody(body, &out.error);
  if (j.is_discarded()) return out;
  const std::set<std::string>& own = endpoint == Endpoint::kChat ? kChatOnly : kCompletionOnly;
  for (const auto& [key, value] : j.items()) {
    if (!kSampling.count(key) && !own.count(key) && !IsStructuredField(key)) return out.error = Bad(key, "unknown field \"" + key + "\""), out;
  }
  ServeRequest r;
  r.endpoint = endpoint;
  auto model = j.find("model");
  if (model != j.end() && !model->is_null() && !model->is_string()) return out.error = Bad("model", "model must be a string"), out;
  r.model = model != j.end() && model->is_string() ? model->get<std::string>() : served;
  if (r.model != served) {
    out.error = ApiError{404, "The model `" + r.model + "` does not exist.", "model", "NotFoundError"};
    return out;
  }
  ApiError e;
  bool ok = ReadSampling(j, &r, &e) && ReadStreamOptions(j, &r, &e) &&
            (endpoint == Endpoint::kChat ? ReadMessages(j, &r, &e) && ReadTools(j, body, &r, &e) : ReadPrompt(j, &r, &e)) &&
            // Nothing generated is a completion that scores its prompt (lm-evaluation-harness's).
            (r.max_tokens != 0 || r.echo ||
             (e = Bad("max_tokens", endpoint == Endpoint::kChat ? "max_tokens must be at least 1"
                                                                 : "max_tokens 0 generates nothing: it needs echo: true, to score the prompt"),
              false)) &&
            ReadStructured(j, body, &r.grammar, &e);
  if (!ok) return out.error = e, out;
  out.request = std::move(r);
  return out;
}

std::optional<TokenizeBody> ParseTokenizeBody(const std::string& body, bool detokenize, const std::string& served, ApiError* error) {
  Json j = ParseBody(body, error);
  if (j.is_discarded()) return std::nullopt;
  TokenizeBody t;
  const char* field = detokenize ? "tokens" : "prompt";
  for (const auto& [key, value] : j.items()) {
    if (key != field && key != "model" && key != "add_special_tokens") return *error = Bad(key, "unknown field \"" + key + "\""), std::nullopt;
  }
  if (!ReadBool(j, "add_special_tokens", &t.add_special_tokens, error)) return std::nullopt;
  auto model = j.find("model");
  if (model != j.end() && !model->is_null() && (!model->is_string() || model->get<std::string>() != served)) {
    *error = ApiError{404, "The model `" + (model->is_string() ? model->get<std::string>() : model->dump()) + "` does not exist.", "model",
                      "NotFoundError"};
    return std::nullopt;
  }
  auto it = j.find(field);
  if (!detokenize) {
    if (it == j.end() || !it->is_string()) return *error = Bad("prompt", "prompt must be a string"), std::nullopt;
    t.prompt = it->get<std::string>();
    return t;
  }
  if (it == j.end() || !it->is_array()) return *error = Bad("tokens", "tokens must be an array of token ids"), std::nullopt;
  for (const Json& id : *it) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      return *error = Bad("tokens", "tokens must be an array of token ids"), std::nullopt;
    }
    t.tokens.push_back(static_cast<int32_t>(id.get<int64_t>()));
  }
  return t;
}

}  // namespace vtserve
