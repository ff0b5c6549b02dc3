// The conversion llama.cpp's converter does, from tokenizer.json alone:
// - byte-level BPE (a ByteLevel pre-tokenizer or decoder) → model "gpt2": tokens by id, merges
//   as "left right", the pre-tokenizer named by its Split regex; added tokens are control when
//   special (or spelled <|…|>), user-defined otherwise.
// - BPE with byte_fallback (SentencePiece exported to tokenizer.json) → model "llama". The
//   converter reads scores from tokenizer.model, which these exports lack; the merges carry the
//   same order, so a token's score is minus the rank of the first merge that makes it. Spaces
//   are prefixed when the normalizer prepends "▁".
// Ids missing from both lists become "[PADn]" unused tokens, as the converter writes them.
// The only file that includes nlohmann/json for the tool.
#include "hf_vocab.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vt/pretokenizer.h"
#include "vt/tokenizer.h"

namespace vt {
namespace {

using Json = nlohmann::json;

// Reading a missing key of a const json is undefined behaviour in nlohmann: this reads null.
const Json& At(const Json& j, const char* key) {
  static const Json null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

// value() throws when a key holds another type; these read a default instead.
std::string Str(const Json& j, const char* key) {
  const Json& v = At(j, key);
  return v.is_string() ? v.get<std::string>() : "";
}

bool Flag(const Json& j, const char* key, bool fallback) {
  const Json& v = At(j, key);
  return v.is_boolean() ? v.get<bool>() : fallback;
}

Status Bad(const std::string& file, const std::string& what) { return Status(StatusCode::kInvalidArgument, file + ": " + what); }

StatusOr<Json> ReadJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kUnavailable, path + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  Json j = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Bad(path, "not valid JSON");
  return j;
}

// Every object nested in `j` (itself included) whose "type" is `type`.
void FindTyped(const Json& j, const std::string& type, std::vector<const Json*>* out) {
  if (Str(j, "type") == type) out->push_back(&j);
  if (j.is_object() || j.is_array()) {
    for (const auto& child : j) FindTyped(child, type, out);
  }
}

struct Vocab {
  bool byte_level = false;
  std::vector<std::string> tokens;
  std::vector<TokenType> types;
  std::vector<std::string> merges;
};

// A config's token is a string or {"content": ...}.
std::string TokenText(const Json& j) {
  if (j.is_string()) return j.get<std::string>();
  return Str(j, "content");
}

Status ReadTokens(const std::string& path, const Json& tj, Vocab* v) {
  const Json& vocab = At(At(tj, "model"), "vocab");
  if (!vocab.is_object()) return Bad(path, "model.vocab is not an object of token → id");
  std::map<int64_t, std::pair<std::string, TokenType>> by_id;
  for (const auto& [text, id] : vocab.items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0) return Bad(path, "model.vocab[\"" + text + "\"] is not an id");
    bool byte = !v->byte_level && text.size() == 6 && text.rfind("<0x", 0) == 0 && text.back() == '>';
    by_id[id.get<int64_t>()] = {text, byte ? TokenType::kByte : TokenType::kNormal};
  }
  for (const Json& added : At(tj, "added_tokens")) {
    std::string text = Str(added, "content");
    bool special = Flag(added, "special", false) || (text.rfind("<|", 0) == 0 && text.size() > 4 && text.substr(text.size() - 2) == "|>");
    const Json& id = At(added, "id");
    if (!id.is_number_integer() || id.get<int64_t>() < 0) return Bad(path, "added_tokens entry \"" + text + "\" has no id");
    by_id[id.get<int64_t>()] = {text, special ? TokenType::kControl : TokenType::kUserDefined};
  }
  if (by_id.empty()) return Bad(path, "the vocabulary is empty");
  int64_t size = by_id.rbegin()->first + 1;
  for (int64_t i = 0; i < size; ++i) {
    auto it = by_id.find(i);
    v->tokens.push_back(it == by_id.end() ? "[PAD" + std::to_string(i) + "]" : it->second.first);
    v->types.push_back(it == by_id.end() ? TokenType::kUnused : it->second.second);
  }
  return Status();
}

Status ReadMerges(const std::string& path, const Json& tj, Vocab* v) {
  const Json& merges = At(At(tj, "model"), "merges");
  if (!merges.is_null() && !merges.is_array()) return Bad(path, "model.merges is not an array");
  for (const Json& m : merges) {
    if (m.is_string() && m.get<std::string>().find(' ', 1) != std::string::npos) {
      v->merges.push_back(m.get<std::string>());
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      v->merges.push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
    } else {
      return Bad(path, "model.merges entry " + std::to_string(v->merges.size()) + " is neither \"a b\" nor [a, b]");
    }
  }
  return Status();
}

StatusOr<std::string> PreName(const std::string& path, const Json& tj) {
  std::vector<const Json*> splits;
  FindTyped(At(tj, "pre_tokenizer"), "Split", &splits);
  for (const Json* split : splits) {
    const Json& pattern = At(*split, "pattern");
    if (!At(pattern, "Regex").is_string()) continue;
    std::string regex = Str(pattern, "Regex");
    std::string name = PreTokenizer::NameForPattern(regex);
    if (name.empty()) return Bad(path, "pre-tokenizer regex is not one vt knows: " + regex);
    return name;
  }
  std::vector<const Json*> byte_level;
  FindTyped(At(tj, "pre_tokenizer"), "ByteLevel", &byte_level);
  if (!byte_level.empty() && Flag(*byte_level.front(), "use_regex", true)) return std::string("gpt-2");
  return Bad(path, "byte-level pre-tokenizer without a Split regex vt knows");
}

// SentencePiece order recovered from the merges: the first merge making a token ranks it.
std::vector<float> Scores(const Vocab& v) {
  std::unordered_map<std::string, size_t> rank;
  for (size_t r = 0; r < v.merges.size(); ++r) {
    const std::string& m = v.merges[r];
    size_t space = m.find(' ', 1);
    if (space != std::string::npos) rank.emplace(m.substr(0, space) + m.substr(space + 1), r);
  }
  std::vector<float> scores;
  for (const std::string& t : v.tokens) {
    auto it = rank.find(t);
    scores.push_back(it == rank.end() ? -1e9f : -static_cast<float>(it->second));
  }
  return scores;
}

GgufValue Strings(const std::vector<std::string>& items) {
  std::vector<GgufValue> values;
  values.reserve(items.size());
  for (const std::string& s : items) values.push_back(GgufValue::String(s));
  return GgufValue::Array(GgufType::kString, std::move(values));
}

bool OptBool(const Json& j, const char* key, bool fallback) {
  return j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

// Template processing's single-sequence form: a special token first means BOS, last means EOS.
void AddFlagsFromPostProcessor(const Json& tj, const Vocab& v, const Json& config, GgufWriter* w) {
  std::vector<const Json*> templates;
  FindTyped(At(tj, "post_processor"), "TemplateProcessing", &templates);
  const Json& single = templates.empty() ? At(Json(), "") : At(*templates.front(), "single");
  auto special_at = [&](size_t i) { return single.is_array() && single.size() > i ? Str(At(single[i], "SpecialToken"), "id") : ""; };
  std::string first = special_at(0), last = single.empty() ? "" : special_at(single.size() - 1);
  bool add_bos = OptBool(config, "add_bos_token", !first.empty());
  bool add_eos = OptBool(config, "add_eos_token", single.size() > 1 && !last.empty());
  w->Set("tokenizer.ggml.add_bos_token", GgufValue::Bool(add_bos));
  w->Set("tokenizer.ggml.add_eos_token", GgufValue::Bool(add_eos));
  if (!first.empty() && TokenText(At(config, "bos_token")).empty()) {
    for (size_t i = 0; i < v.tokens.size(); ++i) {
      if (v.tokens[i] == first) w->Set("tokenizer.ggml.bos_token_id", GgufValue::Uint(GgufType::kU32, i));
    }
  }
}

void AddSpecialIds(const Json& config, const Vocab& v, GgufWriter* w) {
  for (const char* role : {"bos", "eos", "unk", "pad"}) {
    std::string text = TokenText(At(config, (std::string(role) + "_token").c_str()));
    for (size_t i = 0; !text.empty() && i < v.tokens.size(); ++i) {
      if (v.tokens[i] != text) continue;
      std::string key = std::string("tokenizer.ggml.") + (std::string(role) == "unk" ? "unknown" : role) + "_token_id";
      w->Set(key, GgufValue::Uint(GgufType::kU32, i));
      break;
    }
  }
  const Json& chat = At(config, "chat_template");
  if (chat.is_string()) w->Set("tokenizer.chat_template", GgufValue::String(chat.get<std::string>()));
  if (chat.is_array()) {
    for (const Json& named : chat) {
      if (Str(named, "name") == "default") w->Set("tokenizer.chat_template", GgufValue::String(Str(named, "template")));
    }
  }
}

// Model-specific keys: merges and the pre-tokenizer for gpt2, scores and the space prefix for llama.
Status SetModel(const std::string& path, const Json& j, const Vocab& v, GgufWriter* w) {
  w->Set("tokenizer.ggml.model", GgufValue::String(v.byte_level ? "gpt2" : "llama"));
  w->Set("tokenizer.ggml.tokens", Strings(v.tokens));
  if (v.byte_level) {
    auto pre = PreName(path, j);
    if (!pre.ok()) return pre.status();
    w->Set("tokenizer.ggml.pre", GgufValue::String(pre.value()));
    w->Set("tokenizer.ggml.merges", Strings(v.merges));
    return Status();
  }
  std::vector<GgufValue> scores;
  for (float s : Scores(v)) scores.push_back(GgufValue::Float(GgufType::kF32, s));
  w->Set("tokenizer.ggml.scores", GgufValue::Array(GgufType::kF32, std::move(scores)));
  std::vector<const Json*> prepends;
  FindTyped(At(j, "normalizer"), "Prepend", &prepends);
  w->Set("tokenizer.ggml.add_space_prefix", GgufValue::Bool(!prepends.empty()));
  return Status();
}

// The config's unknown token is typed as such, as the converter types SentencePiece's <unk>.
void SetTypes(const Json& config, Vocab* v, GgufWriter* w) {
  std::string unk = TokenText(At(config, "unk_token"));
  for (size_t i = 0; !unk.empty() && i < v->tokens.size(); ++i) {
    if (v->tokens[i] == unk) v->types[i] = TokenType::kUnknown;
  }
  std::vector<GgufValue> types;
  for (TokenType t : v->types) types.push_back(GgufValue::Int(GgufType::kI32, static_cast<int32_t>(t)));
  w->Set("tokenizer.ggml.token_type", GgufValue::Array(GgufType::kI32, std::move(types)));
}

}  // namespace

StatusOr<GgufWriter> ConvertHfVocab(const std::string& tokenizer_path, const std::string& config_path) {
  auto tj = ReadJson(tokenizer_path);
  if (!tj.ok()) return tj.status();
  Json config = Json::object();
  if (!config_path.empty()) {
    auto c = ReadJson(config_path);
    if (!c.ok()) return c.status();
    config = c.value();
  }
  const Json& j = tj.value();
  if (!j.is_object()) return Bad(tokenizer_path, "not a JSON object");
  if (!config.is_object()) return Bad(config_path, "not a JSON object");
  if (Str(At(j, "model"), "type") != "BPE") return Bad(tokenizer_path, "model.type must be \"BPE\" (others are not converted yet)");
  std::vector<const Json*> byte_level;
  FindTyped(At(j, "pre_tokenizer"), "ByteLevel", &byte_level);
  FindTyped(At(j, "decoder"), "ByteLevel", &byte_level);
  Vocab v;
  v.byte_level = !byte_level.empty();
  if (!v.byte_level && !Flag(At(j, "model"), "byte_fallback", false)) return Bad(tokenizer_path, "BPE that is neither byte-level nor byte_fallback (SentencePiece)");
  VT_RETURN_IF_ERROR(ReadTokens(tokenizer_path, j, &v));
  VT_RETURN_IF_ERROR(ReadMerges(tokenizer_path, j, &v));
  GgufWriter w;
  w.Set("general.architecture", GgufValue::String("llama"));
  VT_RETURN_IF_ERROR(SetModel(tokenizer_path, j, v, &w));
  SetTypes(config, &v, &w);
  AddSpecialIds(config, v, &w);
  AddFlagsFromPostProcessor(j, v, config, &w);
  return w;
}

}  // namespace vt
