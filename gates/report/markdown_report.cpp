#include <cstdio>
#include <sstream>

#include "gates/report/writers.h"

namespace pg {
namespace {

std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string FormatFixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string Icon(const LegResult& leg) {
  switch (leg.outcome) {
    case Outcome::kPass:
      return leg.cached ? "✅ pass (cached)" : "✅ pass";
    case Outcome::kFail:
      return "❌ fail";
    case Outcome::kTimeout:
      return "⏱️ timeout";
    case Outcome::kContended:
      return "⚠️ contended";
    case Outcome::kSkipped:
      return "⏭️ skipped";
    case Outcome::kError:
      return "💥 error";
    case Outcome::kInherited:
      return "🔁 inherited";
  }
  return "";
}

}  // namespace

std::string RunReportMarkdown(const RunReport& report) {
  std::ostringstream out;
  std::string suites;
  for (const std::string& s : report.suites) suites += (suites.empty() ? "" : ", ") + s;
  out << "### proofgate preflight: " << ExitCodeName(report.exit_code) << "\n\n";
  out << "Suites **" << Cell(suites) << "** on tree `"
      << (report.tree_hash.empty() ? "(not a git tree)" : report.tree_hash.substr(0, 12)) << "` in "
      << FormatSeconds(report.wall_s) << ".\n\n";
  out << "| leg | outcome | wall | cpu | note |\n|---|---|---:|---:|---|\n";
  for (const LegResult& leg : report.legs) {
    out << "| " << Cell(leg.name) << " | " << Icon(leg) << " | " << FormatSeconds(leg.wall_s)
        << " | " << FormatSeconds(leg.cpu_s) << " | " << Cell(leg.note) << " |\n";
  }
  for (const LegResult& leg : report.legs) {
    if (leg.outcome != Outcome::kContended && leg.attempts.empty()) continue;
    out << "\n> ⚠️ **" << Cell(leg.name) << "** ran under foreign load: ";
    const LoadEvidence& load = leg.attempts.empty() ? leg.load : leg.attempts.front().load;
    out << "foreign " << static_cast<int>(load.foreign_mean.value_or(0) * 100 + 0.5) << "% (max "
        << static_cast<int>(load.foreign_max.value_or(0) * 100 + 0.5) << "%), steal "
        << static_cast<int>(load.steal_mean.value_or(0) * 100 + 0.5) << "%, load "
        << (load.loadavg1 ? FormatFixed(*load.loadavg1) : std::string("absent")) << "; "
        << Cell(leg.note) << "\n";
  }
  for (const LegResult& leg : report.legs) {
    bool red = leg.outcome != Outcome::kPass && leg.outcome != Outcome::kSkipped;
    if (!red || leg.output_tail.empty()) continue;
    out << "\n<details><summary>" << Cell(leg.name) << ": output tail</summary>\n\n```\n"
        << leg.output_tail << (leg.output_tail.back() == '\n' ? "" : "\n") << "```\n</details>\n";
  }
  return out.str();
}

}  // namespace pg
