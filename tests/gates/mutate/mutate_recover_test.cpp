// `proofgate mutate` killed with SIGKILL at many points, then `--recover`; the flags that select
// what runs. Build and tests are shell commands: a run takes milliseconds, kills fall all over it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <regex>
#include <thread>
#include <vector>

#include "gates/config/json_source.h"
#include "gates/core/file_io.h"
#include "gates/core/journal.h"
#include "gates/git/git.h"
#include "gates/runner/process.h"
#include "tests/gates/support/mutate_fixture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;
using Clock = std::chrono::steady_clock;

class MutateRecover : public ::testing::Test {
 protected:
  void SetUp() override { testing::MakeShellProject(dir_); }
  // Starts a run and kills it (SIGKILL, no chance to clean up) after `delay`.
  void KillAfter(std::chrono::microseconds delay) {
    auto child = Child::Spawn({{PROOFGATE_BIN, "mutate", "-q", "--no-spec-update"},
                               dir_.path(),
                               {},
                               logs_.path() + "/log",
                               ""});
    ASSERT_TRUE(child.ok());
    std::this_thread::sleep_for(delay);
    kill(child->pid(), SIGKILL);
    waitpid(child->pid(), nullptr, 0);
  }
  TempDir dir_, logs_;
};

TEST_F(MutateRecover, KilledAtFiftyPointsRecoverLeavesEveryByteAsBefore) {
  auto start = Clock::now();
  ASSERT_EQ(testing::RunProofgate(dir_.path(), "mutate -q").exit_code, 0);
  auto full = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
  std::string original = dir_.Read("calc.txt"), script = dir_.Read("test.sh");
  std::mt19937 rng(20261201);
  int rewritten = 0;
  for (int i = 0; i < 60; ++i) {
    // Spread over the whole run (a fresh process pays its start-up too), jittered.
    std::uniform_real_distribution<double> jitter(0.5, 1.5);
    KillAfter(
        std::chrono::microseconds(static_cast<long>(full.count() * (i + 0.5) / 60 * jitter(rng))));
    auto recover = testing::RunProofgate(dir_.path(), "mutate --recover");
    ASSERT_EQ(recover.exit_code, 0) << "kill point " << i << ": " << recover.err;
    if (recover.out.find("restored ") != std::string::npos) ++rewritten;
    std::string tree = testing::ScratchTree(dir_, 0);
    ASSERT_EQ(dir_.Read(".git/proofgate/mutate/w0/tree/calc.txt"), original) << "kill point " << i;
    ASSERT_EQ(dir_.Read(".git/proofgate/mutate/w0/tree/test.sh"), script) << "kill point " << i;
    ASSERT_TRUE(git::Dirty(tree).value().empty()) << "kill point " << i;
    ASSERT_TRUE(std::filesystem::is_empty(dir_.path() + "/.git/proofgate/mutate/journal"))
        << "kill point " << i;
    ASSERT_EQ(dir_.Read("calc.txt"), original);  // the user's file, never written
  }
  // The kills must have caught mutants in the tree, or this proved nothing about the journal.
  EXPECT_GE(rewritten, 5);
}

TEST_F(MutateRecover, ARunAfterAKillRecoversByItselfAndSaysSo) {
  ASSERT_EQ(testing::RunProofgate(dir_.path(), "mutate -q --id S2").exit_code, 0);
  // What a run killed mid-mutant leaves: a journal entry, then the mutant in the scratch tree.
  std::string scratch_file = testing::ScratchTree(dir_, 0) + "/calc.txt";
  Journal journal(dir_.path() + "/.git/proofgate/mutate/journal");
  ASSERT_TRUE(journal.Record(scratch_file, dir_.Read("calc.txt"), 0644).ok());
  dir_.Write(".git/proofgate/mutate/w0/tree/calc.txt", "limit 99\nfloor 0\nstep 1\n");
  auto run = testing::RunProofgate(dir_.path(), "mutate --id S3");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("recovered from an interrupted run: " + scratch_file), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("S3  red-as-claimed"), std::string::npos) << run.out;
  EXPECT_EQ(dir_.Read(".git/proofgate/mutate/w0/tree/calc.txt"), dir_.Read("calc.txt"));
}

TEST_F(MutateRecover, ShardsSplitTheJobsAndIdsPickThem) {
  auto first = testing::RunProofgate(dir_.path(), "mutate -q --shard 1/2");
  auto second = testing::RunProofgate(dir_.path(), "mutate -q --shard 2/2");
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("S1 "), std::string::npos);
  EXPECT_NE(first.out.find("S3 "), std::string::npos);
  EXPECT_EQ(first.out.find("S2 "), std::string::npos);
  EXPECT_NE(second.out.find("S2 "), std::string::npos);
  EXPECT_NE(second.out.find("S12 "), std::string::npos);
  auto one = testing::RunProofgate(dir_.path(), "mutate -q --id S12");
  EXPECT_NE(one.out.find("S12 "), std::string::npos);
  EXPECT_NE(one.out.find("(1 mutants: 1 red-as-claimed)"), std::string::npos) << one.out;
}

// A run that is ending (its guardians still hold the lock while its builds go) is waited for,
// not reported as a run in progress.
TEST_F(MutateRecover, ARunWaitsForTheLockOfARunThatIsEnding) {
  std::string work = dir_.path() + "/.git/proofgate/mutate";
  std::filesystem::create_directories(work);
  int fd = open((work + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  std::thread release([fd] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    close(fd);
  });
  auto one = testing::RunProofgate(dir_.path(), "mutate -q --id S12");
  release.join();
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("(1 mutants: 1 red-as-claimed)"), std::string::npos) << one.out << one.err;
}

TEST_F(MutateRecover, BadSelectionsAndCatalogsAreInvalidInput) {
  const std::pair<const char*, const char*> invalid[] = {
      {"mutate --shard 3/2", "--shard 3/2: expected K/N with 1 <= K <= N"},
      {"mutate --id S9", "--id S9: no such mutation or combo"},
      {"mutate --list --id S9", "--id S9: no such mutation or combo"}};
  for (const auto& [args, message] : invalid) {
    auto run = testing::RunProofgate(dir_.path(), args);
    EXPECT_EQ(run.exit_code, 2) << args;
    EXPECT_NE(run.err.find(message), std::string::npos) << args << ": " << run.err;
  }
  auto one = testing::RunProofgate(dir_.path(), "mutate --list --id S2");
  EXPECT_EQ(one.exit_code, 0);
  EXPECT_EQ(one.out.find("S1 "), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("S2 "), std::string::npos) << one.out;
  dir_.Write("calc.txt", "limit 100\nfloor 0\n");  // S3's text is gone from the user's tree
  auto catalog = testing::RunProofgate(dir_.path(), "mutate");
  EXPECT_EQ(catalog.exit_code, 2);
  EXPECT_NE(catalog.err.find("mutations/shell.json:9:"), std::string::npos) << catalog.err;
  EXPECT_NE(catalog.err.find("no-match: mutation \"S3\""), std::string::npos) << catalog.err;
}

TEST_F(MutateRecover, AComboThatClaimsRedButIsDisarmedIsNotAsClaimed) {
  std::string catalog = dir_.Read("mutations/shell.json");
  catalog.replace(catalog.find("\"expect_green\": false"), 21, "\"expect_green\": true");
  dir_.Write("mutations/shell.json", catalog);
  auto run = testing::RunProofgate(dir_.path(), "mutate --id S12");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("S12  not-green"), std::string::npos) << run.out;
}

// H1 makes the build hang; at its build limit it is stopped and unviable, and S1 still runs.
TEST_F(MutateRecover, AMutantWhoseBuildHangsIsStoppedAtItsLimitAndTheRunGoesOn) {
  dir_.Write("build.sh", "#!/bin/sh\nexit 0 # fast\n");
  std::string catalog = dir_.Read("mutations/shell.json");
  catalog.replace(catalog.find("\"build_command\": [\"true\"]"), 25,
                  "\"build_command\": [\"sh\", \"{tree}/build.sh\"]");
  catalog.replace(catalog.find("\"mutations\": ["), 15, R"("mutations": [
    { "id": "H1", "file": "build.sh", "find": "exit 0 # fast", "replace": "sleep 60 # hang",
      "expect": [{ "test": "Calc.Limit", "message": "^want limit 100$" }] },)");
  dir_.Write("mutations/shell.json", catalog);
  ASSERT_TRUE(git::CommitAll(dir_.path(), "a build script").ok());
  // Waiting out the 60 s sleep would let H1 build, and survive: unviable says it was stopped.
  auto run = testing::RunProofgate(dir_.path(),
                                   "mutate --no-spec-update --build-timeout 1 --id H1 --id S1");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("H1  unviable"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("the build ran past the mutant's limit of 1 s"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("S1  red-as-claimed"), std::string::npos) << run.out;
  EXPECT_EQ(dir_.Read("build.sh"), "#!/bin/sh\nexit 0 # fast\n");
  auto bad = testing::RunProofgate(dir_.path(), "mutate --build-timeout 0");
  EXPECT_EQ(bad.exit_code, 2);
}

// uriparser's runner aborted in teardown ("double free") writing its gtest JSON: a 0-byte report
// stopped the run with exit 2. Here S2's test process dies so: S2 is red (not as claimed, naming
// the report) and S3 still runs. S9 passes every expected test while another process dies: red.
TEST_F(MutateRecover, ATestProcessThatDiesWritingItsReportIsRedAndTheRunGoesOn) {
  std::string test = dir_.Read("test.sh");
  test.insert(test.find("{ echo"),
              "if grep -q '^floor 1$' \"$tree/calc.txt\"; then : > \"$out\"; kill -ABRT $$; fi\n"
              "if grep -q '^extra 1$' \"$tree/calc.txt\"; then : > \"$2/helper.json\"; fi\n");
  dir_.Write("test.sh", test);
  dir_.Write("calc.txt", dir_.Read("calc.txt") + "extra 0\n");
  std::string catalog = dir_.Read("mutations/shell.json");
  catalog.replace(catalog.find("\"mutations\": ["), 15, R"("mutations": [
    { "id": "S9", "file": "calc.txt", "find": "extra 0", "replace": "extra 1",
      "expect": [{ "test": "Calc.Limit", "message": "^want limit 100$" }] },)");
  dir_.Write("mutations/shell.json", catalog);
  ASSERT_TRUE(git::CommitAll(dir_.path(), "a test that crashes writing its report").ok());
  auto run = testing::RunProofgate(
      dir_.path(), "mutate --no-spec-update --json --id S1 --id S2 --id S3 --id S9");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  std::map<std::string, Json> by_id;
  for (const Json& r : doc->root().at("results")) by_id[r.at("id").get<std::string>()] = r;
  ASSERT_EQ(by_id.size(), 4u) << run.out;
  EXPECT_EQ(by_id["S9"].at("outcome"), "red-other") << by_id["S9"].dump();
  EXPECT_NE(by_id["S9"].at("detail").get<std::string>().find("results/helper.json"),
            std::string::npos)
      << by_id["S9"].dump();
  EXPECT_EQ(by_id["S1"].at("outcome"), "red-as-claimed");
  EXPECT_EQ(by_id["S2"].at("outcome"), "red-other");
  EXPECT_NE(by_id["S2"].at("detail").get<std::string>().find(
                "results/shell_test.json: not a gtest JSON report (empty: its test process died "
                "before writing it)"),
            std::string::npos)
      << by_id["S2"].dump();
  EXPECT_EQ(by_id["S3"].at("outcome"), "red-as-claimed") << "the run goes on past the crash";
  auto finished = JsonSource::Load(dir_.path() + "/.git/proofgate/mutate/finished.json");
  ASSERT_TRUE(finished.ok());
  EXPECT_EQ(finished->root().at("exit_code"), 1);
}

// A mutant's test that leaves a file in the scratch tree: the restore cannot be proven and the
// run stops on that error. finished.json says so, with the exit code the process returns (70),
// not an interrupt's 130.
TEST_F(MutateRecover, ARunThatStopsOnAnErrorSaysSoInItsFinishedReport) {
  std::string test = dir_.Read("test.sh");
  test.insert(test.find("{ echo"),
              "if grep -q '^floor 1$' \"$tree/calc.txt\"; then touch \"$tree/stray.txt\"; fi\n");
  dir_.Write("test.sh", test);
  ASSERT_TRUE(git::CommitAll(dir_.path(), "a test that leaves a file in the tree").ok());
  auto run = testing::RunProofgate(dir_.path(), "mutate --no-spec-update --id S1 --id S2");
  EXPECT_NE(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.exit_code, 130) << run.out << run.err;
  auto finished = JsonSource::Load(dir_.path() + "/.git/proofgate/mutate/finished.json");
  ASSERT_TRUE(finished.ok());
  EXPECT_TRUE(finished->root().contains("error")) << finished->root().dump();
  EXPECT_EQ(finished->root().at("exit_code"), run.exit_code) << finished->root().dump();
  EXPECT_EQ(finished->root().at("results").size(), 1u) << "S1 finished before the error";
  auto recover = testing::RunProofgate(dir_.path(), "mutate --recover");
  EXPECT_NE(recover.out.find("last run: 1 mutant(s) finished before it stopped on an error: "),
            std::string::npos)
      << recover.out;
}

// Any finite limit is taken; a huge one means no limit (--min-timeout 1e10 made every mutant
// `timeout`, "limit of -2147483648 s"; --build-timeout 1e300 every mutant unviable).
TEST_F(MutateRecover, HugeLimitsMeanNoLimit) {
  auto run = testing::RunProofgate(
      dir_.path(),
      "mutate --no-spec-update --min-timeout 1e10 --build-timeout 1e300 --id S1 --id S2");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("S1  red-as-claimed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("S2  red-as-claimed"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("mutant limits: tests 1e+10 s, build 1e+300 s"), std::string::npos)
      << "the limits as they are, not an int's overflow: " << run.err;
  for (const char* bad : {"1e999", "inf", "nan", "-1", "0", "10x"}) {
    auto refused = testing::RunProofgate(dir_.path(), std::string("mutate --min-timeout ") + bad);
    EXPECT_EQ(refused.exit_code, 2) << bad;
    EXPECT_NE(refused.err.find(
                  std::string("--min-timeout: must be a finite number of seconds > 0, got ") + bad),
              std::string::npos)
        << refused.err;
  }
}

// Each finished mutant is written out as it ends: a run killed outright (SIGKILL, no chance
// to write its reports) still leaves S1 and S2, and --recover shows them.
TEST_F(MutateRecover, WhatAKilledRunFinishedIsKeptAndRecoverShowsIt) {
  std::string marker = dir_.path() + "/hang-started";
  dir_.Write("build.sh", "#!/bin/sh\nexit 0 # fast\n");
  std::string catalog = dir_.Read("mutations/shell.json");
  catalog.replace(catalog.find("\"build_command\": [\"true\"]"), 25,
                  "\"build_command\": [\"sh\", \"{tree}/build.sh\"]");
  const std::string end_of_mutations = " ],\n  \"combos\"";
  catalog.replace(catalog.find(end_of_mutations), end_of_mutations.size(),
                  R"(,
    { "id": "H9", "file": "build.sh", "find": "exit 0 # fast", "replace": "touch )" +
                      marker + R"(; sleep 60",
      "expect": [{ "test": "Calc.Limit", "message": "^want limit 100$" }] } ],
  "combos")");
  dir_.Write("mutations/shell.json", catalog);
  ASSERT_TRUE(git::CommitAll(dir_.path(), "a build script that can hang").ok());
  auto child = Child::Spawn({{PROOFGATE_BIN, "mutate", "-q", "--no-spec-update", "--id", "S1",
                              "--id", "S2", "--id", "H9"},
                             dir_.path(),
                             {},
                             logs_.path() + "/log",
                             ""});
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(testing::WaitForFile(marker, 120)) << logs_.Read("log");  // S1 and S2 are done by now
  kill(child->pid(), SIGKILL);
  waitpid(child->pid(), nullptr, 0);
  auto recover = testing::RunProofgate(dir_.path(), "mutate --recover");
  EXPECT_EQ(recover.exit_code, 0) << recover.err;
  EXPECT_NE(recover.out.find("last run: 2 mutant(s) finished before it was stopped or killed"),
            std::string::npos)
      << recover.out;
  EXPECT_NE(recover.out.find("S1  red-as-claimed"), std::string::npos) << recover.out;
  EXPECT_NE(recover.out.find("S2  red-as-claimed"), std::string::npos) << recover.out;
  EXPECT_EQ(recover.out.find("H9 "), std::string::npos) << recover.out;
}

// --changed-since REF runs what a change can affect: a mutant whose file, catalog or expected
// test's source changed, or whose catalog's affected_by matches; nothing affected fails
// unless --allow-empty.
TEST_F(MutateRecover, ChangedSinceRunsOnlyTheMutantsAChangeCanAffect) {
  dir_.Write("extra.txt", "on\n");
  dir_.Write(
      "calc_test.cpp",
      "TEST(Calc, Floor) { Check(1); /* what test.sh checks, as a gtest source says it */ }\n"
      "TEST(Calc, Limit) { Check(0); /* its neighbour */ }\n");
  dir_.Write("mutations/extra.json",
             R"({"schema_version": 1, "configure": ["true"], "build_command": ["true"],
    "test_command": ["sh", "{tree}/test.sh", "{tree}", "{results}"], "affected_by": ["test.sh"],
    "mutations": [{"id": "E1", "file": "extra.txt", "find": "on", "replace": "off",
                   "expect": [{"test": "Calc.Limit"}], "expect_outcome": "survived"}]})");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "extra").ok());
  auto none = testing::RunProofgate(dir_.path(), "mutate --changed-since HEAD");
  EXPECT_EQ(none.exit_code, 1) << none.err;
  EXPECT_NE(none.err.find("0 of 5 mutants affected by 0 files changed since HEAD"),
            std::string::npos)
      << none.err;
  EXPECT_EQ(
      testing::RunProofgate(dir_.path(), "mutate --changed-since HEAD --allow-empty").exit_code, 0);
  dir_.Write(
      "calc_test.cpp",
      "TEST(Calc, Floor) { Check(2); }\nTEST(Calc, Limit) { Check(0); /* its neighbour */ }\n");
  auto test_changed =
      testing::RunProofgate(dir_.path(), "mutate --no-spec-update --changed-since HEAD");
  EXPECT_EQ(test_changed.exit_code, 0) << test_changed.out << test_changed.err;
  EXPECT_NE(test_changed.err.find("S2 affected: its test Calc.Floor changed (calc_test.cpp)"),
            std::string::npos)
      << test_changed.err;
  EXPECT_NE(test_changed.err.find("S12 affected: its test Calc.Floor changed"), std::string::npos)
      << test_changed.err;
  EXPECT_EQ(test_changed.err.find("S1 affected"), std::string::npos) << test_changed.err;
  EXPECT_EQ(test_changed.err.find("E1 affected"), std::string::npos) << test_changed.err;
  dir_.Write(
      "calc_test.cpp",
      "TEST(Calc, Floor) { Check(1); /* what test.sh checks, as a gtest source says it */ }\n"
      "TEST(Calc, Limit) { Check(0); /* its neighbour */ }\n");
  dir_.Write("test.sh", dir_.Read("test.sh") + "\n");
  auto engine = testing::RunProofgate(dir_.path(), "mutate --no-spec-update --changed-since HEAD");
  EXPECT_EQ(engine.exit_code, 0) << engine.out << engine.err;
  EXPECT_NE(engine.err.find("E1 affected: test.sh changed (the catalog's affected_by test.sh)"),
            std::string::npos)
      << engine.err;
  EXPECT_NE(engine.err.find("1 of 5 mutants affected by 1 files changed since HEAD"),
            std::string::npos)
      << engine.err;
}

// --affected measures each catalog from the commit its table was last verified at: a run of
// the whole catalog on a clean tree records HEAD in the table's marker line; a later run picks
// only what changed since; uncommitted changes or a row not as claimed record nothing new.
TEST_F(MutateRecover, AffectedMeasuresEachCatalogFromTheCommitItsTableWasVerifiedAt) {
  const std::string markers =
      "# Spec\n\n## Mutations\n<!-- proofgate:mutations -->\n<!-- /proofgate:mutations -->\n";
  dir_.Write("specs/shell.md", markers);
  dir_.Write("specs/extra.md", markers);
  std::string shell = dir_.Read("mutations/shell.json");
  dir_.Write("mutations/shell.json",
             shell.replace(shell.find("{ \"schema_version\": 1,"), 22,
                           "{ \"schema_version\": 1, \"spec\": \"specs/shell.md\","));
  dir_.Write("extra.txt", "on\n");
  dir_.Write("mutations/extra.json",
             R"({"schema_version": 1, "spec": "specs/extra.md", "configure": ["true"],
    "build_command": ["true"], "test_command": ["sh", "{tree}/test.sh", "{tree}", "{results}"],
    "mutations": [{"id": "E1", "file": "extra.txt", "find": "on", "replace": "off",
                   "expect": [{"test": "Calc.Limit"}], "expect_outcome": "survived"}]})");
  std::string first = git::CommitAll(dir_.path(), "specs").value();
  auto whole = testing::RunProofgate(dir_.path(), "mutate --affected");
  ASSERT_EQ(whole.exit_code, 0) << whole.out << whole.err;
  EXPECT_NE(whole.err.find("mutations/shell.json: 4 of 4 affected (its table (specs/shell.md) "
                           "records no verified commit)"),
            std::string::npos)
      << whole.err;
  EXPECT_NE(dir_.Read("specs/shell.md").find("shell.json; verified at " + first + "; do not edit"),
            std::string::npos)
      << dir_.Read("specs/shell.md");
  std::string tables = git::CommitAll(dir_.path(), "tables").value();
  auto none = testing::RunProofgate(dir_.path(), "mutate --affected");
  EXPECT_EQ(none.exit_code, 1) << none.err;
  EXPECT_NE(none.err.find("0 of 5 mutants affected"), std::string::npos) << none.err;
  dir_.Write("extra.txt", "on\n\n");
  std::string changed = git::CommitAll(dir_.path(), "extra").value();
  auto one = testing::RunProofgate(dir_.path(), "mutate --affected");
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  EXPECT_NE(one.err.find("mutations/shell.json: 0 of 4 affected since " + first.substr(0, 12)),
            std::string::npos)
      << one.err;
  EXPECT_NE(one.err.find("E1 affected: extra.txt changed"), std::string::npos) << one.err;
  EXPECT_NE(dir_.Read("specs/extra.md").find("verified at " + changed), std::string::npos)
      << dir_.Read("specs/extra.md");
  EXPECT_NE(dir_.Read("specs/shell.md").find("verified at " + first), std::string::npos);
  ASSERT_TRUE(git::CommitAll(dir_.path(), "extra's table").ok());
  dir_.Write("extra.txt", "on\n\n\n");
  auto dirty = testing::RunProofgate(dir_.path(), "mutate --affected");
  ASSERT_EQ(dirty.exit_code, 0) << dirty.out << dirty.err;
  EXPECT_NE(dirty.err.find(
                "specs/extra.md: not marked verified at HEAD: uncommitted changes (extra.txt)"),
            std::string::npos)
      << dirty.err;
  EXPECT_NE(dir_.Read("specs/extra.md").find("verified at " + changed), std::string::npos);
  auto bounded = testing::RunProofgate(dir_.path(), "mutate --max-mutants 4");
  EXPECT_EQ(bounded.exit_code, 1) << bounded.err;
  EXPECT_NE(bounded.err.find(
                "5 mutants selected, more than --max-mutants 4: run `proofgate mutate --affected`"),
            std::string::npos)
      << bounded.err;
  EXPECT_EQ(bounded.out.find("red-as-claimed"), std::string::npos) << bounded.out;
  (void)tables;
}

// A row not as claimed leaves its table verified at no commit, so the next --affected run
// runs that catalog whole.
TEST_F(MutateRecover, ATableWithARowNotAsClaimedRecordsNoCommit) {
  dir_.Write(
      "specs/shell.md",
      "# Spec\n\n## Mutations\n<!-- proofgate:mutations -->\n<!-- /proofgate:mutations -->\n");
  std::string shell = dir_.Read("mutations/shell.json");
  shell.replace(shell.find("{ \"schema_version\": 1,"), 22,
                "{ \"schema_version\": 1, \"spec\": \"specs/shell.md\",");
  dir_.Write("mutations/shell.json", shell);
  std::string head = git::CommitAll(dir_.path(), "a spec").value();
  ASSERT_EQ(testing::RunProofgate(dir_.path(), "mutate").exit_code, 0);
  ASSERT_NE(dir_.Read("specs/shell.md").find("verified at " + head), std::string::npos)
      << dir_.Read("specs/shell.md");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "verified").ok());
  dir_.Write("mutations/shell.json",
             shell.replace(shell.find("^want step 1$"), 13, "^want step 9$"));
  ASSERT_TRUE(git::CommitAll(dir_.path(), "a claim that no longer holds").ok());
  auto red = testing::RunProofgate(dir_.path(), "mutate --affected");
  EXPECT_EQ(red.exit_code, 1) << red.out << red.err;
  EXPECT_NE(red.err.find("S3 affected: its entry in mutations/shell.json changed"),
            std::string::npos)
      << red.err;
  EXPECT_EQ(dir_.Read("specs/shell.md").find("verified at"), std::string::npos)
      << dir_.Read("specs/shell.md");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "table").ok());
  auto again = testing::RunProofgate(dir_.path(), "mutate --affected");
  EXPECT_NE(
      again.err.find("4 of 4 affected (its table (specs/shell.md) records no verified commit)"),
      std::string::npos)
      << again.err;
}

// Editing one mutation's claim reruns that mutation (and the combos it is in), not its whole
// catalog; a note is prose; a field every mutant shares reruns them all.
TEST_F(MutateRecover, ACatalogEditSelectsTheEntriesItChanged) {
  std::string shell = dir_.Read("mutations/shell.json");
  shell.replace(shell.find("^want floor 0$"), 14, "want floor 0$");
  shell.replace(shell.find("\"id\": \"S3\","), 11, "\"id\": \"S3\", \"note\": \"prose\",");
  dir_.Write("mutations/shell.json", shell);
  auto entry = testing::RunProofgate(dir_.path(), "mutate --changed-since HEAD --list");
  ASSERT_EQ(entry.exit_code, 0) << entry.err;
  EXPECT_NE(entry.err.find("S2 affected: its entry in mutations/shell.json changed"),
            std::string::npos)
      << entry.err;
  EXPECT_NE(entry.err.find("S12 affected: its member S2's entry in mutations/shell.json changed"),
            std::string::npos)
      << entry.err;
  EXPECT_EQ(entry.err.find("S1 affected"), std::string::npos) << entry.err;
  EXPECT_EQ(entry.err.find("S3 affected"), std::string::npos) << entry.err;
  shell.replace(shell.find("\"build_command\": [\"true\"]"), 25,
                "\"build_command\": [\"true\", \"x\"]");
  dir_.Write("mutations/shell.json", shell);
  auto shared = testing::RunProofgate(dir_.path(), "mutate --changed-since HEAD --list");
  EXPECT_NE(
      shared.err.find(
          "S1 affected: its catalog mutations/shell.json changed (what all its mutants share)"),
      std::string::npos)
      << shared.err;
  EXPECT_NE(shared.err.find("4 of 4 mutants affected"), std::string::npos) << shared.err;
}

}  // namespace
}  // namespace pg
