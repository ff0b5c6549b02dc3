#include "gates/prove/inventory.h"

#include <algorithm>

#include "gates/git/git.h"
#include "gates/mutate/test_map.h"

namespace pg {
namespace {

// "Suite.Name — reason" → the name, when a reason follows.
std::string RemovedName(const std::string& value) {
  for (const char* sep : {" — ", " - ", ": "}) {
    size_t at = value.find(sep);
    if (at == std::string::npos) continue;
    std::string reason = value.substr(at + std::string(sep).size());
    if (reason.find_first_not_of(" \t") == std::string::npos) return "";
    std::string name = value.substr(0, at);
    return name.substr(0, name.find_last_not_of(" \t") + 1);
  }
  return "";
}

}  // namespace

const std::string* BodyOf(const Inventory& inv, const std::string& test) {
  auto it = inv.bodies.find(test);
  if (it == inv.bodies.end() && test.ends_with("]") && test.find('[') != std::string::npos) {
    it = inv.bodies.find(test.substr(0, test.find('[')));
  }
  return it == inv.bodies.end() ? nullptr : &it->second;
}

std::vector<std::string> ChangedTestFiles(const Inventory& base, const Inventory& head) {
  std::set<std::string> moved;  // the bytes of base files that are gone from head's paths
  for (const auto& [rel, file] : base.files) {
    if (!head.files.count(rel)) moved.insert(file.hash);
  }
  std::vector<std::string> out;
  for (const auto& [rel, file] : head.files) {
    auto old = base.files.find(rel);
    bool same =
        old != base.files.end() ? old->second.hash == file.hash : moved.count(file.hash) > 0;
    if (!same) out.push_back(rel);
  }
  return out;
}

InventoryDiff DiffInventories(const Inventory& base, const Inventory& head) {
  InventoryDiff d;
  std::vector<std::string> added, removed;
  for (const std::string& t : head.tests) {
    if (!base.tests.count(t)) added.push_back(t);
  }
  for (const std::string& t : base.tests) {
    if (!head.tests.count(t)) removed.push_back(t);
  }
  std::set<std::string> paired;
  for (const std::string& gone : removed) {
    const std::string* old_body = BodyOf(base, gone);
    auto match = std::find_if(added.begin(), added.end(), [&](const std::string& a) {
      const std::string* b = BodyOf(head, a);
      return !paired.count(a) && old_body && b && *b == *old_body;
    });
    if (match == added.end()) {
      d.removed.push_back(gone);
      continue;
    }
    d.renamed.emplace_back(gone, *match);
    paired.insert(*match);
  }
  for (const std::string& a : added) {
    if (!paired.count(a)) d.added.push_back(a);
  }
  for (const std::string& t : head.tests) {
    const std::string *b = BodyOf(base, t), *h = BodyOf(head, t);
    if (base.tests.count(t) && b && h && *b != *h) d.changed.push_back(t);
  }
  return d;
}

StatusOr<std::vector<std::string>> ParseCtestListing(const std::string& json) {
  PG_ASSIGN_OR_RETURN(std::vector<CtestTest> tests, ParseCtestTests(json));
  std::vector<std::string> names;
  for (const CtestTest& t : tests) names.push_back(t.name);
  return names;
}

std::vector<std::string> ListedTestNames(const std::string& listing) {
  std::vector<std::string> lines, nodes;
  size_t start = 0;
  while (start < listing.size()) {
    size_t end = listing.find('\n', start);
    if (end == std::string::npos) end = listing.size();
    std::string line = listing.substr(start, end - start);
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    lines.push_back(line);
    size_t sep = line.find("::");
    if (sep == std::string::npos) continue;
    std::string file = line.substr(0, sep), rest = line.substr(sep + 2);
    if (file.size() > 3 && file.compare(file.size() - 3, 3, ".py") == 0)
      file.resize(file.size() - 3);
    std::replace(file.begin(), file.end(), '/', '.');
    size_t params = rest.find('[');  // a parametrised id's brackets are kept as they are ("[p::q]")
    for (size_t at = rest.find("::"); at != std::string::npos && at < params;
         at = rest.find("::", at)) {
      rest.replace(at, 2, ".");
      if (params != std::string::npos) --params;
    }
    nodes.push_back(file + "." + rest);
  }
  return nodes.empty() ? lines : nodes;
}

std::vector<std::string> LostTests(const std::vector<std::string>& removed,
                                   const std::vector<std::string>& messages) {
  std::set<std::string> explained;
  for (const std::string& m : messages) {
    for (const git::Trailer& t : git::MessageTrailers(m)) {
      if (t.key == "Test-Removed") explained.insert(RemovedName(t.value));
    }
  }
  std::vector<std::string> lost;
  for (const std::string& t : removed) {
    if (!explained.count(t)) lost.push_back(t);
  }
  return lost;
}

}  // namespace pg
