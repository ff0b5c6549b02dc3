// One request's choices answered together: a job per prompt and per n (OpenAI's `prompt` list
// and `n`), streamed as SSE events as they come, or collected into one answer.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "api_response.h"
#include "job.h"
#include "serve_engine.h"
#include "tool_calls.h"

namespace vtserve {

class Generation {
 public:
  struct Part {
    std::shared_ptr<Job> job;
    int index = 0;            // the choice's index: prompt × n + its number
    std::string echo;         // completions' echo: the prompt's text, sent first
    std::vector<LogprobEntry> echo_logprobs;  // echo with logprobs: the prompt's, sent first
    bool counts_prompt = false;  // the first choice of its prompt: its prompt tokens are counted
    ToolFormat tools = ToolFormat::kNone;  // chat with tools: its output parsed for calls
  };

  // Submits one job per prompt and per n (seed + i for the i-th when a seed is given, as
  // vLLM's), or the first refusal, with the jobs queued before it cancelled.
  // `gone` says the client left (asked while the prompts are scored, for echo with logprobs).
  static std::variant<std::unique_ptr<Generation>, ApiError> Start(ServeEngine& engine, const ServeRequest& r,
                                                                   ResponseHead head, const std::function<bool()>& gone = {});
  ~Generation();

  // Streaming: the SSE events of what arrived within `wait` (maybe none); `*done` once the last
  // event ([DONE]) is among them. A failed job ends the stream with its error event.
  std::string Events(std::chrono::milliseconds wait, bool* done);
  // Answered whole: waits for every job; false when `gone()` (asked between waits) said the
  // client left, every job then cancelled.
  bool Collect(const std::function<bool()>& gone);
  // After Collect: the answer, or a failed job's error (a 500).
  std::variant<nlohmann::json, ApiError> Whole() const;
  void Cancel();
  const std::vector<Part>& parts() const { return parts_; }
  // How part `i` ended ("" before it did).
  const std::string& finish(size_t i) const { return states_[i].finish; }
  const ResponseHead& head() const { return head_; }

 private:
  struct State {
    std::string text, finish, error;
    std::optional<std::string> stop_reason;
    std::vector<LogprobEntry> logprobs;
    int64_t offset = 0;  // completions' text_offset so far
    bool first = true;
    std::optional<ToolStream> tools;  // streaming with tools: what may go out as content
  };
  Generation(ResponseHead head, bool include_usage, std::vector<Part> parts);
  nlohmann::json Logprobs(size_t i, const std::vector<LogprobEntry>& entries);
  std::string Step(size_t i, const Job::Update& u);
  std::string End(size_t i, const Job::Update& u);
  static std::variant<std::shared_ptr<const vt::Grammar>, ApiError> ToolGrammar(ToolFormat format, const ServeRequest& r);
  Usage TotalUsage() const;

  ResponseHead head_;
  bool include_usage_;
  std::vector<Part> parts_;
  std::vector<State> states_;
  bool over_ = false;
};

}  // namespace vtserve
