// Which points a schemata build leaves out, learned from the builds that failed
// (specs/mutate-generate.md, Schemata): the points the compiler's errors lie in, and for a
// file with errors outside every point, each point that causes them, found by halving.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gates/mutate/schema.h"

namespace pg {

// One edge Ninja's build log says failed: its outputs (the `FAILED:` line's), and what it
// printed (the command and the compiler's messages, up to Ninja's next status line).
struct NinjaFailure {
  std::vector<std::string> outputs;
  std::string log;
};

class SchemaSearch {
 public:
  // Points that change what is instantiated or how control flows (bodies, removed calls)
  // cause most errors outside every point: a file is halved over its other points first.
  explicit SchemaSearch(const std::vector<Schema>& schemata);

  // Builds a file may spend halving: fewer than a build for each of its points would cost
  // (an eighth of them), and at least 24. Past it the file loses its schema.
  static size_t Budget(size_t points) { return std::max<size_t>(24, points / 8); }

  // The points the next build leaves out: those dropped, and each halved file's past its probe.
  std::set<int> Off() const;

  // What one build of the files in `built` (each one's rendered text and points) teaches, from
  // its log ("" for a build that passed). False when it taught nothing: the same build would
  // fail the same way.
  bool Learn(const std::string& log, const std::map<std::string, SchemaText>& built);
  // Learn from a build that passed (`ok`) or failed, whole or a probe (narrowed to probes()).
  // A whole build's FAILED outputs become probes(); a probe that failed naming none (ninja's
  // own error, such as a target it does not know, not the code's) teaches nothing and empties
  // probes(), so the same round is built whole.
  bool LearnBuild(const std::string& log, bool ok, bool probe,
                  const std::map<std::string, SchemaText>& built);
  // What a halving's probe builds: for each file halved, the first output that the last
  // whole build failed to make with that file's error outside every point (every output it
  // failed to make where a halved file's error is in none of their parts of the log).
  const std::vector<std::string>& probes() const { return probes_; }

  bool halving() const { return !halving_.empty(); }
  const std::set<int>& dropped() const { return dropped_; }
  int found() const { return found_; }  // causes found by halving

 private:
  // One file's points in order; a prefix of `clean` of them builds without an error outside
  // every point, one of `failing` does not. Its probe is the prefix between.
  struct Halving {
    std::vector<int> points;
    size_t clean = 0, failing = 0;
    size_t Probe() const { return (clean + failing) / 2; }
  };
  struct FileState {
    size_t points = 0;    // when it was first halved: its budget's measure
    size_t spent = 0;     // builds it has been halved in
    std::set<int> clean;  // the last clean prefix: the next halving starts past it
  };

  void Start(const std::string& file, const std::set<int>& points);
  std::vector<std::string> ProbeOutputs(const std::string& log,
                                        const std::map<std::string, SchemaText>& built,
                                        std::vector<std::string> outputs) const;
  void Settle(const std::string& file);

  std::set<int> late_;  // bodies and removed calls: halved last
  std::set<int> dropped_;
  std::map<std::string, Halving> halving_;
  std::map<std::string, FileState> files_;
  int found_ = 0;
  std::vector<std::string> probes_;
};

// The failures of a Ninja build's log, in order: each `FAILED:` line (1.11's `FAILED: out`,
// 1.12's `FAILED: [code=1] out`) and the lines after it up to a status line (`[3/9] ...`,
// `ninja: ...`).
std::vector<NinjaFailure> NinjaFailures(const std::string& log);

// The outputs on Ninja's `FAILED:` lines of a build's log, each once, in order.
std::vector<std::string> NinjaFailedOutputs(const std::string& log);

}  // namespace pg
