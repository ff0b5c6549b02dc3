#include "runner/fixers.h"

#include <algorithm>

namespace pg {

void OneFixerAtATime(std::vector<Leg>* legs) {
  for (Leg& leg : *legs) {
    if (leg.stage_fixed) leg.locks.push_back(kFixersLock);
  }
}

std::vector<const Leg*> FixerPass(const std::vector<const Leg*>& legs) {
  std::set<std::string> wanted;
  for (auto it = legs.rbegin(); it != legs.rend(); ++it) {  // a leg's needs come before it
    if (!(*it)->stage_fixed && !wanted.count((*it)->name)) continue;
    wanted.insert((*it)->name);
    wanted.insert((*it)->needs.begin(), (*it)->needs.end());
  }
  std::vector<const Leg*> out;
  for (const Leg* leg : legs) {
    if (wanted.count(leg->name)) out.push_back(leg);
  }
  return out;
}

Fixes SortFixes(const std::vector<TreeChange>& changes, const std::map<std::string, std::vector<std::string>>& fixable,
                const std::map<std::string, LegResult>& results, const std::string& root_prefix,
                const std::set<std::string>& set_aside) {
  Fixes out;
  for (const TreeChange& change : changes) {
    bool fixed = false;
    bool in_root = change.path.compare(0, root_prefix.size(), root_prefix) == 0;
    std::string rel = in_root ? change.path.substr(root_prefix.size()) : "";
    for (const auto& [leg, files] : fixable) {
      auto r = results.find(leg);
      if (!in_root || set_aside.count(change.path) || r == results.end() || r->second.outcome != Outcome::kPass) continue;
      if (!std::binary_search(files.begin(), files.end(), rel)) continue;  // the run's files are sorted
      out.by_leg[leg].push_back(change.path);
      fixed = true;
    }
    if (fixed) out.all.push_back(change.path);
    else out.not_fixes.push_back(change);
  }
  return out;
}

std::string FixNote(const std::vector<std::string>& fixed, bool staged) {
  constexpr size_t kNamed = 5;
  std::string note = "fixed " + std::to_string(fixed.size()) + (fixed.size() == 1 ? " file" : " files") +
                     (staged ? " (staged)" : "") + ": ";
  for (size_t i = 0; i < fixed.size() && i < kNamed; ++i) note += (i ? ", " : "") + fixed[i];
  if (fixed.size() > kNamed) note += " and " + std::to_string(fixed.size() - kNamed) + " more";
  return note;
}

}  // namespace pg
