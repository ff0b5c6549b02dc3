#include "gates/mutate/schema_search.h"

#include <algorithm>
#include <sstream>

namespace pg {

SchemaSearch::SchemaSearch(const std::vector<Schema>& schemata) {
  for (const Schema& s : schemata) {
    for (const SchemaPoint& p : s.points) {
      if (p.kind == SchemaKind::kBody || p.kind == SchemaKind::kVoidBody ||
          p.kind == SchemaKind::kCall)
        late_.insert(p.number);
    }
  }
}

std::set<int> SchemaSearch::Off() const {
  std::set<int> off = dropped_;
  for (const auto& [file, h] : halving_)
    off.insert(h.points.begin() + static_cast<long>(h.Probe()), h.points.end());
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
    if (std::find(halved.begin(), halved.end(), file) == halved.end())
      Start(file, built.at(file).numbers);
  }
  return !halved.empty() || !unexplained.empty() || dropped_.size() > before;
}

bool SchemaSearch::LearnBuild(const std::string& log, bool ok, bool probe,
                              const std::map<std::string, SchemaText>& built) {
  std::string text = ok ? "" : log;
  std::vector<std::string> outputs = NinjaFailedOutputs(text);
  if (probe && !ok && outputs.empty()) {
    probes_.clear();
    return true;
  }
  bool learned = Learn(text, built);
  if (!probe) probes_ = ProbeOutputs(text, built, std::move(outputs));
  return learned;
}

// For each file being halved, the first failed output whose part of the log holds that
// file's error outside every point; all of `outputs` when a halved file has none there.
std::vector<std::string> SchemaSearch::ProbeOutputs(const std::string& log,
                                                    const std::map<std::string, SchemaText>& built,
                                                    std::vector<std::string> outputs) const {
  std::vector<NinjaFailure> failures = NinjaFailures(log);
  std::vector<std::string> narrowed;
  for (const auto& [file, h] : halving_) {
    auto it = built.find(file);
    auto failure = it == built.end()
                       ? failures.end()
                       : std::find_if(failures.begin(), failures.end(), [&](const NinjaFailure& f) {
                           return PointsBlamed(f.log, file, it->second.text).unexplained;
                         });
    if (failure == failures.end()) return outputs;
    for (const std::string& out : failure->outputs) {
      if (std::find(narrowed.begin(), narrowed.end(), out) == narrowed.end())
        narrowed.push_back(out);
    }
  }
  return narrowed.empty() ? outputs : narrowed;
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

namespace {

// Ninja's status line as it prints it by default: "[3/9] Building CXX object a.o".
bool NinjaStatusLine(const std::string& line) {
  size_t close = line.find("] ");
  if (!line.starts_with("[") || close == std::string::npos) return false;
  std::string inner = line.substr(1, close - 1);
  size_t slash = inner.find('/');
  return slash != std::string::npos && slash > 0 && slash + 1 < inner.size() &&
         inner.find_first_not_of("0123456789/") == std::string::npos;
}

}  // namespace

std::vector<NinjaFailure> NinjaFailures(const std::string& log) {
  std::vector<NinjaFailure> failures;
  bool open = false;  // the lines belong to the last failure, until Ninja's next status line
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    bool status = line.starts_with("ninja: ") || NinjaStatusLine(line);
    if (line.starts_with("FAILED: ")) {
      failures.push_back({});
      std::istringstream words(line.substr(8));
      for (std::string word; words >> word;) {
        if (!(word.starts_with("[code=") && word.ends_with("]")))
          failures.back().outputs.push_back(word);
      }
      open = true;
    } else if (status) {
      open = false;
    } else if (open) {
      failures.back().log += line + "\n";
    }
  }
  return failures;
}

std::vector<std::string> NinjaFailedOutputs(const std::string& log) {
  std::vector<std::string> outputs;
  for (const NinjaFailure& f : NinjaFailures(log)) {
    for (const std::string& out : f.outputs) {
      if (std::find(outputs.begin(), outputs.end(), out) == outputs.end()) outputs.push_back(out);
    }
  }
  return outputs;
}

}  // namespace pg
