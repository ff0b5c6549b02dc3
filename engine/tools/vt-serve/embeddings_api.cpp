#include "embeddings_api.h"

#include <cstring>

#include "json_fields.h"

namespace vtserve {
namespace {

using Json = nlohmann::json;

ApiError Bad(const std::string& param, const std::string& message) { return ApiError{400, message, param}; }

bool OneInput(const Json& v, ServeRequest::Prompt* out) {
  if (v.is_string()) return out->text = v.get<std::string>(), true;
  if (!v.is_array() || v.empty()) return false;
  std::vector<int32_t> ids;
  for (const Json& id : v) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX) return false;
    ids.push_back(static_cast<int32_t>(id.get<int64_t>()));
  }
  out->ids = std::move(ids);
  return true;
}

// RFC 4648 base64 of raw bytes (OpenAI's encoding_format "base64").
std::string Base64(const unsigned char* data, size_t n) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t chunk = (data[i] << 16) | (i + 1 < n ? data[i + 1] << 8 : 0) | (i + 2 < n ? data[i + 2] : 0);
    out += kAlphabet[(chunk >> 18) & 63];
    out += kAlphabet[(chunk >> 12) & 63];
    out += i + 1 < n ? kAlphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < n ? kAlphabet[chunk & 63] : '=';
  }
  return out;
}

}  // namespace

std::optional<EmbeddingsRequest> ParseEmbeddings(const std::string& body, const std::string& served, ApiError* error) {
  const Json j = Json::parse(body, nullptr, false);
  if (!j.is_object()) return *error = Bad("", "the request body must be a JSON object"), std::nullopt;
  for (const auto& [key, value] : j.items()) {
    if (key == "dimensions") return *error = Bad("dimensions", "dimensions is not supported: the vectors are the model's width"), std::nullopt;
    if (key != "model" && key != "input" && key != "encoding_format" && key != "user") return *error = Bad(key, "unknown field \"" + key + "\""), std::nullopt;
  }
  EmbeddingsRequest r;
  r.model = j.contains("model") && j["model"].is_string() ? j["model"].get<std::string>() : served;
  if (r.model != served) return *error = ApiError{404, "The model `" + r.model + "` does not exist.", "model", "NotFoundError"}, std::nullopt;
  const char* shapes = "input must be a string, an array of token ids, or an array of either";
  const Json& input = j.contains("input") ? j["input"] : Json();
  ServeRequest::Prompt one;
  if (input.is_string() || (input.is_array() && !input.empty() && input.front().is_number())) {
    if (!OneInput(input, &one)) return *error = Bad("input", shapes), std::nullopt;
    r.inputs.push_back(std::move(one));
  } else if (input.is_array() && !input.empty() && input.size() <= 2048) {
    for (const Json& each : input) {
      if (!OneInput(each, &one)) return *error = Bad("input", shapes), std::nullopt;
      r.inputs.push_back(std::move(one));
      one = {};
    }
  } else {
    return *error = Bad("input", std::string(shapes) + " (1 to 2048 of them)"), std::nullopt;
  }
  const std::string format = j.contains("encoding_format") && !j["encoding_format"].is_null() ? StringField(j, "encoding_format", "?") : "float";
  if (format != "float" && format != "base64") return *error = Bad("encoding_format", "encoding_format must be float or base64"), std::nullopt;
  r.base64 = format == "base64";
  return r;
}

Json EmbeddingsResponse(const EmbeddingsRequest& r, const std::vector<std::vector<float>>& vectors, int64_t prompt_tokens) {
  Json data = Json::array();
  for (size_t i = 0; i < vectors.size(); ++i) {
    Json embedding = vectors[i];
    if (r.base64) {
      std::vector<unsigned char> bytes(vectors[i].size() * sizeof(float));
      std::memcpy(bytes.data(), vectors[i].data(), bytes.size());  // x86 and ARM: little-endian, as OpenAI's
      embedding = Base64(bytes.data(), bytes.size());
    }
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", embedding}});
  }
  return {{"object", "list"}, {"data", data}, {"model", r.model}, {"usage", {{"prompt_tokens", prompt_tokens}, {"total_tokens", prompt_tokens}}}};
}

}  // namespace vtserve
