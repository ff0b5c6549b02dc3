// The model behind the server: requests are tokenized (chat through the template), queued
// first come first served, and run one at a time by one worker thread, each from an empty KV
// cache. The HTTP side waits on a Job for text as it is generated.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "api_request.h"
#include "serve_metrics.h"
#include "vt/model.h"
#include "vt/tokenizer.h"

namespace vtserve {

// One request's run, shared by the HTTP thread that streams it and the worker that runs it.
class Job {
 public:
  using Clock = std::chrono::steady_clock;
  struct Update {
    std::string text;           // new text since the last update
    bool done = false;
    std::string finish_reason;  // when done: "stop" or "length" (vLLM's), "error" on failure
    std::string error;
  };
  Job(std::vector<int32_t> prompt, vt::SamplingParams sampling) : prompt(std::move(prompt)), sampling(std::move(sampling)) {}

  // Waits up to `wait` for new text or the end; what has come since the last call.
  Update Take(std::chrono::milliseconds wait);
  // The client went away: the worker stops at its next token.
  void Cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }
  int completion_tokens() const { return completion_tokens_; }

  // The worker's side.
  void Emit(const std::string& text, int tokens_so_far);
  void Finish(const std::string& reason, const std::string& error = "");

  const std::vector<int32_t> prompt;
  const vt::SamplingParams sampling;  // max_tokens resolved against the context
  const Clock::time_point arrived = Clock::now();
  Clock::time_point first_token{};

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string pending_;
  bool done_ = false;
  std::string finish_reason_, error_;
  std::atomic<int> completion_tokens_{0};
  std::atomic<bool> cancelled_{false};
};

struct ServeOptions {
  std::string served_name;
  int64_t max_model_len = 0;  // 0: the model's training context
  int max_queued = 64;
  std::string chat_template;  // the text; empty: the model's tokenizer.chat_template
};

class ServeEngine {
 public:
  static vt::StatusOr<std::unique_ptr<ServeEngine>> Start(std::shared_ptr<const vt::GgufFile> file,
                                                          std::unique_ptr<vt::LlamaModel> model, ServeOptions options);
  ~ServeEngine();
  ServeEngine(const ServeEngine&) = delete;
  ServeEngine& operator=(const ServeEngine&) = delete;

  // Tokenizes and queues `r`, or says why not (a prompt past the context: 400; full: 503).
  std::variant<std::shared_ptr<Job>, ApiError> Submit(const ServeRequest& r);
  // Shutting down: the running request stops at its next token, waiting ones end as "abort".
  void CancelAll();
  const vt::Tokenizer& tokenizer() const { return tokenizer_; }
  const ServeOptions& options() const { return options_; }
  std::string MetricsText() const { return metrics_.Text(options_.served_name); }

 private:
  ServeEngine(std::shared_ptr<const vt::GgufFile> file, std::unique_ptr<vt::LlamaModel> model, vt::Tokenizer tokenizer,
              vt::KvCache cache, ServeOptions options);
  std::variant<std::vector<int32_t>, ApiError> PromptOf(const ServeRequest& r) const;
  void Loop();
  void Run(Job& job);
  void UpdateGauges(const Job* running);  // callers hold mutex_

  std::shared_ptr<const vt::GgufFile> file_;
  std::unique_ptr<vt::LlamaModel> model_;
  vt::Tokenizer tokenizer_;
  vt::KvCache cache_;
  ServeOptions options_;
  ServeMetrics metrics_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> waiting_;
  std::shared_ptr<Job> running_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace vtserve
