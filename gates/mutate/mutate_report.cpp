#include "gates/mutate/mutate_report.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "gates/config/json_source.h"
#include "gates/core/exit_code.h"
#include "gates/report/writers.h"

namespace pg {
namespace {

// How a table's marker line names the commit its rows held at (`--affected` measures from it).
constexpr std::string_view kVerifiedAt = " verified at ";

std::string Percent(double share) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << share * 100 << "%";
  return out.str();
}

double Overhead(const MutantResult& r) { return std::max(0.0, r.total_s - r.build_s - r.test_s); }

std::string Note(const MutantResult& r) {
  // An unviable generated mutant is as claimed with no observed failure: its note is the
  // compiler's error (the table's NOTE was empty, the error only in the JSON).
  if (IsAsClaimed(r))
    return !r.expected_outcome.empty() || r.observed.empty() ? r.detail : r.observed;
  return r.detail.empty() ? r.observed : r.detail;
}

// One line for a table cell: pipes escaped, newlines folded.
std::string Cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r')
      out += ' ';
    else if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

std::string Code(const std::string& s) {
  std::string fence = s.find('`') == std::string::npos ? "`" : "``";
  return fence + (fence.size() > 1 ? " " : "") + Cell(s) + (fence.size() > 1 ? " " : "") + fence;
}

std::string Row(const MutantResult& r, const std::string& outcome) {
  std::string change = r.change;
  size_t arrow = change.find(" → ");
  if (!r.combo && arrow != std::string::npos)
    change = Code(change.substr(0, arrow)) + " → " + Code(change.substr(arrow + 5));
  else
    change = Cell(change);
  return "| " + r.id + " | " + Cell(r.files) + " | " + change + " | " + Cell(r.tests) + " | " +
         outcome + " | " + Cell(Note(r)) + " |";
}

}  // namespace

void WriteMutateTable(const MutateReport& report, std::ostream& out, bool color) {
  size_t width = 2;
  for (const MutantResult& r : report.results) width = std::max(width, r.id.size());
  out << Pad("ID", width) << "  " << Pad("OUTCOME", 18) << Pad("BUILD", 8) << Pad("TEST", 8)
      << "NOTE\n";
  std::map<std::string, int> counts;
  double build = 0, test = 0, overhead = 0;
  for (const MutantResult& r : report.results) {
    bool good = IsAsClaimed(r);
    out << Pad(r.id, width) << "  " << (color ? (good ? "\033[32m" : "\033[31m") : "")
        << Pad(std::string(MutantOutcomeName(r.outcome)), 18) << (color ? "\033[0m" : "")
        << Pad(FormatSeconds(r.build_s), 8) << Pad(FormatSeconds(r.test_s), 8) << Note(r) << "\n";
    ++counts[std::string(MutantOutcomeName(r.outcome))];
    build += r.build_s, test += r.test_s, overhead += Overhead(r);
  }
  for (const Recovered& r : report.recovered)
    out << "recovered from an interrupted run: " << r.path << "\n";
  if (!report.baseline_problem.empty())
    out << "baseline not green: " << report.baseline_problem << "\n";
  if (report.interrupted) out << "interrupted: every mutant was restored\n";
  std::string tally;
  for (const auto& [name, n] : counts)
    tally += (tally.empty() ? "" : ", ") + std::to_string(n) + " " + name;
  out << "verdict: " << ExitCodeName(static_cast<ExitCode>(MutateExitCode(report))) << " ("
      << report.results.size() << " mutants" << (tally.empty() ? "" : ": " + tally)
      << "); time: build " << FormatSeconds(build) << ", test " << FormatSeconds(test)
      << ", overhead " << FormatSeconds(overhead) << "\n";
  if (MutationScore(report) >= 0) {
    size_t killed = static_cast<size_t>(counts["killed"]),
           survived = static_cast<size_t>(counts["survived"]);
    out << "mutation score = killed / (killed + survived) = " << killed << " / "
        << killed + survived << " = " << Percent(MutationScore(report)) << "\n";
  }
  if (report.shard_count > 1)
    out << "shard " << report.shard_index << "/" << report.shard_count << "\n";
  if (!report.merged_from.empty())
    out << "merged from " << report.merged_from.size() << " shard reports\n";
}

std::string MutateReportJson(const MutateReport& report) {
  Json doc = {{"schema_version", 1},
              {"tool", "proofgate"},
              {"verb", "mutate"},
              {"tree_hash", report.tree_hash.empty() ? Json(nullptr) : Json(report.tree_hash)},
              {"shard", {{"index", report.shard_index}, {"count", report.shard_count}}},
              {"results", Json::array()}};
  for (const MutantResult& r : report.results) {
    doc["results"].push_back(
        {{"id", r.id},
         {"catalog", r.catalog},
         {"combo", r.combo},
         {"files", r.files},
         {"mutation", r.change},
         {"tests", r.tests},
         {"outcome", std::string(MutantOutcomeName(r.outcome))},
         {"as_claimed", IsAsClaimed(r)},
         {"expected_outcome", r.expected_outcome.empty() ? "red-as-claimed" : r.expected_outcome},
         {"detail", r.detail},
         {"observed", r.observed},
         {"build_s", r.build_s},
         {"test_s", r.test_s},
         {"overhead_s", Overhead(r)},
         {"total_s", r.total_s},
         {"worker", r.worker},
         {"logs", r.log_dir},
         {"restore_build_s", r.restore_build_s}});
    if (r.generated) {
      doc["results"].back()["schema"] = r.schema;
      const MutantResult::Generated& g = *r.generated;
      doc["results"].back()["generated"] = {
          {"file", g.file},   {"line", g.line},         {"column", g.column},
          {"operator", g.op}, {"original", g.original}, {"replacement", g.replacement},
          {"diff", g.diff},   {"tests", g.tests}};
    }
  }
  if (MutationScore(report) >= 0) doc["mutation_score"] = MutationScore(report);
  doc["baseline_problem"] = report.baseline_problem;
  doc["baseline_build_s"] = report.baseline_build_s;
  doc["interrupted"] = report.interrupted;
  doc["recovered"] = Json::array();
  for (const Recovered& r : report.recovered) doc["recovered"].push_back(r.path);
  if (!report.error.empty()) doc["error"] = report.error;
  doc["exit_code"] = MutateExitCode(report);
  if (!report.merged_from.empty()) doc["merged_from"] = report.merged_from;
  return JsonText(doc, 2) + "\n";
}

std::string MutateReportJunit(const MutateReport& report) {
  std::ostringstream out;
  size_t failures = 0;
  for (const MutantResult& r : report.results) failures += IsAsClaimed(r) ? 0 : 1;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite "
         "name=\"mutations\" tests=\""
      << report.results.size() << "\" failures=\"" << failures << "\">\n";
  for (const MutantResult& r : report.results) {
    out << "    <testcase classname=\"mutations." << XmlText(r.catalog) << "\" name=\""
        << XmlText(r.id) << "\" time=\"" << r.total_s << "\">\n";
    if (!IsAsClaimed(r)) {
      out << "      <failure message=\""
          << XmlText(std::string(MutantOutcomeName(r.outcome)) + ": " + Note(r)) << "\"/>\n";
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

std::string MutateReportMarkdown(const MutateReport& report) {
  std::map<std::string, int> counts;
  for (const MutantResult& r : report.results) ++counts[std::string(MutantOutcomeName(r.outcome))];
  std::string tally;
  for (const auto& [name, n] : counts)
    tally += (tally.empty() ? "" : ", ") + std::to_string(n) + " " + name;
  std::ostringstream out;
  out << "## proofgate mutate: " << ExitCodeName(static_cast<ExitCode>(MutateExitCode(report)))
      << "\n\n"
      << report.results.size() << " mutants" << (tally.empty() ? "" : ": " + tally) << "\n";
  if (MutationScore(report) >= 0)
    out << "\nMutation score (killed / (killed + survived)): " << Percent(MutationScore(report))
        << "\n";
  if (!report.baseline_problem.empty())
    out << "\nBaseline not green: " << Cell(report.baseline_problem) << "\n";
  bool header = false;
  for (const MutantResult& r : report.results) {
    if (IsAsClaimed(r)) continue;
    if (!header) out << "\n| mutant | outcome | change | why |\n|---|---|---|---|\n";
    header = true;
    out << "| " << Cell(r.id) << " | " << MutantOutcomeName(r.outcome) << " | " << Cell(r.change)
        << " | " << Cell(Note(r)) << " |\n";
  }
  for (const MutantResult& r : report.results) {
    if (!r.generated || r.outcome != MutantOutcome::kSurvived) continue;
    out << "\n<details><summary>" << XmlText(r.id) << " survived</summary>\n\n```diff\n"
        << r.generated->diff << "```\n</details>\n";
  }
  return out.str();
}

std::string MutateReportSarif(const MutateReport& report) {
  Json rule = {
      {"id", "surviving-mutant"},
      {"shortDescription",
       {{"text", "A mutant of this code that every test reaching it lets live"}}},
      {"helpUri", "https://github.com/proofgate/proofgate/blob/main/specs/mutate-generate.md"}};
  Json results = Json::array();
  for (const MutantResult& r : report.results) {
    if (!r.generated || r.outcome != MutantOutcome::kSurvived) continue;
    const MutantResult::Generated& g = *r.generated;
    int end_column =
        g.column +
        static_cast<int>(g.original.find('\n') == std::string::npos ? g.original.size() : 1);
    Json region = {{"startLine", g.line}, {"startColumn", g.column}, {"endColumn", end_column}};
    std::string text =
        g.op + ": " + r.change + " survived " + std::to_string(g.tests.size()) + " test(s)";
    results.push_back(
        {{"ruleId", "surviving-mutant"},
         {"level", "warning"},
         {"message", {{"text", text}}},
         {"locations",
          {{{"physicalLocation", {{"artifactLocation", {{"uri", g.file}}}, {"region", region}}}}}},
         {"partialFingerprints", {{"proofgateMutantId/v1", r.id}}}});
  }
  Json doc = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs",
               {{{"tool", {{"driver", {{"name", "proofgate"}, {"rules", {rule}}}}}},
                 {"results", results}}}}};
  return JsonText(doc, 2) + "\n";
}

namespace {

// The rows the table had, by id (its first cell): kept for mutants this run did not select.
std::map<std::string, std::string> OldRows(const std::string& table) {
  std::map<std::string, std::string> rows;
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| ", 0) != 0) continue;
    std::string id = line.substr(
        2, line.find(" |", 2) -
               2);  // proofgate: no-mutate (an id has a character: its " |" is at 3 or later)
    if (id != "id" && id.find("---") == std::string::npos) rows[id] = line;
  }
  return rows;
}

// A row for a mutant that has not run: what it is, no outcome.
std::map<std::string, std::string> NotRunRows(const Catalog& catalog) {
  std::map<std::string, std::string> rows;
  std::vector<Catalog> one = {catalog};
  auto jobs = SelectJobs(one, {}, 0, 1);
  for (const MutantJob& job : jobs.ok() ? *jobs : std::vector<MutantJob>{}) {
    MutantResult r;
    r.id = job.id;
    r.combo = job.combo;
    DescribeJob(job, &r);
    rows[job.id] = Row(r, "not run yet");
  }
  return rows;
}

std::vector<std::string> CatalogIds(const Catalog& c) {
  std::vector<std::string> ids;
  for (const Mutation& m : c.mutations) ids.push_back(m.id);
  for (const Combo& combo : c.combos) ids.push_back(combo.id);
  return ids;
}

}  // namespace

std::string TableVerifiedAt(const std::string& spec_text) {
  size_t begin = 0, end = 0;
  if (!FindMutationTable(spec_text, &begin, &end)) return "";
  std::istringstream table(spec_text.substr(begin, end - begin));
  for (std::string line; std::getline(table, line);) {
    size_t at = line.find(kVerifiedAt);
    if (line.rfind("<!-- generated by proofgate mutate", 0) != 0 || at == std::string::npos)
      continue;
    std::string commit = line.substr(at + kVerifiedAt.size(), 40);
    bool hex =
        commit.size() == 40 && commit.find_first_not_of("0123456789abcdef") == std::string::npos;
    return hex ? commit : "";
  }
  return "";
}

StatusOr<std::string> UpdateSpecTable(const std::string& spec_path, const std::string& spec_text,
                                      const Catalog& catalog, const MutateReport& report,
                                      const std::string& verified_at) {
  size_t begin = 0, end = 0;
  if (!FindMutationTable(spec_text, &begin, &end)) {
    return Status::Invalid(spec_path + ": no " + std::string(kMutationTableBegin) + " ... " +
                           std::string(kMutationTableEnd) + " markers");
  }
  std::map<std::string, std::string> old = OldRows(spec_text.substr(begin, end - begin));
  std::map<std::string, const MutantResult*> now;
  for (const MutantResult& r : report.results) {
    if (r.catalog == catalog.path) now[r.id] = &r;
  }
  std::string table = "\n<!-- generated by proofgate mutate from " + catalog.path +
                      (verified_at.empty() ? "" : ";" + std::string(kVerifiedAt) + verified_at) +
                      "; do not edit -->\n"
                      "| id | file | mutation | expected test | outcome | observed message |\n"
                      "|---|---|---|---|---|---|\n";
  std::map<std::string, std::string> not_run = NotRunRows(catalog);
  for (const std::string& id : CatalogIds(catalog)) {
    if (now.count(id))
      table += Row(*now[id], std::string(MutantOutcomeName(now[id]->outcome))) + "\n";
    else if (old.count(id))
      table += old[id] + "\n";
    else
      table += not_run[id] + "\n";
  }
  return spec_text.substr(0, begin) + table + spec_text.substr(end);
}

double MutationScore(const MutateReport& report) {
  double killed = 0, survived = 0;
  for (const MutantResult& r : report.results) {
    if (!r.generated) continue;
    killed += r.outcome == MutantOutcome::kKilled ? 1 : 0;
    survived += r.outcome == MutantOutcome::kSurvived ? 1 : 0;
  }
  return killed + survived == 0 ? -1 : killed / (killed + survived);
}

ResultClass ClassOf(const MutantResult& r) {
  if (IsAsClaimed(r)) return ResultClass::kPass;
  return r.outcome == MutantOutcome::kTimeout ? ResultClass::kTimeout : ResultClass::kFail;
}

int MutateExitCode(const MutateReport& report) {
  if (!report.error.empty()) return report.error_exit_code;
  std::vector<ResultClass> results;
  if (!report.baseline_problem.empty()) results.push_back(ResultClass::kFail);
  for (const MutantResult& r : report.results) results.push_back(ClassOf(r));
  return static_cast<int>(RunExitCode(results, report.interrupted));
}

}  // namespace pg
