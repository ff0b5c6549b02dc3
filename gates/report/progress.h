// The live progress lines on stderr: one line per leg state change.
#pragma once

#include <chrono>
#include <mutex>
#include <ostream>
#include <string_view>

#include "runner/leg_result.h"

namespace pg {

class ProgressPrinter {
 public:
  ProgressPrinter(std::ostream& out, bool color, bool verbose);
  // "[   3.2s] unit      fail     1.8s  exit status 1"
  void OnChange(const LegResult& leg, std::string_view state);
  void Notice(const std::string& text);

 private:
  std::ostream& out_;
  bool color_;
  bool verbose_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
};

}  // namespace pg
