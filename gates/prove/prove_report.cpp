#include "gates/prove/prove_report.h"

#include <algorithm>
#include <map>

#include "gates/config/json_source.h"
#include "gates/report/writers.h"

namespace pg {
namespace {

std::string InventoryLine(const ProveReport& r) {
  return "tests " + std::to_string(r.base_count) + " → " + std::to_string(r.head_count) + " (+" +
         std::to_string(r.diff.added.size()) + " −" + std::to_string(r.diff.removed.size()) + ", " +
         std::to_string(r.diff.renamed.size()) + " renamed, " +
         std::to_string(r.diff.changed.size()) + " changed)";
}

Json Proofs(const std::vector<TestProof>& proofs) {
  Json list = Json::array();
  for (const TestProof& p : proofs) {
    list.push_back({{"test", p.test},
                    {"base", p.before},
                    {"head", p.after},
                    {"verdict", p.verdict},
                    {"detail", p.detail},
                    {"why", p.why}});
  }
  return list;
}

// A whole ctest test standing for changed test files is named with them.
std::string Named(const ProveReport& r, const std::string& test) {
  auto it = r.whole_tests.find(test);
  if (it == r.whole_tests.end()) return test;
  std::string files;
  for (const std::string& f : it->second) files += (files.empty() ? "" : ", ") + f;
  return test + " (for " + files + ")";
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// " (1 not proven, 1 lost)": what made the proof fail, counted by kind.
std::string FailedBecause(const ProveReport& r) {
  std::map<std::string, size_t> count;
  for (const TestProof& p : r.fail_to_pass) {
    if (p.verdict != "proven") ++count[p.verdict];
  }
  std::vector<std::string> parts;
  for (const auto& [verdict, n] : count) parts.push_back(std::to_string(n) + " " + verdict);
  if (!r.lost.empty()) parts.push_back(std::to_string(r.lost.size()) + " lost");
  if (!r.broken.empty()) parts.push_back(std::to_string(r.broken.size()) + " broken");
  if (!r.nothing_proven.empty()) parts.push_back("nothing proven");
  return parts.empty() ? "" : " (" + Joined(parts) + ")";
}

}  // namespace

std::string ProveSummary(const ProveReport& r) {
  size_t red = 0, green = 0, n = r.fail_to_pass.size();
  for (const TestProof& p : r.fail_to_pass) {
    red += p.before == "fail";
    green += p.after == "pass";
  }
  return "red before " + std::to_string(red) + "/" + std::to_string(n) + ", green after " +
         std::to_string(green) + "/" + std::to_string(n);
}

void WriteProveTable(const ProveReport& r, std::ostream& out) {
  size_t width = 4;
  for (const TestProof& p : r.fail_to_pass) width = std::max(width, Named(r, p.test).size());
  for (const TestProof& p : r.broken) width = std::max(width, p.test.size());
  out << Pad("TEST", width) << "  " << Pad("BASE", 9) << Pad("HEAD", 9) << "VERDICT\n";
  for (const auto* list : {&r.fail_to_pass, &r.broken}) {
    for (const TestProof& p : *list) {
      out << Pad(list == &r.fail_to_pass ? Named(r, p.test) : p.test, width) << "  "
          << Pad(p.before, 9) << Pad(p.after, 9) << p.verdict
          << (p.detail.empty() ? "" : " — " + p.detail) << "\n";
      if (!p.why.empty()) out << "  red before: " << p.why << "\n";
    }
  }
  out << InventoryLine(r) << "; " << r.base_id.substr(0, 12) << " → " << r.head_id.substr(0, 12)
      << "\n";
  for (const auto& [from, to] : r.diff.renamed) out << "renamed: " << from << " → " << to << "\n";
  for (const std::string& t : r.diff.removed) {
    bool lost = std::find(r.lost.begin(), r.lost.end(), t) != r.lost.end();
    out << "removed: " << t
        << (lost ? "  LOST (no \"Test-Removed: " + t + " — <reason>\" trailer)"
                 : "  (Test-Removed trailer)")
        << "\n";
  }
  if (!r.unviable.empty())
    out << "the base tree with HEAD's tests does not build: " << r.unviable << "\n";
  if (!r.unaccounted.empty()) {
    out << "unaccounted: " << Joined(r.unaccounted)
        << " (changed test files that define no listed case and build no ctest test)\n";
  }
  if (!r.nothing_proven.empty()) {
    out << "nothing proven: " << r.nothing_proven
        << (r.allow_empty ? " (--allow-empty)" : "; --allow-empty accepts that") << "\n";
  }
  out << ProveSummary(r) << "; pass-to-pass " << (r.pass_to_pass_checked - r.broken.size()) << "/"
      << r.pass_to_pass_checked << "\nprove: "
      << (r.interrupted ? "interrupted"
          : r.ok()      ? "pass"
                        : "fail" + FailedBecause(r))
      << "\n";
}

std::string ProveReportJson(const ProveReport& r) {
  Json renamed = Json::array();
  for (const auto& [from, to] : r.diff.renamed) renamed.push_back({{"from", from}, {"to", to}});
  Json doc = {{"schema_version", 1},
              {"base", r.base_id},
              {"head", r.head_id},
              {"ok", r.ok()},
              {"tests", {{"base", r.base_count}, {"head", r.head_count}}},
              {"added", r.diff.added},
              {"removed", r.diff.removed},
              {"changed", r.diff.changed},
              {"renamed", renamed},
              {"lost", r.lost},
              {"fail_to_pass", Proofs(r.fail_to_pass)},
              {"summary", ProveSummary(r)},
              {"pass_to_pass", {{"checked", r.pass_to_pass_checked}, {"broken", Proofs(r.broken)}}},
              {"unviable", r.unviable},
              {"interrupted", r.interrupted},
              {"test_globs", r.test_globs},
              {"nothing_proven", r.nothing_proven},
              {"allow_empty", r.allow_empty},
              {"whole_tests", r.whole_tests},
              {"unaccounted", r.unaccounted}};
  return doc.dump(2) + "\n";
}

}  // namespace pg
