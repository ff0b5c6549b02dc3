// Which tests reach which schema mutant (specs/mutate-generate.md, "Reach"): recorded once in
// the schemata's green run, where every selected test runs alone and each point's switch
// appends its number to the file PROOFGATE_REACHED names the first time a process evaluates it.
// A mutant then runs only the tests that executed its point, the fastest first; one that no
// test executed cannot change what any test sees, and survives without a run.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gates/core/status.h"

namespace pg {

inline constexpr const char* kReachVariable = "PROOFGATE_REACHED";
// The switch remembers numbers below this (a bitmap per translation unit); a larger number is
// never recorded, so it counts as reached by every test.
inline constexpr int kReachLimit = 65536;

struct ReachRecord {
  bool recorded = false;  // false: no record (reach not used): every mutant runs all its tests
  // One test per unit; a catalog's own test command is one unit named "" that runs them all.
  std::map<std::string, std::set<int>> points;  // unit → the numbers its processes evaluated
  std::map<std::string, double> seconds;        // unit → its wall time in the recording run
  std::set<std::string> failed;                 // units red in the recording run
  // Units red in the schemata that pass on the unmutated tree: they read the (rewritten)
  // sources, so they judge a mutant only in a build of its own.
  std::set<std::string> sources;
  // ctest tests recorded case by case (their cases are the units); the others are units whole.
  std::set<std::string> split;
  std::map<std::string, double> whole;  // a split test's case → its ctest test's time whole
};

// How finely a ctest test that runs a GoogleTest executable's cases is recorded.
enum class ReachGrain { kAuto, kCase, kCtest };

// Whether recording a ctest test's `cases` one by one pays (kAuto): the `points` it reached,
// each saving half its cases' time (`whole_s` less `start_s`, a process that runs no case)
// when only the cases that reached it run, against that recording's cost: a process start
// per case plus the cases' time.
bool SplitPays(size_t cases, size_t points, double whole_s, double start_s);

// The numbers a PROOFGATE_REACHED file lists (one per line); a missing file is none (the test's
// processes reached no point). A line that is not a number is kInvalidInput naming the file.
StatusOr<std::set<int>> ReadReached(const std::string& path);

// Of `tests` (a mutant's tests, in any order), those whose unit reached `number`, the fastest
// first (ties by name). With no record: `tests` as given. With a whole-command unit (""): all of
// `tests` when it reached the number, none when not.
std::vector<std::string> TestsReaching(const ReachRecord& reach, int number,
                                       const std::vector<std::string>& tests);

// Another recording run's record (--reach-runs) into *into: a unit reaches what it reached on
// either run, its time is the longer, and it is red when either run was. Units whose points
// differ between the two are appended to *wandered (once each).
void UniteReach(const ReachRecord& more, ReachRecord* into, std::vector<std::string>* wandered);

// The time the recording run gives `batches` (tests that run in one process each batch): a
// batch's tests' sum, less one process start (its fastest test's time, the best figure the
// record has for it) for each test after the first, and at most the time of the ctest test
// they belong to run whole (ReachRecord::whole); a test the run did not time counts 0.
double RecordedSeconds(const ReachRecord& reach,
                       const std::vector<std::vector<std::string>>& batches);

// A mutant's test limit when its batches run one by one from the record: 5 × their recorded
// time, so a quick test the mutant makes loop stops in seconds, not after five whole suites;
// at least `floor_s` (a test's time varies run to run) and at most `ceiling_s` (the catalog's).
double ReachLimit(const ReachRecord& reach, const std::vector<std::vector<std::string>>& batches,
                  double floor_s, double ceiling_s);

}  // namespace pg
