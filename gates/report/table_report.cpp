#include <algorithm>
#include <cstdio>

#include "gates/report/writers.h"

namespace pg {
namespace {

const char* ColorOf(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass:
      return "\033[32m";
    case Outcome::kSkipped:
      return "\033[2m";
    case Outcome::kContended:
    case Outcome::kInherited:
      return "\033[33m";
    default:
      return "\033[31m";
  }
}

}  // namespace

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string FormatSeconds(double seconds) {
  char buf[32];
  if (seconds < 1)
    std::snprintf(buf, sizeof buf, "%.0fms", seconds * 1000);
  else if (seconds < 1e6)
    std::snprintf(buf, sizeof buf, "%.1fs", seconds);
  else
    std::snprintf(buf, sizeof buf, "%.3gs", seconds);  // a limit of 1e300 s: not 300 digits
  return buf;
}

void WriteRunTable(const RunReport& report, std::ostream& out, bool color) {
  size_t width = 3;
  for (const LegResult& leg : report.legs) width = std::max(width, leg.name.size());
  out << Pad("LEG", width) << "  " << Pad("OUTCOME", 9) << Pad("WALL", 8) << Pad("CPU", 8)
      << "NOTE\n";
  for (const LegResult& leg : report.legs) {
    std::string outcome = leg.cached ? "cached" : std::string(OutcomeName(leg.outcome));
    std::string note = leg.note;
    if (!leg.log_path.empty() && leg.outcome != Outcome::kPass)
      note += (note.empty() ? "" : "; ") + ("log " + leg.log_path);
    out << Pad(leg.name, width) << "  " << (color ? ColorOf(leg.outcome) : "") << Pad(outcome, 9)
        << (color ? "\033[0m" : "") << Pad(FormatSeconds(leg.wall_s), 8)
        << Pad(FormatSeconds(leg.cpu_s), 8) << note << "\n";
  }
  std::string suites;
  for (const std::string& s : report.suites) suites += (suites.empty() ? "" : ",") + s;
  out << "verdict: " << ExitCodeName(report.exit_code) << " (" << report.Count(Outcome::kPass)
      << " passed, " << report.Count(Outcome::kFail) + report.Count(Outcome::kError) << " failed, "
      << report.Count(Outcome::kTimeout) << " timed out, " << report.Count(Outcome::kSkipped)
      << " skipped) suite " << suites << ", tree "
      << (report.tree_hash.empty() ? "(none)" : report.tree_hash.substr(0, 12)) << ", "
      << FormatSeconds(report.wall_s) << "\n";
  if (report.shard_count > 0) {
    std::string dealt;
    for (const std::string& leg : report.shard_assigned) dealt += (dealt.empty() ? "" : ", ") + leg;
    out << "shard " << report.shard_index << "/" << report.shard_count << ": "
        << (dealt.empty() ? "no legs were dealt to this shard" : "dealt " + dealt) << "\n";
  }
  if (!report.merged_from.empty())
    out << "merged from " << report.merged_from.size() << " shard reports\n";
  if (report.tree_hash != report.tree_hash_after) {
    std::string how = TreeChangesText(report.tree_changes);
    out << "the tree changed while the suite ran (" << report.tree_hash.substr(0, 12) << " -> "
        << report.tree_hash_after.substr(0, 12) << (how.empty() ? "" : ": " + how)
        << "): the verdict describes no single tree\n";
  }
  if (report.index_changed) {
    out << "the index changed while the suite ran: the commit would hold what no leg verified\n";
  }
}

}  // namespace pg
