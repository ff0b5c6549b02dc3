// POST /v1/embeddings (OpenAI's, as llama-server and vLLM serve it): the inputs, and the list of
// vectors answered.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api_request.h"

namespace vtserve {

struct EmbeddingsRequest {
  std::string model;
  std::vector<ServeRequest::Prompt> inputs;  // a string, ids, or a list of either
  bool base64 = false;                       // encoding_format "base64": little-endian float32s
};

// `served` as in ParseRequest. Refused with a 400 naming the field: no input, a wrong type,
// `dimensions` (vt-serve's vectors are the model's width).
std::optional<EmbeddingsRequest> ParseEmbeddings(const std::string& body, const std::string& served, ApiError* error);

nlohmann::json EmbeddingsResponse(const EmbeddingsRequest& r, const std::vector<std::vector<float>>& vectors, int64_t prompt_tokens);

}  // namespace vtserve
