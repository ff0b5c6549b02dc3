// OpenAI request bodies → what the engine runs, with vLLM's field names and defaults. Anything
// wrong becomes OpenAI's error object with its HTTP status; nothing throws.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vt/grammar.h"
#include "vt/sampling.h"

namespace vtserve {

// OpenAI's error object, and the status it goes with.
struct ApiError {
  int status = 400;
  std::string message;
  std::string param;                               // the field at fault, when one is
  std::string type = "invalid_request_error";
  nlohmann::json ToJson() const;
};

// A 400 for text that holds bytes the vocabulary has no token for (`bytes`), naming `param`.
ApiError UnencodableError(const std::string& bytes, const std::string& param);

enum class Endpoint { kCompletions, kChat };

struct ServeRequest {
  Endpoint endpoint = Endpoint::kCompletions;
  std::string model;
  // Completions: each prompt, text to tokenize or ids given as they are (a list of prompts is
  // one choice per prompt and per n).
  struct Prompt {
    std::string text;
    std::optional<std::vector<int32_t>> ids;
  };
  std::vector<Prompt> prompts;
  int n = 1;                                   // choices per prompt
  bool echo = false;                           // completions: the prompt before its completion
  nlohmann::json messages;                     // chat: content flattened to strings
  std::optional<bool> enable_thinking;         // chat_template_kwargs
  std::string reasoning_effort;                // low, medium or high (gpt-oss's template reads it); "": unset
  bool add_generation_prompt = true;
  std::optional<int> max_tokens;               // unset: the rest of the context
  vt::SamplingParams sampling;            // logprobs: chat's top_logprobs when logprobs is true
  std::shared_ptr<const vt::Grammar> grammar;  // response_format / structured_outputs (null: none)
  nlohmann::ordered_json tools = nlohmann::ordered_json::array();  // chat: the functions offered
  std::string tool_choice = "none";            // none, auto, required, or "function" (tool_name)
  std::string tool_name;
  bool parallel_tool_calls = true;
  bool stream = false;
  bool include_usage = false;
};

// Parses and checks `body` for `endpoint`. `served` is the one model name answered (404 else).
// The result holds either the request or the error.
struct ParsedRequest {
  std::optional<ServeRequest> request;
  ApiError error;
};
ParsedRequest ParseRequest(Endpoint endpoint, const std::string& body, const std::string& served);

// The body of /tokenize or /detokenize: {"prompt": "..."} or {"tokens": [...]}.
struct TokenizeBody {
  std::string prompt;
  std::vector<int32_t> tokens;
  bool add_special_tokens = true;
};
// `served` as in ParseRequest: another model is a 404.
std::optional<TokenizeBody> ParseTokenizeBody(const std::string& body, bool detokenize, const std::string& served, ApiError* error);

}  // namespace vtserve
