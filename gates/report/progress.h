// Progress on stderr (specs/reports.md): plain, one line per leg state change; or live, on a
// terminal, a status line (legs done/total, the running legs with their elapsed time, an ETA
// from the last passing runs' durations) with the finished legs' lines printed above it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gates/report/status_line.h"
#include "gates/runner/leg_result.h"

namespace pg {

class ProgressPrinter {
 public:
  // `live_fd` >= 0: a terminal, where the status line is drawn; -1: plain lines.
  ProgressPrinter(std::ostream& out, bool color, bool verbose, int live_fd = -1);
  ~ProgressPrinter();
  void OnPlan(const std::vector<PlannedLeg>& legs, int jobs);
  // "[   3.2s] unit      fail     1.8s  exit status 1"
  void OnChange(const LegResult& leg, std::string_view state);
  void Notice(const std::string& text);
  // Erases the status line; call before the report is printed. Idempotent.
  void Close();
  // The status line's text now (without the terminal's cut).
  std::string StatusText();

 private:
  std::string Line(const LegResult& leg, std::string_view state, double elapsed) const;
  static std::string Why(const std::string& tail);
  void Emit(const std::string& text);

  std::ostream& out_;
  bool color_;
  bool verbose_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;  // guards what follows; never held while calling the status line
  size_t total_ = 0;
  std::set<std::string> finished_;
  int jobs_ = 1;
  std::map<std::string, std::optional<double>> expected_;
  std::map<std::string, std::chrono::steady_clock::time_point> running_;
  std::unique_ptr<StatusLine> status_;
};

// "ETA 35s" when every leg still to finish has a duration; empty otherwise. `remaining` holds
// each unfinished leg's expected seconds left; they share `jobs` CPUs' worth of runners.
std::string EtaText(const std::vector<std::optional<double>>& remaining, int jobs);

}  // namespace pg
