#include "speculative_config.h"

#include <nlohmann/json.hpp>
#include <set>

namespace vtserve {
namespace {

const char kFlag[] = "--speculative-config";

vt::Status Bad(const std::string& message) { return vt::Status(vt::StatusCode::kInvalidArgument, std::string(kFlag) + ": " + message); }

// An integer key in [low, high], or `fallback` when absent.
vt::StatusOr<int> Int(const nlohmann::json& j, const std::string& key, int low, int high, int fallback) {
  if (!j.contains(key)) return fallback;
  const nlohmann::json& v = j[key];
  if (!v.is_number_integer() || v.get<int64_t>() < low || v.get<int64_t>() > high) {
    return Bad("\"" + key + "\" must be an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "], got " + v.dump());
  }
  return static_cast<int>(v.get<int64_t>());
}

// vLLM's n-gram window: both 5 when neither is given, else the one given for the other.
vt::Status NgramWindow(const nlohmann::json& j, vt::SpeculativeConfig& c) {
  auto max = Int(j, "prompt_lookup_max", 1, 1024, 0);
  if (!max.ok()) return max.status();
  auto min = Int(j, "prompt_lookup_min", 1, 1024, 0);
  if (!min.ok()) return min.status();
  c.prompt_lookup_max = max.value() ? max.value() : min.value() ? min.value() : 5;
  c.prompt_lookup_min = min.value() ? min.value() : max.value() ? max.value() : 5;
  if (c.prompt_lookup_min > c.prompt_lookup_max) {
    return Bad("\"prompt_lookup_min\" " + std::to_string(c.prompt_lookup_min) + " is more than \"prompt_lookup_max\" " + std::to_string(c.prompt_lookup_max));
  }
  return vt::Status();
}

}  // namespace

vt::StatusOr<vt::SpeculativeConfig> ParseSpeculativeConfig(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Bad("not a JSON object: " + text);
  static const std::set<std::string> known = {"method", "model", "num_speculative_tokens", "prompt_lookup_max", "prompt_lookup_min"};
  for (const auto& [key, value] : j.items()) {
    if (!known.count(key)) return Bad("unknown key \"" + key + "\" (vt reads method, model, num_speculative_tokens, prompt_lookup_max, prompt_lookup_min)");
  }
  for (const char* key : {"method", "model"}) {
    if (j.contains(key) && !j[key].is_string()) return Bad("\"" + std::string(key) + "\" must be a string, got " + j[key].dump());
  }
  std::string model = j.value("model", ""), method = j.value("method", "");
  if (method.empty()) method = model == "ngram" || model == "[ngram]" ? "ngram" : model.empty() ? "" : "draft_model";
  vt::SpeculativeConfig c;
  if (method == "ngram") {
    if (!model.empty() && model != "ngram" && model != "[ngram]") return Bad("\"model\" " + model + " is a draft model; method ngram drafts without one");
    c.method = vt::SpeculativeConfig::Method::kNgram;
    VT_RETURN_IF_ERROR(NgramWindow(j, c));
  } else if (method == "draft_model") {
    if (model.empty()) return Bad("method draft_model needs \"model\": the draft's GGUF file");
    c.method = vt::SpeculativeConfig::Method::kDraftModel;
    c.draft_model = model;
  } else {
    return Bad(method.empty() ? "no \"method\" and no \"model\"" : "method \"" + method + "\": vt runs ngram and draft_model");
  }
  if (!j.contains("num_speculative_tokens")) return Bad("\"num_speculative_tokens\" is required");
  auto k = Int(j, "num_speculative_tokens", 1, 64, 0);
  if (!k.ok()) return k.status();
  c.num_speculative_tokens = k.value();
  return c;
}

}  // namespace vtserve
