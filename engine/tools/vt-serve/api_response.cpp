#include "api_response.h"

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

}  // namespace

ResponseHead NewHead(Endpoint endpoint, const std::string& model) {
  static std::atomic<uint64_t> counter{0};
  auto now = std::chrono::system_clock::now().time_since_epoch();
  char id[64];
  std::snprintf(id, sizeof id, "%s-%llx%06llx", endpoint == Endpoint::kChat ? "chatcmpl" : "cmpl",
                static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::microseconds>(now).count()),
                static_cast<unsigned long long>(counter.fetch_add(1) & 0xffffff));
  return ResponseHead{endpoint, id, std::chrono::duration_cast<std::chrono::seconds>(now).count(), model};
}

Json FullResponse(const ResponseHead& head, const std::string& text, const std::string& finish_reason, const Usage& usage) {
  Json choice = {{"index", 0}, {"finish_reason", Reason(finish_reason)}, {"logprobs", nullptr}};
  if (head.endpoint == Endpoint::kChat) {
    choice["message"] = {{"role", "assistant"}, {"content", text}};
  } else {
    choice["text"] = text;
  }
  Json j = Envelope(head, head.endpoint == Endpoint::kChat ? "chat.completion" : "text_completion");
  j["choices"] = Json::array({choice});
  j["usage"] = UsageJson(usage);
  return j;
}

Json Chunk(const ResponseHead& head, const std::string& text, const std::string& finish_reason, bool first) {
  Json choice = {{"index", 0}, {"finish_reason", Reason(finish_reason)}, {"logprobs", nullptr}};
  if (head.endpoint == Endpoint::kChat) {
    Json delta = {{"content", text}};
    if (first) delta["role"] = "assistant";
    choice["delta"] = delta;
  } else {
    choice["text"] = text;
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
