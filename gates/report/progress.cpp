#include "report/progress.h"

#include <cstdio>

#include "report/writers.h"

namespace pg {

ProgressPrinter::ProgressPrinter(std::ostream& out, bool color, bool verbose)
    : out_(out), color_(color), verbose_(verbose), start_(std::chrono::steady_clock::now()) {}

void ProgressPrinter::OnChange(const LegResult& leg, std::string_view state) {
  std::lock_guard<std::mutex> lock(mutex_);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "[%7.1fs] ", elapsed);
  bool red = state == "fail" || state == "timeout" || state == "error";
  const char* on = !color_ ? "" : red ? "\033[31m" : state == "pass" || state == "cached" ? "\033[32m" : "\033[2m";
  out_ << stamp << leg.name << "  " << on << state << (color_ ? "\033[0m" : "");
  if (state != "running" && state != "cached" && state != "skipped") out_ << "  " << FormatSeconds(leg.wall_s);
  if (!leg.note.empty() && state != "cached") out_ << "  " << leg.note;
  if (state == "running" && verbose_) {
    out_ << "  $";
    for (const std::string& arg : leg.argv) out_ << ' ' << arg;
  }
  out_ << "\n";
  if (red && !leg.log_path.empty()) out_ << "           log: " << leg.log_path << "\n";
  if (red && verbose_ && !leg.output_tail.empty()) out_ << leg.output_tail << (leg.output_tail.back() == '\n' ? "" : "\n");
  out_.flush();
}

void ProgressPrinter::Notice(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << "proofgate: " << text << "\n";
  out_.flush();
}

}  // namespace pg
