#include "mutations/schema_search.h"

#include <algorithm>

namespace pg {

std::set<int> SchemaSearch::Off() const {
  std::set<int> off = dropped_;
  for (const auto& [file, h] : halving_) off.insert(h.points.begin() + static_cast<long>(h.Probe()), h.points.end());
  return off;
}

bool SchemaSearch::Learn(const std::string& log, const std::map<std::string, SchemaText>& built, int round) {
  size_t before = dropped_.size();
  std::set<std::string> unexplained;
  for (const auto& [file, rendered] : built) {
    SchemaBlame blame = PointsBlamed(log, file, rendered.text);
    dropped_.insert(blame.points.begin(), blame.points.end());
    if (blame.unexplained) unexplained.insert(file);
  }
  // A halved file this build left without its points (all dropped) had no error of its own.
  std::vector<std::string> halved;
  for (auto& [file, h] : halving_) {
    (unexplained.count(file) ? h.failing : h.clean) = h.Probe();
    halved.push_back(file);
  }
  for (const std::string& file : halved) Settle(file, round);
  for (const std::string& file : unexplained) {
    if (std::find(halved.begin(), halved.end(), file) == halved.end()) Start(file, built.at(file).numbers, round);
  }
  return !halved.empty() || !unexplained.empty() || dropped_.size() > before;
}

// The whole file's points failed: halve them, unless it is too late or the file has had its
// share of causes (then it loses its schema, as a file whose errors nothing explains).
void SchemaSearch::Start(const std::string& file, const std::set<int>& points, int round) {
  std::vector<int> in;
  for (int n : points) {
    if (!dropped_.count(n)) in.push_back(n);
  }
  if (in.empty()) return;
  if (round + 1 >= kHalvingRounds || causes_[file] >= kCausesPerFile) {
    dropped_.insert(in.begin(), in.end());
    return;
  }
  halving_[file] = Halving{in, 0, in.size()};
  Settle(file, round);
}

// The cause is the last point of the shortest failing prefix, once the clean one is just
// shorter; past the halving rounds the file loses what is left of its schema.
void SchemaSearch::Settle(const std::string& file, int round) {
  auto it = halving_.find(file);
  Halving& h = it->second;
  if (h.failing - h.clean <= 1) {
    dropped_.insert(h.points[h.failing - 1]);
    ++causes_[file];
    ++found_;
  } else if (round + 1 >= kHalvingRounds) {
    dropped_.insert(h.points.begin(), h.points.end());
  } else {
    return;
  }
  halving_.erase(it);
}

}  // namespace pg
