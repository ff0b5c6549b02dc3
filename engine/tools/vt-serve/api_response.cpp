#include "api_response.h"

#include "client_text.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>

namespace vtserve {
namespace {

using Json = nlohmann::json;

Json UsageJson(const Usage& u) {
  return {{"prompt_tokens", u.prompt_tokens},
          {"completion_tokens", u.completion_tokens},
          {"total_tokens", u.prompt_tokens + u.completion_tokens}};
}

Json Reason(const std::string& finish_reason) { return finish_reason.empty() ? Json() : Json(finish_reason); }

Json Envelope(const ResponseHead& head, const char* object) {
  return {{"id", head.id}, {"object", object}, {"created", head.created}, {"model", head.model}};
}

// vLLM's stand-in for a log-probability of -inf, which JSON cannot write.
double Finite(float lp) { return std::max(static_cast<double>(lp), -9999.0); }

Json Bytes(const std::string& s) {
  Json out = Json::array();
  for (unsigned char c : s) out.push_back(c);
  return out;
}

// Characters (code points) in `s` as the client reads it (bytes that are not UTF-8 each one
// U+FFFD), as Python counts a string's length for text_offset.
int64_t Characters(const std::string& s) {
  int64_t n = 0;
  for (unsigned char c : ValidUtf8(s)) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

Json LogprobsJson(Endpoint endpoint, const std::vector<LogprobEntry>& entries, int64_t* offset) {
  if (endpoint == Endpoint::kChat) {
    Json content = Json::array();
    for (const LogprobEntry& e : entries) {
      Json top = Json::array();
      for (const auto& [token, lp] : e.top) top.push_back({{"token", token}, {"logprob", Finite(lp)}, {"bytes", Bytes(token)}});
      content.push_back({{"token", e.token}, {"logprob", Finite(e.logprob)}, {"bytes", Bytes(e.token)}, {"top_logprobs", top}});
    }
    return {{"content", content}};
  }
  Json tokens = Json::array(), lps = Json::array(), tops = Json::array(), offsets = Json::array();
  for (const LogprobEntry& e : entries) {
    tokens.push_back(e.token);
    lps.push_back(e.scored ? Json(Finite(e.logprob)) : Json());
    Json top = Json::object();
    for (const auto& [token, lp] : e.top) top[token] = Finite(lp);
    tops.push_back(e.scored ? top : Json());
    offsets.push_back(*offset);
    *offset += Characters(e.token);
  }
  return {{"tokens", tokens}, {"token_logprobs", lps}, {"top_logprobs", tops}, {"text_offset", offsets}};
}

ResponseHead NewHead(Endpoint endpoint, const std::string& model) {
  static std::atomic<uint64_t> counter{0};
  auto now = std::chrono::system_clock::now().time_since_epoch();
  char id[64];
  std::snprintf(id, sizeof id, "%s-%llx%06llx", endpoint == Endpoint::kChat ? "chatcmpl" : "cmpl",
                static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::microseconds>(now).count()),
                static_cast<unsigned long long>(counter.fetch_add(1) & 0xffffff));
  return ResponseHead{endpoint, id, std::chrono::duration_cast<std::chrono::seconds>(now).count(), model};
}

// A choice's fields common to answers and chunks.
Json ChoiceJson(const ChoiceOut& c) {
  return {{"index", c.index}, {"finish_reason", Reason(c.finish_reason)}, {"logprobs", c.logprobs},
          {"stop_reason", c.stop_reason ? Json(*c.stop_reason) : Json()}};
}

Json FullResponse(const ResponseHead& head, const std::vector<ChoiceOut>& choices, const Usage& usage) {
  Json list = Json::array();
  for (const ChoiceOut& c : choices) {
    Json choice = ChoiceJson(c);
    if (head.endpoint == Endpoint::kChat) {
      choice["message"] = {{"role", "assistant"}, {"content", c.null_content ? Json() : Json(c.text)}};
      if (!c.reasoning.empty()) choice["message"]["reasoning_content"] = c.reasoning;
      if (!c.tool_calls.is_null()) choice["message"]["tool_calls"] = c.tool_calls;
    } else {
      choice["text"] = c.text;
    }
    list.push_back(std::move(choice));
  }
  Json j = Envelope(head, head.endpoint == Endpoint::kChat ? "chat.completion" : "text_completion");
  j["choices"] = std::move(list);
  j["usage"] = UsageJson(usage);
  return j;
}

Json Chunk(const ResponseHead& head, const ChoiceOut& c, bool first) {
  Json choice = ChoiceJson(c);
  if (head.endpoint == Endpoint::kChat) {
    Json delta = !c.tool_calls.is_null() ? Json{{"tool_calls", c.tool_calls}}
                 : !c.reasoning.empty()   ? Json{{"reasoning_content", c.reasoning}}
                                          : Json{{"content", c.text}};
    if (first) delta["role"] = "assistant";
    choice["delta"] = delta;
  } else {
    choice["text"] = c.text;
  }
  Json j = Envelope(head, head.endpoint == Endpoint::kChat ? "chat.completion.chunk" : "text_completion");
  j["choices"] = Json::array({choice});
  return j;
}

Json UsageChunk(const ResponseHead& head, const Usage& usage) {
  Json j = Envelope(head, head.endpoint == Endpoint::kChat ? "chat.completion.chunk" : "text_completion");
  j["choices"] = Json::array();
  j["usage"] = UsageJson(usage);
  return j;
}

std::string SseEvent(const Json& j) {
  return "data: " + j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n\n";
}

}  // namespace vtserve
