// OpenAI's Responses API (POST /v1/responses), which the AI SDK's OpenAI provider calls by
// default, over vt-serve's chat completions: the request becomes a chat request (input items as
// messages, instructions as the system message, text.format as response_format, flat function
// tools as chat tools), and the chat answer, whole or streamed, becomes a response and its events.
#pragma once

#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "api_request.h"

namespace vtserve {

// The chat request body `body` (a Responses request) stands for, or a 400 naming its field.
std::variant<std::string, ApiError> ResponsesToChat(const std::string& body);

// A chat completion (FullResponse's JSON) as a response object.
nlohmann::json ResponseFromChat(const nlohmann::json& chat, const nlohmann::json& request);

// A chat stream's events as the Responses API's: response.created, the output items and their
// text deltas, response.completed (with the usage the chat stream's last chunk carries).
class ResponseStream {
 public:
  explicit ResponseStream(nlohmann::json request) : request_(std::move(request)) {}
  // The events for these SSE chat chunks (as Generation::Events wrote them).
  std::string Translate(const std::string& chat_events);

 private:
  std::string Event(nlohmann::json data);
  std::string OnChunk(const nlohmann::json& chunk);
  std::string CloseMessage();
  nlohmann::json Snapshot(const std::string& status) const;

  nlohmann::json request_;
  std::string id_, message_id_, text_, finish_;
  nlohmann::json output_ = nlohmann::json::array(), usage_;
  int64_t created_ = 0, sequence_ = 0;
  bool started_ = false, message_open_ = false;
};

}  // namespace vtserve
