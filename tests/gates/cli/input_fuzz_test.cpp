// Every JSON input proofgate reads (suites, catalogs, records, shard reports, git notes) and
// its journal, edited at random bytes: each run ends in 0, 1 or 2 (5 for a note that names
// another base: stale), never in an abort or a crash. PG_FUZZ_SECONDS=600 runs the long
// campaign (scripts/fuzz-inputs); by default a few dozen edits per format.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <string>

#include "gates/core/journal.h"
#include "gates/git/git.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

std::string Edited(std::string text, std::mt19937& rng) {
  static const std::string kBytes = "0123456789e-+.\"{}[],:\\/* \n\ttrufalsn";
  std::uniform_int_distribution<int> edits(1, 4), kind(0, 5), byte(0, 255);
  for (int n = edits(rng); n > 0 && !text.empty(); --n) {
    size_t at = std::uniform_int_distribution<size_t>(0, text.size() - 1)(rng);
    switch (kind(rng)) {
      case 0:
        text[at] = static_cast<char>(byte(rng));
        break;
      case 1:
        text[at] = kBytes[std::uniform_int_distribution<size_t>(0, kBytes.size() - 1)(rng)];
        break;
      case 2:
        text.erase(at, 1);
        break;
      case 3:
        text.insert(at, "1e999");
        break;
      case 4:
        text.insert(at, text.substr(at, 8));
        break;
      default:
        text.insert(at, "-99999999999999999999");
        break;
    }
  }
  return text;
}

struct Format {
  std::string name, file, valid;
  std::string args;
  std::set<int> allowed = {0, 1, 2};
};

class InputFuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* env = std::getenv("PG_FUZZ_SECONDS");
    seconds_ = env ? std::atof(env) : 0;
    dir_.Write("calc.txt", "limit 100\n");
    dir_.Write("preflight/suites.json", kSuites);
    dir_.Write("mutations/calc.json", kCatalog);
    dir_.Write("records/r.json", kRecord);
    dir_.Write(".gitignore", "out/\n");
    ASSERT_TRUE(git::Init(dir_.path()).ok());
    head_ = git::CommitAll(dir_.path(), "initial").value();
  }
  // Edits the file `runs` times (or for PG_FUZZ_SECONDS / 6), runs proofgate after each, and
  // fails on the first exit outside `allowed` with the input that caused it.
  void Fuzz(const Format& f, int runs, const std::function<void(const std::string&)>& write) {
    std::mt19937 rng(std::hash<std::string>{}(f.name) ^ 20261201u);
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds_ / 6);
    for (int i = -1; i < runs || std::chrono::steady_clock::now() < end; ++i) {
      std::string input = i < 0 ? f.valid : Edited(f.valid, rng);  // the valid input itself first
      write(input);
      auto run = RunProofgate(dir_.path(), f.args);
      ASSERT_TRUE(f.allowed.count(run.exit_code))
          << f.name << " edit " << i << " exited " << run.exit_code << "\n"
          << run.err << "\ninput:\n"
          << input;
    }
    write(f.valid);
  }
  void FuzzFile(const Format& f, int runs) {
    Fuzz(f, runs, [&](const std::string& text) { dir_.Write(f.file, text); });
  }
  static constexpr const char* kSuites = R"({ "schema_version": 1,
  "toolchain": [["true"]],
  "contention": {"foreign_threshold": 0.25, "quiet_for_s": 1},
  "legs": {"a": {"run": ["true"], "timeout_s": 10, "inputs": ["calc.txt"]},
           "b": {"run": "exit 0", "needs": ["a"], "env": {"X": "1"}, "timing": true}},
  "prove": {"tests": ["tests/**"]},
  "suites": {"default": ["a", "b"]} })";
  static constexpr const char* kCatalog = R"({ "schema_version": 1,
  "configure": ["true"], "build_command": ["true"], "test_command": ["true"],
  "mutations": [{"id": "M1", "file": "calc.txt", "find": "limit 100", "replace": "limit 99",
                 "expect": [{"test": "Calc.Limit", "message": "^want 100$"}], "note": "x"}],
  "combos": [{"id": "C1", "apply": ["M1"], "expect_green": false}] })";
  static constexpr const char* kRecord = R"({ "record": "tool",
  "fields": {"version": {"expect": "1.2.3", "observe": ["echo", "1.2.3"]},
             "release": {"expect": "1.2", "observe": ["echo", "1.2"]}},
  "relations": [{"kind": "prefix", "of": "version", "is": "release"}] })";
  TempDir dir_;
  std::string head_;
  double seconds_ = 0;
};

TEST_F(InputFuzz, SuitesCatalogsAndRecordsNeverAbort) {
  FuzzFile({"suites", "preflight/suites.json", kSuites, "preflight --list"}, 60);
  FuzzFile({"catalog", "mutations/calc.json", kCatalog, "mutate --list"}, 60);
  FuzzFile({"record", "records/r.json", kRecord, "records check records/r.json"}, 60);
}

TEST_F(InputFuzz, ShardReportsNeverAbort) {
  std::string one = RunProofgate(dir_.path(), "preflight --shard 1/2 --json -q --no-cache").out;
  std::string two = RunProofgate(dir_.path(), "preflight --shard 2/2 --json -q --no-cache").out;
  dir_.Write("out/2.json", two);
  ASSERT_EQ(RunProofgate(dir_.path(), "merge-reports out/1.json out/2.json").exit_code,
            2);  // 1.json missing
  FuzzFile({"shard report", "out/1.json", one, "merge-reports out/1.json out/2.json", {0, 1, 2, 5}},
           60);
}

TEST_F(InputFuzz, GateNotesNeverAbort) {
  std::string tree = git::TreeIdOf(dir_.path(), head_).value();
  std::string note = R"({"base": ")" + head_ + R"(", "merged_tree": ")" + tree +
                     R"(", "exit_code": 0, "verdict": "pass"})";
  ASSERT_TRUE(git::WriteNote(dir_.path(), "refs/notes/proofgate", head_, note).ok());
  ASSERT_EQ(RunProofgate(dir_.path(), "gate --verify HEAD").exit_code, 0)
      << RunProofgate(dir_.path(), "gate --verify HEAD").err;
  Fuzz({"gate note", "", note, "gate --verify HEAD", {0, 1, 2, 5}}, 60,
       [&](const std::string& text) {
         ASSERT_TRUE(git::WriteNote(dir_.path(), "refs/notes/proofgate", head_, text).ok());
       });
}

TEST_F(InputFuzz, JournalEntriesNeverAbortNorWriteOutsideTheScratchTrees) {
  std::string journal = dir_.path() + "/.git/proofgate/mutate/journal";
  std::string target = dir_.path() + "/.git/proofgate/mutate/w0/tree/calc.txt";
  ASSERT_TRUE(Journal(journal).Record(target, "limit 100\n", 0644).ok());
  std::string key;
  for (const auto& f : std::filesystem::directory_iterator(journal)) key = f.path().stem().string();
  std::string entry = dir_.Read(".git/proofgate/mutate/journal/" + key + ".entry");
  Fuzz({"journal", "", entry, "mutate --recover"}, 60, [&](const std::string& text) {
    dir_.Write(".git/proofgate/mutate/journal/" + key + ".entry", text);
    dir_.Write(".git/proofgate/mutate/journal/" + key + ".orig", "limit 100\n");
  });
  EXPECT_EQ(dir_.Read("calc.txt"), "limit 100\n");
}

}  // namespace
}  // namespace pg
