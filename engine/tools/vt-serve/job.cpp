#include "job.h"

namespace vtserve {

LogprobEntry EntryOf(const vt::Tokenizer& tokenizer, const vt::TokenLogprobs& t) {
  LogprobEntry e{tokenizer.Piece(t.token, /*special=*/true), t.logprob, {}};
  for (const auto& [id, lp] : t.top) e.top.push_back({tokenizer.Piece(id, /*special=*/true), lp});
  return e;
}

Job::Update Job::Take(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait_for(lock, wait, [this] { return done_ || !pending_.empty() || !pending_logprobs_.empty(); });
  Update u;
  u.text = std::move(pending_);
  pending_.clear();
  u.logprobs.swap(pending_logprobs_);
  u.done = done_;
  u.finish_reason = finish_reason_;
  u.error = error_;
  u.stop_reason = stop_reason_;
  return u;
}

void Job::Emit(const std::string& text, int tokens_so_far, std::optional<LogprobEntry> logprobs) {
  completion_tokens_ = tokens_so_far;
  if (text.empty() && !logprobs) return;
  std::lock_guard<std::mutex> lock(mutex_);
  pending_ += text;
  if (logprobs) pending_logprobs_.push_back(std::move(*logprobs));
  cv_.notify_all();
}

void Job::MarkFirstToken() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!first_token_) first_token_ = Clock::now();
}

double Job::SecondsToFirstToken() {
  std::lock_guard<std::mutex> lock(mutex_);
  return first_token_ ? std::chrono::duration<double>(*first_token_ - arrived).count() : -1;
}

bool Job::done() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

void Job::Finish(const std::string& reason, const std::string& error, std::optional<std::string> stop_reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = true;
  finish_reason_ = reason;
  error_ = error;
  stop_reason_ = std::move(stop_reason);
  cv_.notify_all();
}

}  // namespace vtserve
