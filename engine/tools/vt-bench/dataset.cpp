#include "dataset.h"

#include <fstream>
#include <random>
#include <sstream>

#include "json_value.h"
#include "vt/chat_template.h"

namespace vtbench {
namespace {

using vt::jinja::Value;

vt::Status Bad(const std::string& where, const std::string& what) { return vt::Status(vt::StatusCode::kInvalidArgument, where + ": " + what); }

// Each non-empty line of a JSON-lines file, parsed, with its "FILE:LINE" for messages.
vt::StatusOr<std::vector<std::pair<std::string, Value>>> JsonLines(const std::string& path, int limit) {
  std::ifstream in(path);
  if (!in) return vt::Status(vt::StatusCode::kUnavailable, path + ": cannot open");
  std::vector<std::pair<std::string, Value>> lines;
  std::string line;
  for (int number = 1; std::getline(in, line) && static_cast<int>(lines.size()) < limit; ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = path + ":" + std::to_string(number);
    auto v = vt::ParseJsonValue(line, where);
    if (!v.ok()) return v.status();
    lines.emplace_back(where, v.value());
  }
  if (lines.empty()) return Bad(path, "no requests in the file");
  return lines;
}

std::string ReadFile(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  *ok = static_cast<bool>(in);
  return s.str();
}

// The prompt as the model sees it: rendered as one user turn when templates are on.
vt::StatusOr<std::vector<int32_t>> Tokenize(const BenchOptions& o, const vt::Tokenizer& t, const std::string& tmpl, const std::string& prompt) {
  if (o.skip_chat_template.value_or(kDefaultSkipChatTemplate)) return t.Encode(prompt, /*add_special=*/true, /*parse_special=*/false);
  vt::ChatOptions chat;
  chat.enable_thinking = o.enable_thinking;
  chat.bos_token = t.bos() >= 0 ? t.Piece(t.bos(), /*special=*/true) : "";
  chat.eos_token = t.eos() >= 0 ? t.Piece(t.eos(), /*special=*/true) : "";
  Value messages = Value::MakeArray({Value::MakeObject({{"role", Value::String("user")}, {"content", Value::String(prompt)}})});
  auto text = vt::RenderChat(tmpl, messages, chat);
  if (!text.ok()) return text.status();
  // Templates usually write BOS themselves; add it only when this one did not.
  bool has_bos = !chat.bos_token.empty() && text.value().rfind(chat.bos_token, 0) == 0;
  return t.Encode(text.value(), /*add_special=*/!has_bos, /*parse_special=*/true);
}

vt::StatusOr<Dataset> Custom(const BenchOptions& o, const vt::Tokenizer& t, const std::string& model_template) {
  std::string tmpl = model_template;
  if (!o.chat_template.empty()) {
    bool ok = false;
    tmpl = ReadFile(o.chat_template, &ok);
    if (!ok) return vt::Status(vt::StatusCode::kUnavailable, "--chat-template " + o.chat_template + ": cannot read");
  }
  auto lines = JsonLines(o.dataset_path, o.num_prompts);
  if (!lines.ok()) return lines.status();
  Dataset d;
  d.rendered = !o.skip_chat_template.value_or(kDefaultSkipChatTemplate);
  if (d.rendered) d.enable_thinking = o.enable_thinking;  // Tokenize passes exactly this
  for (const auto& [where, v] : lines.value()) {
    Value prompt = v.Get("prompt");
    if (!prompt.is_string()) return Bad(where, "expected an object with a \"prompt\" string");
    Value out = v.Get("output_tokens");
    auto ids = Tokenize(o, t, tmpl, prompt.AsString());
    if (!ids.ok()) return Bad(where, (o.chat_template.empty() ? "the model's chat template" : o.chat_template) + ": " + ids.status().message());
    d.requests.push_back({ids.value(), out.kind() == Value::Kind::kInt ? static_cast<int>(out.AsInt()) : o.custom_output_len,
                          prompt.AsString()});
  }
  return d;
}

vt::StatusOr<Dataset> Pretokenized(const BenchOptions& o, int64_t n_vocab) {
  auto lines = JsonLines(o.pretokenized, o.num_prompts);
  if (!lines.ok()) return lines.status();
  Dataset d;
  for (const auto& [where, v] : lines.value()) {
    Value ids = v.is_array() ? v : v.Get("prompt_token_ids");
    if (!ids.is_array() || ids.array().empty()) return Bad(where, "expected a list of token ids or {\"prompt_token_ids\": [...]}");
    Request r{{}, o.custom_output_len};
    for (const Value& id : ids.array()) {
      if (id.kind() != Value::Kind::kInt || id.AsInt() < 0 || id.AsInt() >= n_vocab) {
        return Bad(where, "token id " + id.Repr() + " is outside the vocabulary (0.." + std::to_string(n_vocab - 1) + ")");
      }
      r.prompt.push_back(static_cast<int32_t>(id.AsInt()));
    }
    d.requests.push_back(std::move(r));
  }
  return d;
}

}  // namespace

vt::StatusOr<Dataset> LoadDataset(const BenchOptions& o, const vt::Tokenizer& tokenizer, const std::string& model_template,
                                  int64_t n_vocab) {
  if (!o.pretokenized.empty()) return Pretokenized(o, n_vocab);
  if (o.dataset_name != "random") return Custom(o, tokenizer, model_template);
  Dataset d;
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(n_vocab - 1));
  std::vector<int32_t> prefix(static_cast<size_t>(o.random_prefix_len));
  for (int32_t& id : prefix) id = pick(rng);
  for (int i = 0; i < o.num_prompts; ++i) {
    Request r{std::vector<int32_t>(static_cast<size_t>(o.random_input_len)), o.random_output_len};
    for (int32_t& id : r.prompt) id = pick(rng);
    r.prompt.insert(r.prompt.begin(), prefix.begin(), prefix.end());
    d.requests.push_back(std::move(r));
  }
  return d;
}

}  // namespace vtbench
