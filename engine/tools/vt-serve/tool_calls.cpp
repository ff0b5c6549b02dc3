#include "tool_calls.h"

#include <cctype>
#include <random>

#include "harmony.h"
#include "json_fields.h"
#include "json_schema_grammar.h"
#include "vt/grammar.h"

namespace vtserve {
namespace {

using Json = nlohmann::json;
using Ordered = nlohmann::ordered_json;

const std::string kHermesOpen = "<tool_call>", kHermesClose = "</tool_call>", kPythonTag = "<|python_tag|>";

ApiError Bad(const std::string& param, const std::string& message) { return ApiError{400, message, param}; }

// OpenAI's rule for a function's name.
bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// One call's JSON object: {"name": ..., "arguments" (or Llama's "parameters"): {...}}.
std::optional<ToolCall> CallOf(const std::string& text) {
  Ordered j = Ordered::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) return std::nullopt;
  const char* key = j.contains("arguments") ? "arguments" : "parameters";
  if (!j.contains(key)) return std::nullopt;
  const Ordered& args = j[key];
  return ToolCall{NewToolCallId(), j["name"].get<std::string>(), args.is_string() ? args.get<std::string>() : args.dump()};
}

bool ReadTool(const Ordered& tool, size_t i, ApiError* e) {
  const std::string where = "tools[" + std::to_string(i) + "]";
  if (StringField(tool, "type") != "function" || !tool.contains("function") || !tool["function"].is_object()) {
    return *e = Bad(where, where + " must be {\"type\": \"function\", \"function\": {...}}"), false;
  }
  const Ordered& f = tool["function"];
  if (!f.contains("name") || !f["name"].is_string() || !ValidName(f["name"].get<std::string>())) {
    return *e = Bad(where + ".function.name", where + ".function.name must be 1 to 64 letters, digits, _ or -"), false;
  }
  if (f.contains("parameters") && !f["parameters"].is_object()) {
    return *e = Bad(where + ".function.parameters", where + ".function.parameters must be a JSON Schema object"), false;
  }
  return true;
}

bool ReadToolChoice(const Json& j, ServeRequest* r, ApiError* e) {
  auto it = j.find("tool_choice");
  r->tool_choice = r->tools.empty() ? "none" : "auto";
  if (it == j.end() || it->is_null()) return true;
  if (it->is_string()) {
    const std::string c = it->get<std::string>();
    if (c != "none" && c != "auto" && c != "required") return *e = Bad("tool_choice", "tool_choice must be none, auto, required or a function"), false;
    r->tool_choice = c;
  } else if (StringField(*it, "type") == "function" && it->contains("function") && (*it)["function"].is_object() &&
             (*it)["function"].contains("name") && (*it)["function"]["name"].is_string()) {
    r->tool_choice = "function";
    r->tool_name = (*it)["function"]["name"].get<std::string>();
    bool known = false;
    for (const auto& t : r->tools) known = known || t["function"]["name"] == r->tool_name;
    if (!known) return *e = Bad("tool_choice", "tool_choice names \"" + r->tool_name + "\", which is not in tools"), false;
  } else {
    return *e = Bad("tool_choice", "tool_choice must be none, auto, required or {\"type\": \"function\", \"function\": {\"name\": ...}}"), false;
  }
  if (r->tools.empty() && r->tool_choice != "none") return *e = Bad("tool_choice", "tool_choice " + r->tool_choice + " needs tools"), false;
  return true;
}

}  // namespace

std::string NewToolCallId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[40];
  std::snprintf(buf, sizeof buf, "chatcmpl-tool-%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

ToolFormat DetectToolFormat(const std::string& chat_template) {
  if (chat_template.find("<|channel|>") != std::string::npos) return ToolFormat::kHarmony;
  if (chat_template.find(kHermesOpen) != std::string::npos) return ToolFormat::kHermes;
  if (chat_template.find("\"parameters\": ") != std::string::npos) return ToolFormat::kLlama3Json;
  return ToolFormat::kNone;
}

ToolFormat ToolFormatNamed(const std::string& name) {
  if (name == "hermes") return ToolFormat::kHermes;
  if (name == "llama3_json") return ToolFormat::kLlama3Json;
  if (name == "openai") return ToolFormat::kHarmony;
  return ToolFormat::kNone;
}

bool ReadTools(const Json& j, const std::string& body, ServeRequest* r, ApiError* e) {
  if (j.contains("tools") && !j["tools"].is_null()) {
    // Parsed again in order: a tool's parameters become a grammar whose members keep it.
    const Ordered tools = Ordered::parse(body, nullptr, false)["tools"];
    if (!tools.is_array()) return *e = Bad("tools", "tools must be an array of functions"), false;
    for (size_t i = 0; i < tools.size(); ++i) {
      if (!ReadTool(tools[i], i, e)) return false;
    }
    r->tools = tools;
  }
  auto parallel = j.find("parallel_tool_calls");
  if (parallel != j.end() && !parallel->is_null()) {
    if (!parallel->is_boolean()) return *e = Bad("parallel_tool_calls", "parallel_tool_calls must be true or false"), false;
    r->parallel_tool_calls = parallel->get<bool>();
  }
  return ReadToolChoice(j, r, e);
}

namespace {

// Harmony's one call a turn: its header written out (a vocabulary's control token or the same
// bytes: the parser reads both), then the arguments. One function: the header names it.
vt::StatusOr<std::string> HarmonyCallGbnf(const std::string& name, const Ordered& params, const std::string& where) {
  auto gbnf = vttools::JsonSchemaToGbnf(params, where);
  if (!gbnf.ok()) return gbnf.status();
  std::string text = gbnf.value();
  text.replace(text.rfind("root ::= "), 9, "args ::= ");
  return text + "root ::= " + vt::GbnfLiteral("<|channel|>commentary to=functions." + name + " <|constrain|>json<|message|>") + " args\n";
}

}  // namespace

vt::StatusOr<std::string> ToolCallGbnf(ToolFormat format, const ServeRequest& r) {
  Ordered choices = Ordered::array();
  for (size_t i = 0; i < r.tools.size(); ++i) {
    const Ordered& f = r.tools[i]["function"];
    const std::string name = f["name"].get<std::string>();
    if (r.tool_choice == "function" && name != r.tool_name) continue;
    const Ordered params = f.contains("parameters") ? f["parameters"] : Ordered{{"type", "object"}, {"properties", Ordered::object()}};
    const std::string where = "tools[" + std::to_string(i) + "].function.parameters";
    if (format == ToolFormat::kHarmony) {
      if (r.tool_choice == "function" || r.tools.size() == 1) return HarmonyCallGbnf(name, params, where);
      return vt::Status(vt::StatusCode::kInvalidArgument, "tool_choice required with harmony (gpt-oss) calls needs one function: "
                                                          "name it ({\"type\": \"function\", \"function\": {\"name\": ...}}) or send one tool");
    }
    auto checked = vttools::JsonSchemaToGbnf(params, where);
    if (!checked.ok()) return checked.status();
    const char* key = format == ToolFormat::kLlama3Json ? "parameters" : "arguments";
    choices.push_back({{"type", "object"}, {"properties", {{"name", {{"const", name}}}, {key, params}}}, {"required", {"name", key}}});
  }
  auto gbnf = vttools::JsonSchemaToGbnf(choices.size() == 1 ? choices[0] : Ordered{{"anyOf", choices}}, "tools");
  if (!gbnf.ok()) return gbnf.status();
  std::string text = gbnf.value();
  const size_t root = text.rfind("root ::= ");
  text.replace(root, 9, "call ::= ");
  if (format == ToolFormat::kLlama3Json) return text + "root ::= call\n";
  const std::string one = "\"<tool_call>\\n\" call \"\\n</tool_call>\"";
  return text + "root ::= " + one + (r.parallel_tool_calls ? " (\"\\n\" " + one + ")*" : "") + "\n";
}

namespace {

// Llama 3's: one or more `{"name", "parameters"}` objects, `;`-separated, after an optional
// <|python_tag|>; anything else is all content.
ToolOutput ParseLlama3(const std::string& text) {
  std::string t = Trim(text);
  if (t.rfind(kPythonTag, 0) == 0) t = Trim(t.substr(kPythonTag.size()));
  if (t.empty() || t[0] != '{') return ToolOutput{text, {}, ""};
  std::vector<ToolCall> calls;
  for (size_t at = 0; at < t.size();) {  // calls separated by ";"
    size_t end = t.find("};", at);
    end = end == std::string::npos ? t.size() : end + 1;
    auto call = CallOf(t.substr(at, end - at));
    if (!call) return ToolOutput{text, {}, ""};
    calls.push_back(*call);
    at = t.find_first_not_of("; \n", end);
  }
  return ToolOutput{std::nullopt, std::move(calls), ""};
}

ToolOutput ParseHermes(const std::string& text) {
  size_t at = text.find(kHermesOpen);
  if (at == std::string::npos) return ToolOutput{text, {}, ""};
  // The text before the calls as it came (what a stream already sent), null when only space.
  const std::string before = Trim(text.substr(0, at)).empty() ? "" : text.substr(0, at);
  std::vector<ToolCall> calls;
  for (; at != std::string::npos; at = text.find(kHermesOpen, at)) {
    size_t end = text.find(kHermesClose, at);
    auto call = CallOf(Trim(text.substr(at + kHermesOpen.size(), (end == std::string::npos ? text.size() : end) - at - kHermesOpen.size())));
    if (!call) return ToolOutput{text, {}, ""};
    calls.push_back(*call);
    if (end == std::string::npos) break;
    at = end + kHermesClose.size();
  }
  return ToolOutput{before.empty() ? std::nullopt : std::optional<std::string>(before), std::move(calls), ""};
}

}  // namespace

ToolOutput ParseToolCalls(ToolFormat format, const std::string& text) {
  if (format == ToolFormat::kLlama3Json) return ParseLlama3(text);
  if (format == ToolFormat::kHermes) return ParseHermes(text);
  if (format != ToolFormat::kHarmony) return ToolOutput{text, {}, ""};
  HarmonyOutput h = ParseHarmony(text);
  const bool only_calls = !h.calls.empty() && Trim(h.content).empty();
  return ToolOutput{only_calls ? std::nullopt : std::optional<std::string>(h.content), std::move(h.calls), std::move(h.reasoning)};
}

std::string ToolStream::Push(const std::string& text) {
  all_ += text;
  if (format_ == ToolFormat::kHarmony) {  // what was sent stays a prefix: messages grow at the end
    const HarmonyOutput now = ParseHarmony(all_, /*complete=*/false);
    if (now.reasoning.size() > reasoning_sent_) reasoning_ += now.reasoning.substr(reasoning_sent_);
    reasoning_sent_ = std::max(reasoning_sent_, now.reasoning.size());
    const std::string out = now.content.size() > sent_ ? now.content.substr(sent_) : "";
    sent_ += out.size();
    return out;
  }
  if (calling_) return "";
  size_t hold = 0;  // a tail that may start a call
  if (format_ == ToolFormat::kHermes) {
    if (size_t at = all_.find(kHermesOpen, sent_); at != std::string::npos) {
      calling_ = true;
      hold = all_.size() - at;
    } else {
      for (size_t k = std::min(all_.size() - sent_, kHermesOpen.size() - 1); k > 0 && hold == 0; --k) {
        if (all_.compare(all_.size() - k, k, kHermesOpen, 0, k) == 0) hold = k;
      }
    }
  } else if (format_ == ToolFormat::kLlama3Json) {
    const size_t first = all_.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";  // only whitespace yet: it may precede a call
    calling_ = all_[first] == '{' || all_.compare(first, kPythonTag.size(), kPythonTag, 0, std::min(kPythonTag.size(), all_.size() - first)) == 0;
    if (calling_) hold = all_.size() - sent_;
  }
  const std::string out = all_.substr(sent_, all_.size() - sent_ - hold);
  sent_ += out.size();
  return out;
}

ToolOutput ToolStream::Finish() {
  if (format_ == ToolFormat::kHarmony) {  // sent_ counts the content sent, not all_'s bytes
    HarmonyOutput h = ParseHarmony(all_);  // complete: what was held back as a possible token is text
    return ToolOutput{h.content.size() > sent_ ? h.content.substr(sent_) : "", std::move(h.calls),
                      h.reasoning.size() > reasoning_sent_ ? h.reasoning.substr(reasoning_sent_) : ""};
  }
  const std::string rest = all_.substr(sent_);
  if (!calling_) return ToolOutput{rest, {}, ""};
  ToolOutput out = ParseToolCalls(format_, rest);
  if (out.calls.empty()) out.content = rest;
  return out;
}

Json ToolCallsJson(const std::vector<ToolCall>& calls, bool delta) {
  Json out = Json::array();
  for (size_t i = 0; i < calls.size(); ++i) {
    Json c = {{"id", calls[i].id}, {"type", "function"}, {"function", {{"name", calls[i].name}, {"arguments", calls[i].arguments}}}};
    if (delta) c["index"] = i;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace vtserve
