#include "gates/mutate/table_commit.h"

#include <algorithm>

#include "gates/core/file_io.h"
#include "gates/git/git.h"
#include "gates/mutate/mutate_report.h"

namespace pg {

Verification VerificationOf(const std::string& root, const std::set<std::string>& aside,
                            bool rest_unaffected) {
  Verification v;
  auto head = git::ResolveCommit(root, "HEAD");
  auto dirty = git::Dirty(root);
  if (!head.ok() || !dirty.ok()) return v;
  v.head = *head;
  for (const std::string& f : *dirty) {
    if (!aside.count(f)) v.dirty.push_back(f);
  }
  v.rest_unaffected = rest_unaffected;
  return v;
}

std::string NextTableCommit(const Catalog& c, const std::string& old, const MutateReport& report,
                            const Verification& v) {
  std::set<std::string> ran;
  for (const MutantResult& r : report.results) {
    if (r.catalog != c.path) continue;
    if (!IsAsClaimed(r)) return "";
    ran.insert(r.id);
  }
  std::vector<Catalog> one = {c};
  auto jobs = SelectJobs(one, {}, 0, 1);
  bool all_ran = jobs.ok() && std::all_of(jobs->begin(), jobs->end(),
                                          [&](const MutantJob& j) { return ran.count(j.id) > 0; });
  // Rows that did not run held at `old` and nothing since could change them: they hold at HEAD.
  bool holds = all_ran || (v.rest_unaffected && !old.empty());
  return holds && v.dirty.empty() && !v.head.empty() ? v.head : old;
}

std::string TableBase(const std::string& root, const Catalog& c, const std::string& head,
                      std::string* why) {
  auto text =
      c.spec.empty() ? StatusOr<std::string>(Status::Invalid("")) : ReadFile(root + "/" + c.spec);
  std::string base = text.ok() ? TableVerifiedAt(*text) : "";
  if (base.empty()) {
    *why = c.spec.empty() ? "it names no spec table"
                          : "its table (" + c.spec + ") records no verified commit";
    return "";
  }
  auto ancestor = git::IsAncestor(root, base, head);
  if (!ancestor.ok() || !*ancestor)
    *why = "its table's commit " + base.substr(0, 12) + " is not in HEAD's history";
  return ancestor.ok() && *ancestor ? base : "";
}

}  // namespace pg
