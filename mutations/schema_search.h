// Which points a schemata build leaves out, learned from the builds that failed
// (specs/mutate-generate.md, Schemata): the points the compiler's errors lie in, and for a
// file with errors outside every point, the point that causes them, found by halving.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "mutations/schema.h"

namespace pg {

class SchemaSearch {
 public:
  // Halving starts only before this many builds; a file may have this many causes found.
  static constexpr int kHalvingRounds = 24;
  static constexpr int kCausesPerFile = 4;

  // The points the next build leaves out: those dropped, and each halved file's past its probe.
  std::set<int> Off() const;

  // What build `round` (from 0) of the files in `built` (each one's rendered text and points)
  // teaches, from its log ("" for a build that passed). False when it taught nothing: the
  // same build would fail the same way.
  bool Learn(const std::string& log, const std::map<std::string, SchemaText>& built, int round);

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

  void Start(const std::string& file, const std::set<int>& points, int round);
  void Settle(const std::string& file, int round);

  std::set<int> dropped_;
  std::map<std::string, Halving> halving_;
  std::map<std::string, int> causes_;
  int found_ = 0;
};

}  // namespace pg
