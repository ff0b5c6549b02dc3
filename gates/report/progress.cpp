#include "gates/report/progress.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "gates/report/failure_places.h"
#include "gates/report/writers.h"

namespace pg {

constexpr size_t kWhyBytes = 300;

ProgressPrinter::ProgressPrinter(std::ostream& out, bool color, bool verbose, int live_fd)
    : out_(out), color_(color), verbose_(verbose), start_(std::chrono::steady_clock::now()) {
  if (live_fd >= 0)
    status_ = std::make_unique<StatusLine>(out_, live_fd, [this] { return StatusText(); });
}

ProgressPrinter::~ProgressPrinter() { Close(); }

void ProgressPrinter::Close() {
  if (status_) status_->Close();
}

void ProgressPrinter::OnPlan(const std::vector<PlannedLeg>& legs, int jobs) {
  std::lock_guard<std::mutex> lock(mutex_);
  total_ = legs.size();
  jobs_ = std::max(1, jobs);
  for (const PlannedLeg& leg : legs)
    expected_[leg.name] = leg.cached ? std::optional<double>(0) : leg.expected_s;
}

std::string ProgressPrinter::Line(const LegResult& leg, std::string_view state,
                                  double elapsed) const {
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "[%7.1fs] ", elapsed);
  bool red = state == "fail" || state == "timeout" || state == "error";
  const char* on = !color_                                ? ""
                   : red                                  ? "\033[31m"
                   : state == "pass" || state == "cached" ? "\033[32m"
                                                          : "\033[2m";
  std::string out = stamp + leg.name + "  " + on + std::string(state) + (color_ ? "\033[0m" : "");
  if (state != "running" && state != "cached" && state != "skipped")
    out += "  " + FormatSeconds(leg.wall_s);
  if (!leg.note.empty() && state != "cached") out += "  " + leg.note;
  if (state == "running" && verbose_) {
    out += "  $";
    for (const std::string& arg : leg.argv) out += ' ' + arg;
  }
  out += "\n";
  if (red && !leg.log_path.empty()) out += "           log: " + leg.log_path + "\n";
  if (red && verbose_ && !leg.output_tail.empty())
    out += leg.output_tail + (leg.output_tail.back() == '\n' ? "" : "\n");
  if (red && !verbose_) out += Why(leg.output_tail);
  return out;
}

// One line of a red leg's output that says why: its first failure place's first message line,
// else its last non-blank line.
std::string ProgressPrinter::Why(const std::string& tail) {
  std::vector<FailurePlace> places = FailurePlaces(tail, 1);
  std::string said;
  if (!places.empty()) {
    const FailurePlace& f = places.front();
    std::string first = f.message.substr(0, f.message.find('\n'));
    size_t text = first.find_first_not_of(" \t");
    said = "first failure: " + f.file + ":" + std::to_string(f.line) +
           (text == std::string::npos ? "" : ": " + first.substr(text));
  } else {
    std::istringstream in(tail);
    for (std::string line; std::getline(in, line);) {
      if (line.find_first_not_of(" \t\r") != std::string::npos)
        said = "last line: " + line.substr(0, line.find('\r'));
    }
  }
  // One terminal line's worth, cut where a character starts (a minified or binary last line).
  if (said.size() > kWhyBytes) {
    size_t cut = kWhyBytes;
    while (cut > 0 && (static_cast<unsigned char>(said[cut]) & 0xC0) == 0x80) --cut;
    said = said.substr(0, cut) + "…";
  }
  return said.empty() ? "" : "           " + said + "\n";
}

void ProgressPrinter::Emit(const std::string& text) {
  if (status_) return status_->Print(text);
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << text;
  out_.flush();
}

void ProgressPrinter::OnChange(const LegResult& leg, std::string_view state) {
  std::string text;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto now = std::chrono::steady_clock::now();
    if (state == "running")
      running_[leg.name] = now;
    else
      running_.erase(leg.name);
    bool final = state != "running" && state != "contended";
    if (final) finished_.insert(leg.name);
    // On a terminal the status line shows what runs; a start is a line of its own only with -v.
    if (status_ && state == "running" && !verbose_) return;
    text = Line(leg, state, std::chrono::duration<double>(now - start_).count());
  }
  Emit(text);
}

void ProgressPrinter::Notice(const std::string& text) { Emit("proofgate: " + text + "\n"); }

std::string ProgressPrinter::StatusText() {
  std::lock_guard<std::mutex> lock(mutex_);
  auto now = std::chrono::steady_clock::now();
  char head[64];
  double elapsed = std::chrono::duration<double>(now - start_).count();
  if (total_ == 0)
    std::snprintf(head, sizeof head, "[%7.1fs] preparing", elapsed);
  else
    std::snprintf(head, sizeof head, "[%7.1fs] %zu/%zu legs done", elapsed, finished_.size(),
                  total_);
  std::string text = head, running;
  std::vector<std::optional<double>> remaining;
  for (const auto& [name, began] : running_) {
    double elapsed = std::chrono::duration<double>(now - began).count();
    running += (running.empty() ? "" : ", ") + name + " " + FormatSeconds(elapsed);
    auto it = expected_.find(name);
    bool known = it != expected_.end() && it->second;
    remaining.push_back(known ? std::optional<double>(std::max(0.0, *it->second - elapsed))
                              : std::nullopt);
  }
  for (const auto& [name, e] : expected_) {
    if (!running_.count(name) && !finished_.count(name)) remaining.push_back(e);
  }
  if (!running.empty()) text += " · running: " + running;
  std::string eta = EtaText(remaining, jobs_);
  if (!eta.empty()) text += " · " + eta;
  return text;
}

std::string EtaText(const std::vector<std::optional<double>>& remaining, int jobs) {
  double sum = 0, longest = 0;
  for (const std::optional<double>& r : remaining) {
    if (!r) return "";
    sum += *r;
    longest = std::max(longest, *r);
  }
  if (remaining.empty()) return "";
  double eta = std::max(longest, sum / std::max(1, jobs));
  return "ETA " + FormatSeconds(eta);
}

}  // namespace pg
