// Completions, chat completions and their SSE chunks, shaped as OpenAI's (and vLLM's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api_request.h"
#include "job.h"

namespace vtserve {

// What a response is about: one request, named once.
struct ResponseHead {
  Endpoint endpoint = Endpoint::kCompletions;
  std::string id;  // "cmpl-..." or "chatcmpl-..."
  int64_t created = 0;
  std::string model;
};
ResponseHead NewHead(Endpoint endpoint, const std::string& model);

struct Usage {
  int64_t prompt_tokens = 0, completion_tokens = 0;
};

// One choice of an answer, or of a chunk.
struct ChoiceOut {
  int index = 0;
  std::string text;
  std::string finish_reason;                     // "" before the last chunk
  std::optional<std::string> stop_reason;        // the stop string that ended it (vLLM's)
  nlohmann::json logprobs;                       // LogprobsJson's, or null when not asked for
  nlohmann::json tool_calls;                     // chat: the calls parsed (ToolCallsJson), or null
  bool null_content = false;                     // chat: the message was only calls
  std::string reasoning = "";                    // chat: harmony's analysis (reasoning_content)
};

// The whole answer of a request that did not stream.
nlohmann::json FullResponse(const ResponseHead& head, const std::vector<ChoiceOut>& choices, const Usage& usage);
// One SSE chunk's JSON: one choice's new text (chat's first chunk of a choice also carries the
// role), and its finish reason on its last one.
nlohmann::json Chunk(const ResponseHead& head, const ChoiceOut& choice, bool first);
// A choice's `logprobs` for these tokens: chat's {"content": [...]}, or completions' tokens,
// token_logprobs, top_logprobs and text_offset (characters from the completion's start;
// `*offset` carries them from chunk to chunk).
nlohmann::json LogprobsJson(Endpoint endpoint, const std::vector<LogprobEntry>& entries, int64_t* offset);
// The last chunk when stream_options.include_usage: empty choices and the usage.
nlohmann::json UsageChunk(const ResponseHead& head, const Usage& usage);
// "data: <json>\n\n", with bytes that are not UTF-8 replaced rather than thrown on.
std::string SseEvent(const nlohmann::json& j);

}  // namespace vtserve
