// One request's run, shared by the HTTP thread that streams it and the engine thread that
// runs it: text as it is generated, then the end.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "vt/grammar.h"
#include "vt/sampling.h"
#include "vt/tokenizer.h"

namespace vtserve {

// One generated token's log-probability, and the likeliest tokens' (as their bytes).
struct LogprobEntry {
  std::string token;
  float logprob = 0;
  std::vector<std::pair<std::string, float>> top;
  bool scored = true;  // false: a prompt's first token, which nothing predicts (null in JSON)
};

// `t` with each token as its bytes.
LogprobEntry EntryOf(const vt::Tokenizer& tokenizer, const vt::TokenLogprobs& t);

class Job {
 public:
  using Clock = std::chrono::steady_clock;
  struct Update {
    std::string text;           // new text since the last update
    std::vector<LogprobEntry> logprobs;  // the tokens generated since the last update (when asked for)
    bool done = false;
    std::string finish_reason;  // when done: "stop" or "length" (vLLM's), "error" on failure
    std::string error;
    std::optional<std::string> stop_reason;  // the stop string that ended it (vLLM's stop_reason)
  };
  Job(std::vector<int32_t> prompt, vt::SamplingParams sampling) : prompt(std::move(prompt)), sampling(std::move(sampling)) {}

  // Waits up to `wait` for new text or the end; what has come since the last call.
  Update Take(std::chrono::milliseconds wait);
  // The client went away: the worker stops at its next token.
  void Cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }
  int completion_tokens() const { return completion_tokens_; }
  bool done();  // Finish has been called

  // The worker's side.
  void Emit(const std::string& text, int tokens_so_far, std::optional<LogprobEntry> logprobs = std::nullopt);
  void Finish(const std::string& reason, const std::string& error = "", std::optional<std::string> stop_reason = std::nullopt);

  const std::vector<int32_t> prompt;
  const vt::SamplingParams sampling;  // max_tokens resolved against the context
  std::shared_ptr<const vt::Grammar> grammar;  // set before the job is queued (null: none)
  bool special_text = false;  // control tokens come out as their text (harmony's headers)
  const Clock::time_point arrived = Clock::now();
  void MarkFirstToken();               // the engine's side, at the first token
  double SecondsToFirstToken();        // -1 before the first token

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string pending_;
  std::vector<LogprobEntry> pending_logprobs_;
  bool done_ = false;
  std::string finish_reason_, error_;
  std::optional<std::string> stop_reason_;
  std::optional<Clock::time_point> first_token_;
  std::atomic<int> completion_tokens_{0};
  std::atomic<bool> cancelled_{false};
};

}  // namespace vtserve
