#include "gates/report/step_progress.h"

#include <cstdio>

#include "gates/report/writers.h"

namespace pg {

StepProgress::StepProgress(std::ostream& out, std::string noun, int live_fd)
    : out_(out), noun_(std::move(noun)), start_(std::chrono::steady_clock::now()) {
  if (live_fd >= 0)
    status_ = std::make_unique<StatusLine>(out_, live_fd, [this] { return StatusText(); });
}

StepProgress::~StepProgress() { Close(); }

void StepProgress::Close() {
  if (status_) status_->Close();
}

void StepProgress::SetTotal(size_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  total_ = total;
}

void StepProgress::OnStep(int worker, const std::string& step) {
  std::lock_guard<std::mutex> lock(mutex_);
  steps_[worker] = {step, std::chrono::steady_clock::now()};
}

void StepProgress::OnDone(const std::string& line) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
  }
  Print(line);
}

void StepProgress::Print(const std::string& line) {
  if (status_) return status_->Print(line);
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << line;
  out_.flush();
}

std::string StepProgress::StatusText() {
  std::lock_guard<std::mutex> lock(mutex_);
  auto now = std::chrono::steady_clock::now();
  double elapsed = std::chrono::duration<double>(now - start_).count();
  char head[96];
  if (total_ == 0)
    std::snprintf(head, sizeof head, "[%7.1fs]", elapsed);
  else
    std::snprintf(head, sizeof head, "[%7.1fs] %zu/%zu %s done", elapsed, done_, total_,
                  noun_.c_str());
  std::string text = head, steps;
  for (const auto& [worker, step] : steps_) {
    bool named = steps_.size() > 1 || worker > 0;  // one worker needs no name
    steps += (steps.empty() ? "" : ", ") + (named ? "w" + std::to_string(worker) + ": " : "") +
             step.first + " " +
             FormatSeconds(std::chrono::duration<double>(now - step.second).count());
  }
  if (!steps.empty()) text += (total_ == 0 ? " " : " · ") + steps;
  // The items done so far are the estimate: each costs about what the finished ones did.
  if (done_ > 0 && total_ > done_)
    text += " · ETA " + FormatSeconds(elapsed / static_cast<double>(done_) *
                                      static_cast<double>(total_ - done_));
  return text;
}

}  // namespace pg
