#include "gates/mutate/mutate_html.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "gates/mutate/mutate_report.h"
#include "gates/report/html_page.h"
#include "gates/report/writers.h"

namespace pg {
namespace {

std::string Place(const MutantResult& r) {
  if (!r.generated) return HtmlText(r.files);
  return HtmlText(r.generated->file + ":" + std::to_string(r.generated->line) + ":" +
                  std::to_string(r.generated->column));
}

std::string Why(const MutantResult& r) {
  std::string why = r.observed.empty() ? r.detail : r.observed;
  return HtmlText(why.size() > 300 ? why.substr(0, 300) + "…" : why);
}

std::vector<std::string> Row(const MutantResult& r) {
  std::string tests =
      r.generated ? std::to_string(r.generated->tests.size()) + " test(s)" : r.tests;
  return {IsAsClaimed(r) ? "ok" : "bad",
          "<a href=\"#m-" + HtmlText(r.id) + "\">" + HtmlText(r.id) + "</a>",
          Place(r),
          "<code>" + HtmlText(r.change) + "</code>",
          HtmlText(tests),
          HtmlBadge(MutantOutcomeName(r.outcome)),
          Why(r),
          FormatSeconds(r.total_s)};
}

std::string Details(const MutantResult& r) {
  std::vector<std::pair<std::string, std::string>> facts = {
      {"catalog", HtmlText(r.catalog)},
      {"where", Place(r)},
      {"change", "<code>" + HtmlText(r.change) + "</code>"},
      {"build / test", FormatSeconds(r.build_s) + (r.schema ? " (schemata's build)" : "") + " / " +
                           FormatSeconds(r.test_s)}};
  if (!r.expected_outcome.empty()) facts.push_back({"claimed", HtmlText(r.expected_outcome)});
  if (!r.detail.empty()) facts.push_back({"detail", HtmlText(r.detail)});
  if (!r.observed.empty()) facts.push_back({"observed", HtmlText(r.observed)});
  if (!r.log_dir.empty()) facts.push_back({"logs", "<code>" + HtmlText(r.log_dir) + "</code>"});
  std::string content = HtmlFacts(facts);
  if (r.generated) {
    std::string tests;
    for (const std::string& t : r.generated->tests) tests += (tests.empty() ? "" : "\n") + t;
    content += "<p>Diff:</p>" + HtmlPre(r.generated->diff) + "<p>Tests that ran:</p>" +
               HtmlPre(tests.empty() ? "(every test)" : tests);
  } else if (!r.tests.empty()) {
    content += "<p>Expected to redden: <code>" + HtmlText(r.tests) + "</code></p>\n";
  }
  std::string summary =
      "<b>" + HtmlText(r.id) + "</b> " + HtmlBadge(MutantOutcomeName(r.outcome)) + " " + Place(r);
  return HtmlDetails(summary, content, IsAsClaimed(r), "m-" + r.id);
}

}  // namespace

std::string MutateReportHtml(const MutateReport& report) {
  ExitCode verdict = static_cast<ExitCode>(MutateExitCode(report));
  std::map<std::string, int> counts;
  for (const MutantResult& r : report.results) ++counts[std::string(MutantOutcomeName(r.outcome))];
  std::string tally;
  for (const auto& [name, n] : counts)
    tally += (tally.empty() ? "" : ", ") + std::to_string(n) + " " + name;
  std::string body = "<p>" + HtmlBadge(ExitCodeName(verdict)) + " exit " +
                     std::to_string(static_cast<int>(verdict)) + ", " +
                     std::to_string(report.results.size()) + " mutants" +
                     (tally.empty() ? "" : ": " + HtmlText(tally)) + "</p>\n";
  std::vector<std::pair<std::string, std::string>> facts = {
      {"tree", "<code>" +
                   HtmlText(report.tree_hash.empty() ? "(not a git tree)" : report.tree_hash) +
                   "</code>"},
      {"baseline build", FormatSeconds(report.baseline_build_s)}};
  double score = MutationScore(report);
  if (score >= 0)
    facts.push_back({"mutation score", std::to_string(static_cast<int>(std::lround(score * 100))) +
                                           "% (killed / (killed + survived))"});
  if (report.shard_count > 1)
    facts.push_back({"shard", std::to_string(report.shard_index) + " of " +
                                  std::to_string(report.shard_count)});
  std::string from;
  for (const std::string& f : report.merged_from) from += (from.empty() ? "" : ", ") + f;
  if (!from.empty()) facts.push_back({"merged from", HtmlText(from)});
  if (!report.baseline_problem.empty())
    facts.push_back({"baseline not green", HtmlText(report.baseline_problem)});
  if (report.interrupted) facts.push_back({"interrupted", "yes"});
  body += HtmlFacts(facts);
  // Rows not as claimed first: they are what the reader came for.
  std::vector<const MutantResult*> order;
  for (const MutantResult& r : report.results) order.push_back(&r);
  std::stable_partition(order.begin(), order.end(),
                        [](const MutantResult* r) { return !IsAsClaimed(*r); });
  std::vector<std::vector<std::string>> rows;
  for (const MutantResult* r : order) rows.push_back(Row(*r));
  body += "<h2>Mutants</h2>\n" +
          HtmlTable({"id", "where", "change", "tests", "outcome", "observed / why", "time"}, rows);
  body += "<h2>Details</h2>\n";
  for (const MutantResult* r : order) body += Details(*r);
  std::string cls = verdict == ExitCode::kPass ? "ok" : "bad";
  return HtmlDocument("proofgate mutate: " + std::string(ExitCodeName(verdict)), cls, body);
}

}  // namespace pg
