#include "responses_api.h"

#include <chrono>
#include <cstdio>
#include <random>
#include <set>

#include "client_text.h"
#include "json_fields.h"

namespace vtserve {
namespace {

using Json = nlohmann::json;
using Ordered = nlohmann::ordered_json;

const std::set<std::string> kFields = {"model", "input", "instructions", "max_output_tokens", "temperature", "top_p", "stream",
                                       "text", "tools", "tool_choice", "parallel_tool_calls", "store", "metadata", "user",
                                       "previous_response_id", "truncation"};

ApiError Bad(const std::string& param, const std::string& message) { return ApiError{400, message, param}; }

std::string Hex16() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// One input item as chat messages (consecutive function calls join one assistant message).
bool ItemToMessages(const Ordered& item, size_t i, Ordered& messages, ApiError* e) {
  const std::string where = "input[" + std::to_string(i) + "]";
  if (!item.is_object()) return *e = Bad(where, where + " must be an object"), false;
  const std::string type = StringField(item, "type", item.contains("role") ? "message" : "");
  if (type == "message") {
    if (!item.contains("role") || !item["role"].is_string()) return *e = Bad(where + ".role", where + ".role must be a string"), false;
    Ordered content = item.contains("content") ? item["content"] : Ordered("");
    if (content.is_array()) {  // input_text / output_text parts, as chat's text parts
      for (auto& part : content) {
        if (StringField(part, "type") == "input_text" || StringField(part, "type") == "output_text") part["type"] = "text";
      }
    }
    messages.push_back({{"role", item["role"]}, {"content", content}});
    return true;
  }
  if (type == "function_call") {
    Ordered call = {{"id", StringField(item, "call_id")}, {"type", "function"},
                    {"function", {{"name", StringField(item, "name")}, {"arguments", StringField(item, "arguments", "{}")}}}};
    if (!messages.empty() && messages.back()["role"] == "assistant" && messages.back().contains("tool_calls")) {
      messages.back()["tool_calls"].push_back(call);
    } else {
      messages.push_back({{"role", "assistant"}, {"content", nullptr}, {"tool_calls", Ordered::array({call})}});
    }
    return true;
  }
  if (type == "function_call_output") {
    const Ordered& out = item.contains("output") ? item["output"] : Ordered("");
    messages.push_back({{"role", "tool"}, {"tool_call_id", StringField(item, "call_id")}, {"content", out.is_string() ? out.get<std::string>() : out.dump()}});
    return true;
  }
  return *e = Bad(where + ".type", where + ".type " + (type.empty() ? "(none)" : "\"" + type + "\"") + " is not supported"), false;
}

bool Messages(const Ordered& j, Ordered& chat, ApiError* e) {
  Ordered messages = Ordered::array();
  if (j.contains("instructions") && !j["instructions"].is_null()) {
    if (!j["instructions"].is_string()) return *e = Bad("instructions", "instructions must be a string"), false;
    messages.push_back({{"role", "system"}, {"content", j["instructions"]}});
  }
  if (!j.contains("input")) return *e = Bad("input", "input is required"), false;
  const Ordered& input = j["input"];
  if (input.is_string()) {
    messages.push_back({{"role", "user"}, {"content", input}});
  } else if (input.is_array() && !input.empty()) {
    for (size_t i = 0; i < input.size(); ++i) {
      if (!ItemToMessages(input[i], i, messages, e)) return false;
    }
  } else {
    return *e = Bad("input", "input must be a string or a non-empty array of items"), false;
  }
  chat["messages"] = messages;
  return true;
}

// text.format → response_format; flat function tools → chat's; tool_choice's flat function.
bool FormatAndTools(const Ordered& j, Ordered& chat, ApiError* e) {
  if (j.contains("text") && j["text"].is_object() && j["text"].contains("format")) {
    const Ordered& f = j["text"]["format"];
    const std::string type = StringField(f, "type");
    if (type == "json_object") chat["response_format"] = {{"type", "json_object"}};
    else if (type == "json_schema") chat["response_format"] = {{"type", "json_schema"}, {"json_schema", {{"name", StringField(f, "name", "output")}, {"schema", f.contains("schema") ? f["schema"] : Ordered::object()}}}};
    else if (type != "text") return *e = Bad("text.format", "text.format.type must be text, json_object or json_schema"), false;
  }
  if (j.contains("tools") && !j["tools"].is_null()) {
    if (!j["tools"].is_array()) return *e = Bad("tools", "tools must be an array"), false;
    Ordered tools = Ordered::array();
    for (size_t i = 0; i < j["tools"].size(); ++i) {
      const Ordered& t = j["tools"][i];
      if (StringField(t, "type") != "function") return *e = Bad("tools[" + std::to_string(i) + "]", "only function tools are supported"), false;
      Ordered f = t;
      f.erase("type");
      tools.push_back({{"type", "function"}, {"function", f}});
    }
    chat["tools"] = tools;
  }
  if (j.contains("tool_choice") && !j["tool_choice"].is_null()) {
    const Ordered& c = j["tool_choice"];
    chat["tool_choice"] = c.is_object() && c.contains("name") ? Ordered{{"type", "function"}, {"function", {{"name", c["name"]}}}} : c;
  }
  return true;
}

}  // namespace

std::variant<std::string, ApiError> ResponsesToChat(const std::string& body) {
  if (JsonDepth(body, kMaxJsonDepth) > kMaxJsonDepth) return Bad("", "the request body nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  const Ordered j = Ordered::parse(body, nullptr, false);
  if (!j.is_object()) return Bad("", "the request body must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (!kFields.count(key)) return Bad(key, "unknown field \"" + key + "\"");
  }
  if (j.contains("previous_response_id") && !j["previous_response_id"].is_null()) {
    return Bad("previous_response_id", "previous_response_id is not supported: vt-serve stores no responses (send the whole input)");
  }
  if (j.contains("truncation") && j["truncation"] != "disabled") return Bad("truncation", "only truncation \"disabled\" is supported");
  // Chat's max_tokens 0 means scoring a prompt (echo), which the Responses API has no word for.
  if (j.contains("max_output_tokens") && j["max_output_tokens"].is_number() && j["max_output_tokens"] < 1) {
    return Bad("max_output_tokens", "max_output_tokens must be at least 1");
  }
  Ordered chat = Ordered::object();
  ApiError e;
  if (!Messages(j, chat, &e) || !FormatAndTools(j, chat, &e)) return e;
  for (const auto& [from, to] : std::initializer_list<std::pair<const char*, const char*>>{
           {"model", "model"}, {"max_output_tokens", "max_tokens"}, {"temperature", "temperature"}, {"top_p", "top_p"},
           {"user", "user"}, {"parallel_tool_calls", "parallel_tool_calls"}, {"stream", "stream"}}) {
    if (j.contains(from)) chat[to] = j[from];
  }
  if (Field(j, "stream", Ordered(false)) == true) chat["stream_options"] = {{"include_usage", true}};
  return chat.dump();
}

Json ResponseFromChat(const Json& chat, const Json& request) {
  const Json& choice = chat["choices"][0];
  const Json& message = choice["message"];
  Json output = Json::array();
  const bool cut = choice["finish_reason"] == "length";
  if (message["content"].is_string() && (!message["content"].get<std::string>().empty() || !message.contains("tool_calls"))) {
    output.push_back({{"type", "message"}, {"id", "msg_" + Hex16()}, {"status", cut ? "incomplete" : "completed"}, {"role", "assistant"},
                      {"content", {{{"type", "output_text"}, {"text", message["content"]}, {"annotations", Json::array()}}}}});
  }
  for (const Json& call : message.value("tool_calls", Json::array())) {
    output.push_back({{"type", "function_call"}, {"id", "fc_" + Hex16()}, {"call_id", call["id"]}, {"name", call["function"]["name"]},
                      {"arguments", call["function"]["arguments"]}, {"status", "completed"}});
  }
  const Json& u = chat["usage"];
  const std::string chat_id = chat["id"].get<std::string>();
  return {{"id", "resp_" + chat_id.substr(chat_id.find('-') + 1)}, {"object", "response"}, {"created_at", chat["created"]},
          {"status", cut ? "incomplete" : "completed"}, {"error", nullptr},
          {"incomplete_details", cut ? Json{{"reason", "max_output_tokens"}} : Json()}, {"model", chat["model"]},
          {"instructions", Field(request, "instructions", Json())}, {"max_output_tokens", Field(request, "max_output_tokens", Json())},
          {"output", output}, {"parallel_tool_calls", Field(request, "parallel_tool_calls", Json(true))},
          {"temperature", Field(request, "temperature", Json(1.0))}, {"top_p", Field(request, "top_p", Json(1.0))},
          {"tool_choice", Field(request, "tool_choice", Json("auto"))}, {"tools", Field(request, "tools", Json::array())},
          {"text", Field(request, "text", Json{{"format", {{"type", "text"}}}})}, {"metadata", Field(request, "metadata", Json::object())},
          {"store", false},
          {"usage", {{"input_tokens", u["prompt_tokens"]}, {"output_tokens", u["completion_tokens"]}, {"total_tokens", u["total_tokens"]},
                     {"input_tokens_details", {{"cached_tokens", 0}}}, {"output_tokens_details", {{"reasoning_tokens", 0}}}}}};
}

std::string ResponseStream::Event(Json data) {
  data["sequence_number"] = sequence_++;
  return "event: " + data["type"].get<std::string>() + "\ndata: " + Dump(data) + "\n\n";
}

// The response so far, as a whole one would read (no usage until it is known).
Json ResponseStream::Snapshot(const std::string& status) const {
  Json chat = {{"id", id_.substr(5)}, {"created", created_}, {"model", Field(request_, "model", Json(""))},
               {"choices", {{{"finish_reason", finish_ == "length" ? "length" : "stop"}, {"message", {{"content", ""}}}}}},
               {"usage", usage_.is_null() ? Json{{"prompt_tokens", 0}, {"completion_tokens", 0}, {"total_tokens", 0}} : usage_}};
  Json r = ResponseFromChat(chat, request_);
  r["id"] = id_;
  r["status"] = status;
  r["output"] = output_;
  if (status == "in_progress") r["incomplete_details"] = nullptr;
  return r;
}

std::string ResponseStream::CloseMessage() {
  if (!message_open_) return "";
  message_open_ = false;
  const Json part = {{"type", "output_text"}, {"text", text_}, {"annotations", Json::array()}};
  const Json item = {{"type", "message"}, {"id", message_id_}, {"status", "completed"}, {"role", "assistant"}, {"content", {part}}};
  const size_t index = output_.size();
  std::string out = Event({{"type", "response.output_text.done"}, {"item_id", message_id_}, {"output_index", index}, {"content_index", 0}, {"text", text_}});
  out += Event({{"type", "response.content_part.done"}, {"item_id", message_id_}, {"output_index", index}, {"content_index", 0}, {"part", part}});
  out += Event({{"type", "response.output_item.done"}, {"output_index", index}, {"item", item}});
  output_.push_back(item);
  return out;
}

std::string ResponseStream::OnChunk(const Json& chunk) {
  std::string out;
  if (!started_) {
    started_ = true;
    const std::string chat_id = chunk.value("id", std::string());
    id_ = "resp_" + chat_id.substr(chat_id.find('-') + 1);
    created_ = chunk.value("created", int64_t{0});
    out += Event({{"type", "response.created"}, {"response", Snapshot("in_progress")}});
    out += Event({{"type", "response.in_progress"}, {"response", Snapshot("in_progress")}});
  }
  if (chunk.contains("usage") && !chunk["usage"].is_null()) usage_ = chunk["usage"];
  if (!chunk.contains("choices") || chunk["choices"].empty()) return out;
  const Json& c = chunk["choices"][0];
  const Json& delta = c["delta"];
  const std::string text = delta.contains("content") && delta["content"].is_string() ? delta["content"].get<std::string>() : "";
  if (!text.empty()) {
    if (!message_open_) {
      message_open_ = true;
      message_id_ = "msg_" + Hex16();
      out += Event({{"type", "response.output_item.added"}, {"output_index", output_.size()},
                    {"item", {{"type", "message"}, {"id", message_id_}, {"status", "in_progress"}, {"role", "assistant"}, {"content", Json::array()}}}});
      out += Event({{"type", "response.content_part.added"}, {"item_id", message_id_}, {"output_index", output_.size()}, {"content_index", 0},
                    {"part", {{"type", "output_text"}, {"text", ""}, {"annotations", Json::array()}}}});
    }
    text_ += text;
    out += Event({{"type", "response.output_text.delta"}, {"item_id", message_id_}, {"output_index", output_.size()}, {"content_index", 0}, {"delta", text}});
  }
  for (const Json& call : delta.value("tool_calls", Json::array())) {
    out += CloseMessage();
    const std::string item_id = "fc_" + Hex16(), args = call["function"]["arguments"];
    Json item = {{"type", "function_call"}, {"id", item_id}, {"call_id", call["id"]}, {"name", call["function"]["name"]}, {"arguments", ""}, {"status", "in_progress"}};
    out += Event({{"type", "response.output_item.added"}, {"output_index", output_.size()}, {"item", item}});
    out += Event({{"type", "response.function_call_arguments.delta"}, {"item_id", item_id}, {"output_index", output_.size()}, {"delta", args}});
    out += Event({{"type", "response.function_call_arguments.done"}, {"item_id", item_id}, {"output_index", output_.size()}, {"arguments", args}});
    item["arguments"] = args;
    item["status"] = "completed";
    out += Event({{"type", "response.output_item.done"}, {"output_index", output_.size()}, {"item", item}});
    output_.push_back(item);
  }
  if (!c["finish_reason"].is_null()) {
    finish_ = c["finish_reason"];
    out += CloseMessage();
  }
  return out;
}

std::string ResponseStream::Translate(const std::string& chat_events) {
  std::string out;
  for (size_t at = chat_events.find("data: "); at != std::string::npos; at = chat_events.find("data: ", at + 6)) {
    const size_t end = chat_events.find("\n\n", at);
    const std::string data = chat_events.substr(at + 6, end - at - 6);
    if (data == "[DONE]") {
      out += CloseMessage();
      const bool cut = finish_ == "length";
      out += Event({{"type", cut ? "response.incomplete" : "response.completed"}, {"response", Snapshot(cut ? "incomplete" : "completed")}});
      continue;
    }
    const Json chunk = Json::parse(data, nullptr, false);
    if (chunk.contains("error")) {
      out += Event({{"type", "error"}, {"code", chunk["error"].value("code", 500)}, {"message", chunk["error"].value("message", "")}, {"param", nullptr}});
      continue;
    }
    out += OnChunk(chunk);
  }
  return out;
}

}  // namespace vtserve
