#include "mutations/schema_search.h"

#include <algorithm>
#include <sstream>

namespace pg {

SchemaSearch::SchemaSearch(const std::vector<Schema>& schemata) {
  for (const Schema& s : schemata) {
    for (const SchemaPoint& p : s.points) {
      if (p.kind == SchemaKind::kBody || p.kind == SchemaKind::kVoidBody || p.kind == SchemaKind::kCall) late_.insert(p.number);
    }
  }
}

std::set<int> SchemaSearch::Off() const {
  std::set<int> off = dropped_;
  for (const auto& [file, h] : halving_) off.insert(h.points.begin() + static_cast<long>(h.Probe()), h.points.end());
  return off;
}

bool SchemaSearch::Learn(const std::string& log, const std::map<std::string, SchemaText>& built) {
  size_t before = dropped_.size();
  std::set<std::string> unexplained;
  for (const auto& [file, rendered] : built) {
    SchemaBlame blame = PointsBlamed(log, file, rendered.text);
    size_t had = dropped_.size();
    dropped_.insert(blame.points.begin(), blame.points.end());
    // Errors outside every point may be what a point the log blames caused (a type it left
    // undefined): they are halved only if they outlive that point, in the next build.
    bool fresh = dropped_.size() > had && !halving_.count(file);
    if (blame.unexplained && !fresh) unexplained.insert(file);
  }
  // A halved file this build left without its points (all dropped) had no error of its own.
  std::vector<std::string> halved;
  for (auto& [file, h] : halving_) {
    (unexplained.count(file) ? h.failing : h.clean) = h.Probe();
    ++files_[file].spent;
    halved.push_back(file);
  }
  for (const std::string& file : halved) Settle(file);
  for (const std::string& file : unexplained) {
    if (std::find(halved.begin(), halved.end(), file) == halved.end()) Start(file, built.at(file).numbers);
  }
  return !halved.empty() || !unexplained.empty() || dropped_.size() > before;
}

bool SchemaSearch::LearnBuild(const std::string& log, bool ok, bool probe, const std::map<std::string, SchemaText>& built) {
  std::string text = ok ? "" : log;
  std::vector<std::string> outputs = NinjaFailedOutputs(text);
  if (probe && !ok && outputs.empty()) {
    probes_.clear();
    return true;
  }
  if (!probe) probes_ = std::move(outputs);
  return Learn(text, built);
}

// The file's points failed together: halve them, past the prefix its last halving found
// clean (the cause it found is gone, the rest is as it was), unless its budget is spent: then
// it loses its schema, as a file whose errors nothing explains.
void SchemaSearch::Start(const std::string& file, const std::set<int>& points) {
  std::vector<int> in;
  for (int n : points) {
    if (!dropped_.count(n)) in.push_back(n);
  }
  if (in.empty()) return;
  std::stable_partition(in.begin(), in.end(), [&](int n) { return !late_.count(n); });
  FileState& state = files_[file];
  if (state.points == 0) state.points = in.size();
  if (state.spent >= Budget(state.points)) {
    dropped_.insert(in.begin(), in.end());
    return;
  }
  size_t clean = 0;
  while (clean < in.size() && state.clean.count(in[clean])) ++clean;
  halving_[file] = Halving{in, clean == in.size() ? 0 : clean, in.size()};
  Settle(file);
}

// The cause is the last point of the shortest failing prefix, once the clean one is just
// shorter.
void SchemaSearch::Settle(const std::string& file) {
  auto it = halving_.find(file);
  Halving& h = it->second;
  FileState& state = files_[file];
  if (h.failing - h.clean <= 1) {
    dropped_.insert(h.points[h.failing - 1]);
    state.clean = std::set<int>(h.points.begin(), h.points.begin() + static_cast<long>(h.clean));
    ++found_;
  } else {
    return;  // a halving under way ends: about log2(points) builds
  }
  halving_.erase(it);
}

std::vector<std::string> NinjaFailedOutputs(const std::string& log) {
  std::vector<std::string> outputs;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("FAILED: ")) continue;
    std::istringstream words(line.substr(8));
    for (std::string word; words >> word;) {
      bool code = word.starts_with("[code=") && word.ends_with("]");
      if (!code && std::find(outputs.begin(), outputs.end(), word) == outputs.end()) outputs.push_back(word);
    }
  }
  return outputs;
}

}  // namespace pg
