// Live progress for runs of many items on a few workers (mutate's mutants, prove's steps):
// "[  42.0s] 12/40 mutants done · w0: M13 test 2.1s, w1: M14 build 0.4s · ETA 1m30s" on a
// terminal, with each finished item's line printed above it; plain lines elsewhere.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

#include "gates/report/status_line.h"

namespace pg {

class StepProgress {
 public:
  // `noun`: what an item is called ("mutants"); `live_fd` >= 0: a terminal (see StatusLine).
  StepProgress(std::ostream& out, std::string noun, int live_fd);
  ~StepProgress();
  void SetTotal(size_t total);
  void OnStep(int worker, const std::string& step);
  // An item finished: `line` (ending in \n) is printed, and the count moves.
  void OnDone(const std::string& line);
  // Any other line to keep (notices).
  void Print(const std::string& line);
  void Close();
  std::string StatusText();

 private:
  std::ostream& out_;
  std::string noun_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;  // guards what follows; never held while calling the status line
  size_t total_ = 0, done_ = 0;
  std::map<int, std::pair<std::string, std::chrono::steady_clock::time_point>> steps_;
  std::unique_ptr<StatusLine> status_;
};

}  // namespace pg
