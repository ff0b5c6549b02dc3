#include "gates/prove/prove_html.h"

#include <algorithm>

#include "gates/prove/prove_report.h"
#include "gates/report/html_page.h"

namespace pg {
namespace {

std::vector<std::vector<std::string>> Rows(const std::vector<TestProof>& proofs) {
  std::vector<std::vector<std::string>> rows;
  for (const TestProof& p : proofs) {
    rows.push_back({p.verdict == "proven" ? "ok" : "bad", "<code>" + HtmlText(p.test) + "</code>",
                    HtmlBadge(p.before), HtmlBadge(p.after), HtmlBadge(p.verdict),
                    HtmlText(p.detail) + (p.why.empty() ? ""
                                                        : (p.detail.empty() ? "" : "<br>") +
                                                              ("red before: " + HtmlText(p.why)))});
  }
  return rows;
}

std::string List(const std::vector<std::string>& items) {
  std::string out = "<ul>";
  for (const std::string& item : items) out += "<li><code>" + HtmlText(item) + "</code></li>";
  return out + "</ul>\n";
}

}  // namespace

std::string ProveReportHtml(const ProveReport& r) {
  ExitCode verdict = r.Verdict();
  std::string body = "<p>" + HtmlBadge(ExitCodeName(verdict)) + " exit " +
                     std::to_string(static_cast<int>(verdict)) + ": " + HtmlText(ProveSummary(r)) +
                     ", pass-to-pass " + std::to_string(r.pass_to_pass_checked - r.broken.size()) +
                     "/" + std::to_string(r.pass_to_pass_checked) + "</p>\n";
  std::string globs;
  for (const std::string& g : r.test_globs) globs += (globs.empty() ? "" : " ") + g;
  std::vector<std::pair<std::string, std::string>> facts = {
      {"base", "<code>" + HtmlText(r.base_id) + "</code>"},
      {"head", "<code>" + HtmlText(r.head_id) + "</code>"},
      {"tests", std::to_string(r.base_count) + " → " + std::to_string(r.head_count)},
      {"test files", "<code>" + HtmlText(globs) + "</code>"}};
  if (!r.unviable.empty()) facts.push_back({"unviable", HtmlText(r.unviable)});
  if (!r.nothing_proven.empty()) facts.push_back({"nothing proven", HtmlText(r.nothing_proven)});
  if (r.interrupted) facts.push_back({"interrupted", "yes"});
  body += HtmlFacts(facts);
  const std::vector<std::string> header = {"test", "before (base)", "after (head)", "verdict",
                                           "detail"};
  body += "<h2>Red before, green after</h2>\n" + HtmlTable(header, Rows(r.fail_to_pass));
  if (!r.broken.empty())
    body += "<h2>Broken (passed on the base)</h2>\n" + HtmlTable(header, Rows(r.broken));
  if (!r.lost.empty())
    body += "<h2>Lost (removed with no Test-Removed trailer)</h2>\n" + List(r.lost);
  if (!r.diff.added.empty()) body += "<h2>Added</h2>\n" + List(r.diff.added);
  if (!r.diff.changed.empty()) body += "<h2>Changed</h2>\n" + List(r.diff.changed);
  std::vector<std::string> renamed;
  for (const auto& [from, to] : r.diff.renamed) renamed.push_back(from + " → " + to);
  if (!renamed.empty()) body += "<h2>Renamed</h2>\n" + List(renamed);
  std::vector<std::string> whole;
  for (const auto& [test, files] : r.whole_tests) {
    std::string names;
    for (const std::string& f : files) names += (names.empty() ? "" : ", ") + f;
    whole.push_back(test + " (for " + names + ")");
  }
  if (!whole.empty()) body += "<h2>Whole tests standing for changed files</h2>\n" + List(whole);
  if (!r.unaccounted.empty())
    body +=
        "<h2>Unaccounted (changed test files no test accounts for)</h2>\n" + List(r.unaccounted);
  std::string cls = verdict == ExitCode::kPass ? "ok" : "bad";
  return HtmlDocument("proofgate prove: " + std::string(ExitCodeName(verdict)), cls, body);
}

}  // namespace pg
