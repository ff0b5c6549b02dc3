#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "gates/config/json_source.h"
#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

const char kSuites[] = R"({"schema_version": 1,
  "legs": {
    "ok":   {"run": ["true"]},
    "bad":  {"run": "echo broken; exit 2"},
    "slow": {"run": ["sleep", "30"], "timeout_s": 0.3}
  },
  "suites": {"default": ["ok"], "red": ["ok", "bad"], "slow": ["slow"]}})";

class PreflightCli : public ::testing::Test {
 protected:
  void SetUp() override { testing::MakeRepo(dir_, kSuites); }
  TempDir dir_;
};

TEST_F(PreflightCli, PassingSuiteExitsZeroWithJsonOnStdoutAndProgressOnStderr) {
  auto r = RunProofgate(dir_.path(), "preflight --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["verdict"], "pass");
  EXPECT_EQ(doc["legs"][0]["name"], "ok");
  EXPECT_NE(r.err.find("ok  running"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ok  pass"), std::string::npos) << r.err;
}

TEST_F(PreflightCli, FailingLegExitsOneAndNamesItsLog) {
  auto r = RunProofgate(dir_.path(), "preflight red --color=never");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("bad  fail"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict: fail"), std::string::npos);
  EXPECT_NE(r.err.find("log: " + dir_.path() + "/.git/proofgate/logs/"), std::string::npos)
      << r.err;
}

// `--leg` takes one leg: `--leg ok default` is leg ok and suite default, not two legs (it
// took "default" as a leg's name, exit 2).
TEST_F(PreflightCli, LegTakesOneNameAndTheRestAreSuites) {
  auto r = RunProofgate(dir_.path(), "preflight --json --leg ok default");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto bad = RunProofgate(dir_.path(), "preflight --json --leg=bad default");
  EXPECT_EQ(bad.exit_code, 1) << "leg bad ran and failed: " << bad.out << bad.err;
}

// Every duration in suites.json is any finite number: a huge one is no limit, never an
// overflow (`"timeout_s": 1e10` timed a leg out after 20 ms, exit 3).
TEST_F(PreflightCli, HugeDurationsInSuitesJsonMeanNoLimit) {
  for (const char* huge : {"1e10", "1e18", "1e300"}) {
    dir_.Write("preflight/suites.json", std::string(R"({"schema_version": 1, "kill_grace_s": )") +
                                            huge + R"(, "contention": {"quiet_wait_s": )" + huge +
                                            R"(},
      "legs": {"slow": {"run": "sleep 0.3", "timeout_s": )" +
                                            huge + R"(}}, "suites": {"default": ["slow"]}})");
    auto r = RunProofgate(dir_.path(), "preflight --no-cache --json");
    EXPECT_EQ(r.exit_code, 0) << huge << ": " << r.out << r.err;
  }
}

// `setsid` takes the daemon out of the leg's group, and its parent's exit out of the leg's
// tree: only proofgate being its subreaper, and the leg token in its environment, reach it.
TEST_F(PreflightCli, ADaemonThatLeftItsLegsGroupIsKilledWhenTheLegEnds) {
  dir_.Write("preflight/suites.json", R"({"schema_version": 1, "legs": {"daemon": {"run":
    "mkdir -p out; (setsid sh -c 'echo $$ > out/daemon.pid; exec sleep 60' &); while [ ! -s out/daemon.pid ]; do sleep 0.05; done"}},
    "suites": {"default": ["daemon"]}})");
  auto r = RunProofgate(dir_.path(), "preflight");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::vector<pid_t> pids = testing::ReadPids(dir_.path() + "/out/daemon.pid");
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_FALSE(testing::Alive(pids[0])) << "the daemon " << pids[0] << " outlived its leg";
  if (testing::Alive(pids[0])) kill(pids[0], SIGKILL);
}

// Each finished leg is appended to <log-dir>/legs.jsonl as it ends: a run killed outright
// (no report written) still says which legs finished and how; a run that ends says so last.
TEST_F(PreflightCli, WhatAKilledRunFinishedIsInItsLegsStream) {
  dir_.Write("preflight/suites.json", R"({"schema_version": 1, "legs": {
    "quick": {"run": "exit 0"},
    "red": {"run": "exit 3"},
    "hang": {"run": "mkdir -p out; [ -f out/hang-started ] && exit 0; touch out/hang-started; sleep 60",
             "needs": ["quick"]}},
    "suites": {"default": ["quick", "red", "hang"]}})");
  TempDir logs;
  auto child = Child::Spawn(
      {{PROOFGATE_BIN, "preflight", "--no-cache", "-j", "1", "--log-dir", logs.path() + "/run"},
       dir_.path(),
       {},
       logs.path() + "/out",
       ""});
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(testing::WaitForFile(dir_.path() + "/out/hang-started", 30)) << logs.Read("out");
  kill(child->pid(), SIGKILL);
  waitpid(child->pid(), nullptr, 0);
  std::vector<Json> lines;
  std::istringstream in(logs.Read("run/legs.jsonl"));
  for (std::string line; std::getline(in, line);)
    lines.push_back(Json::parse(line, nullptr, false));
  ASSERT_EQ(lines.size(), 2u) << logs.Read("run/legs.jsonl");
  EXPECT_EQ(lines[0]["name"], "quick");
  EXPECT_EQ(lines[0]["outcome"], "pass");
  EXPECT_EQ(lines[1]["name"], "red");
  EXPECT_EQ(lines[1]["exit_code"], 3);
  for (int run = 0; run < 2; ++run) {  // the second run into the same --log-dir starts afresh
    RunProofgate(dir_.path(), "preflight --no-cache -q --log-dir " + logs.path() + "/again");
  }
  std::string again = logs.Read("again/legs.jsonl");
  const std::string end = "{\"run_ended\": true, \"exit_code\": 1, \"interrupted\": false}\n";
  EXPECT_EQ(again.find(end), again.size() - end.size()) << again;  // once, and last
}

// LESSONS.md #17: proofgate killed outright (no handler runs) takes its legs' process
// groups with it: the run's one guardian sees proofgate's end and kills every group it still
// watches, after a quick leg has already ended and been withdrawn. Each leg becomes a process
// with a scrubbed environment (exec env -i), so no leg token is left in its group: only the
// group's kill ends it.
TEST_F(PreflightCli, EveryLegsGroupDiesWithAProofgateKilledOutright) {
  dir_.Write("preflight/suites.json", R"({"schema_version": 1, "legs": {
    "quick": {"run": "true"},
    "one": {"run": "mkdir -p out; exec env -i PATH=\"$PATH\" sh -c 'sleep 60 & echo $! > out/one.pid; wait'"},
    "two": {"run": "mkdir -p out; exec env -i PATH=\"$PATH\" sh -c 'sleep 60 & echo $! > out/two.pid; wait'"}},
    "suites": {"default": ["quick", "one", "two"]}})");
  TempDir logs;
  auto child = Child::Spawn({{PROOFGATE_BIN, "preflight", "--no-cache", "-j", "3"},
                             dir_.path(),
                             {},
                             logs.path() + "/log",
                             ""});
  ASSERT_TRUE(child.ok());
  std::vector<pid_t> pids;
  for (const char* leg : {"one", "two"}) {
    std::string file = dir_.path() + "/out/" + leg + ".pid";
    ASSERT_TRUE(testing::WaitForFile(file, 10)) << file;
    std::vector<pid_t> got;
    for (int i = 0; i < 100 && got.empty(); ++i) {
      got = testing::ReadPids(file);
      if (got.empty()) usleep(20000);
    }
    ASSERT_EQ(got.size(), 1u) << file;
    pids.push_back(got[0]);
  }
  kill(child->pid(), SIGKILL);
  waitpid(child->pid(), nullptr, 0);
  for (pid_t pid : pids) {
    bool died = testing::DiesWithin(pid);
    EXPECT_TRUE(died) << "the leg's sleep " << pid << " outlived a SIGKILLed proofgate";
    if (!died) kill(pid, SIGKILL);
  }
}

// The pid a leg wrote into `file`, once it is there whole (-1 when it never is).
pid_t PidFrom(const std::string& file) {
  if (!testing::WaitForFile(file, 20)) return -1;
  for (int i = 0; i < 100; ++i) {
    std::vector<pid_t> got = testing::ReadPids(file);
    if (got.size() == 1) return got[0];
    usleep(20000);
  }
  return -1;
}

// A meson-shaped leg: the runner starts its test in a session of its own (as `meson test`
// does) and waits for it. Killed by the guardian, the runner cannot end its test, so the
// guardian ends whatever carries the run's tokens, wherever it is.
TEST_F(PreflightCli, ALegsTestInASessionOfItsOwnDiesWithAProofgateKilledOutright) {
  dir_.Write("preflight/suites.json", R"({"schema_version": 1, "legs": {"runner": {"run":
    "mkdir -p out; setsid sh -c 'echo $$ > out/test.pid; exec sleep 60' & wait"}},
    "suites": {"default": ["runner"]}})");
  TempDir logs;
  auto child = Child::Spawn(
      {{PROOFGATE_BIN, "preflight", "--no-cache"}, dir_.path(), {}, logs.path() + "/log", ""});
  ASSERT_TRUE(child.ok());
  pid_t test = PidFrom(dir_.path() + "/out/test.pid");
  ASSERT_GT(test, 0) << logs.Read("log");
  kill(child->pid(), SIGKILL);
  waitpid(child->pid(), nullptr, 0);
  bool died = testing::DiesWithin(test);
  EXPECT_TRUE(died) << "the test " << test
                    << " in a session of its own outlived a SIGKILLed proofgate";
  if (!died) kill(test, SIGKILL);
}

// A timed-out leg whose runner dies slowly, as `meson test` does: both outlive SIGTERM, and at
// the grace's SIGKILL the shell that started the runner is reaped at once, while the runner
// (here perl freeing 1 GB, with no token the adoption sweep could name it by) has not yet
// handed its test, started in a session of its own, to proofgate. The group still had a
// member, so the sweep after the leg kills whatever carries the leg's token, wherever it is.
TEST_F(PreflightCli, ATimedOutRunnersTestsDieEvenWhenTheRunnerDiesSlowly) {
  testing::WriteSlowRunner(dir_);
  dir_.Write("preflight/suites.json", R"({"schema_version": 1, "kill_grace_s": 0.2, "legs": {
    "runner": {"run": )" + Json(testing::kSlowRunnerCommand).dump() +
                                          R"(, "timeout_s": 3}},
    "suites": {"default": ["runner"]}})");
  auto r = RunProofgate(dir_.path(), "preflight --no-cache");
  EXPECT_NE(r.err.find("timed out"), std::string::npos) << r.out << r.err;
  pid_t test = PidFrom(dir_.path() + "/out/test.pid");
  ASSERT_GT(test, 0) << r.out << r.err;
  bool died = testing::DiesWithin(test, 2);
  EXPECT_TRUE(died) << "the runner's test " << test << " outlived its timed-out leg";
  if (!died) kill(test, SIGKILL);
}

// Every proofgate command used to start by loading libclang and LLVM (12 ms, most of a small
// preflight's own overhead) though only `mutate --generate` parses C++: a leg reads the memory
// map of the proofgate running it.
TEST_F(PreflightCli, ProofgateDoesNotLoadLibclangToRunLegs) {
  dir_.Write("preflight/suites.json", R"({"schema_version": 1, "legs": {
    "maps": {"run": "mkdir -p out; grep -c -i -e libclang -e libLLVM /proc/$PPID/maps > out/count || true"}},
    "suites": {"default": ["maps"]}})");
  auto r = RunProofgate(dir_.path(), "preflight --no-cache");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(dir_.Read("out/count"), "0\n") << "libclang or LLVM mapped into proofgate";
}

// A leg's log is cut to its header before the leg writes (not truncated to zero: ext4 makes
// that costly), so nothing of a longer earlier run's output stays behind this run's.
TEST_F(PreflightCli, ALegsLogHoldsThisRunsOutputOnly) {
  dir_.Write("preflight/suites.json", R"({"schema_version": 1, "legs": {
    "talk": {"run": "if [ -f out/short ]; then echo short; else seq 1 2000; fi"}},
    "suites": {"default": ["talk"]}})");
  std::string logs = dir_.path() + "/out/logs";
  ASSERT_EQ(RunProofgate(dir_.path(), "preflight --no-cache --log-dir " + logs).exit_code, 0);
  ASSERT_NE(dir_.Read("out/logs/talk.log").find("\n2000\n"), std::string::npos);
  dir_.Write("out/short", "");
  ASSERT_EQ(RunProofgate(dir_.path(), "preflight --no-cache --log-dir " + logs).exit_code, 0);
  std::string log = dir_.Read("out/logs/talk.log");
  EXPECT_EQ(log.substr(log.find('\n', log.find('$')) + 1), "short\n") << log;
}

// A log path that is a FIFO blocked the run, Ctrl-C included, and one that is a folder was
// blamed on the program ("cannot start \"sh\": Is a directory"): the log is named and the leg
// is not started (an outside tester's finds).
TEST_F(PreflightCli, ALogThatCannotBeWrittenIsNamedAndItsLegNotStarted) {
  dir_.Write("preflight/suites.json", R"({"schema_version": 1, "legs": {
    "fifo": {"run": ["true"]}, "folder": {"run": ["true"]}, "fine": {"run": ["true"]}},
    "suites": {"default": ["fifo", "folder", "fine"]}})");
  std::string logs = dir_.path() + "/out/logs";
  std::filesystem::create_directories(logs + "/folder.log");
  ASSERT_EQ(mkfifo((logs + "/fifo.log").c_str(), 0644), 0);
  auto run = RunProofgate(dir_.path(), "preflight --no-cache --json --log-dir " + logs);
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  Json doc = Json::parse(run.out);
  std::map<std::string, std::string> notes;
  for (const Json& leg : doc["legs"])
    notes[leg["name"]] = leg["outcome"].get<std::string>() + ": " + leg["note"].get<std::string>();
  EXPECT_EQ(notes["fifo"], "error: cannot write its log " + logs + "/fifo.log: not a regular file");
  EXPECT_EQ(notes["folder"], "error: cannot write its log " + logs + "/folder.log: Is a directory");
  EXPECT_EQ(notes["fine"], "pass: ");
}

// A CI job cancelled, `timeout -s KILL`: SIGKILL to proofgate's whole process group. The
// guardian is not in it, so it sees the run's end and kills the legs' groups.
TEST_F(PreflightCli, EveryLegDiesWhenProofgatesWholeGroupIsKilled) {
  dir_.Write("preflight/suites.json", R"({"schema_version": 1, "legs": {
    "one": {"run": "mkdir -p out; sleep 60 & echo $! > out/one.pid; wait"}},
    "suites": {"default": ["one"]}})");
  TempDir logs;
  auto child = Child::Spawn(
      {{PROOFGATE_BIN, "preflight", "--no-cache"}, dir_.path(), {}, logs.path() + "/log", ""});
  ASSERT_TRUE(child.ok());
  pid_t leg = PidFrom(dir_.path() + "/out/one.pid");
  ASSERT_GT(leg, 0) << logs.Read("log");
  kill(-child->pid(), SIGKILL);
  waitpid(child->pid(), nullptr, 0);
  bool died = testing::DiesWithin(leg);
  EXPECT_TRUE(died) << "the leg's sleep " << leg << " outlived a SIGKILL to proofgate's group";
  if (!died) kill(leg, SIGKILL);
}

// LESSONS.md #16: the report proofgate itself writes into the tree is not the user's change.
TEST_F(PreflightCli, ReportsRedirectedIntoTheTreeDoNotMakeTheRunStale) {
  TempDir io;
  std::string cmd = std::string(PROOFGATE_BIN) + " preflight -v --json > report.json 2> log.txt";
  auto run = RunCapture({"sh", "-c", cmd}, dir_.path(), 120);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->exit.exit_code, 0) << dir_.Read("log.txt");
  EXPECT_NE(dir_.Read("log.txt").find("not hashed: report.json (proofgate's own output)"),
            std::string::npos)
      << dir_.Read("log.txt");
  EXPECT_NE(dir_.Read("log.txt").find("not hashed: log.txt (proofgate's own output)"),
            std::string::npos);
  Json doc = Json::parse(dir_.Read("report.json"), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["tree_hash"], doc["tree_hash_after"]) << doc.dump(2);
  auto junit = RunProofgate(dir_.path(), "preflight --junit junit.xml --summary summary.md");
  EXPECT_EQ(junit.exit_code, 0) << junit.out << junit.err;
}

TEST_F(PreflightCli, DashCIsCdAndFindsTheRootAboveItsDirectory) {
  dir_.Write("src/deep/file.txt", "x");
  TempDir elsewhere;
  auto r = RunProofgate(elsewhere.path(), "-C " + dir_.path() + "/src/deep preflight --json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Json doc = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["root"], dir_.path());
}

// A report flag a verb does not write was dropped silently; now it is refused, and --help says
// which of the common flags each verb honours.
TEST_F(PreflightCli, AReportFlagAVerbDoesNotWriteIsRefused) {
  auto anchors = RunProofgate(dir_.path(), "anchors check --json");
  EXPECT_EQ(anchors.exit_code, 2);
  EXPECT_EQ(anchors.err, "proofgate: --json: `proofgate anchors check` does not write it\n");
  auto prove = RunProofgate(dir_.path(), "--summary s.md prove --base HEAD");
  EXPECT_EQ(prove.exit_code, 2);
  EXPECT_NE(prove.err.find("--summary: `proofgate prove` does not write it"), std::string::npos)
      << prove.err;
  auto help = RunProofgate(dir_.path(), "mutate --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(
      help.out.find(
          "Common flags (before or after the verb): -C DIR (as cd DIR), --color auto|always|never, "
          "--progress auto|tty|plain, --ci auto|github|gitlab|none, -q, -v, --codequality FILE, "
          "--html FILE, --json, --junit FILE, --summary FILE"),
      std::string::npos)
      << help.out;
}

TEST(Gc, SaysWhatProofgateKeepsOnDiskAndRemovesIt) {
  TempDir dir;
  testing::MakeRepo(dir, kSuites);
  ASSERT_EQ(RunProofgate(dir.path(), "preflight").exit_code, 0);
  std::string state = dir.path() + "/.git/proofgate";
  auto dry = RunProofgate(dir.path(), "gc --dry-run");
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("  logs        "), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("would be freed (--dry-run)"), std::string::npos) << dry.out;
  EXPECT_EQ(dry.out.find("gc: 0 B would be freed"), std::string::npos)
      << "what it lists is what it would free: " << dry.out;
  EXPECT_TRUE(std::filesystem::exists(state + "/logs"));
  // A mutate run holding its lock is using the scratch trees: nothing is removed.
  std::filesystem::create_directories(state + "/mutate");
  int fd = open((state + "/mutate/lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  auto busy = RunProofgate(dir.path(), "gc");
  EXPECT_EQ(busy.exit_code, 2);
  EXPECT_NE(busy.err.find("a proofgate mutate is running; nothing removed"), std::string::npos)
      << busy.err;
  close(fd);
  auto kept = RunProofgate(dir.path(), "gc --keep-cache");
  EXPECT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_NE(kept.out.find("cached passes  (kept)"), std::string::npos) << kept.out;
  EXPECT_FALSE(std::filesystem::exists(state + "/logs"));
  EXPECT_FALSE(std::filesystem::exists(state + "/mutate"));
  EXPECT_TRUE(std::filesystem::exists(state + "/cache.json"));
  EXPECT_EQ(RunProofgate(dir.path(), "gc").exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(state + "/cache.json"));
}

TEST_F(PreflightCli, TimeoutExitsThree) {
  auto r = RunProofgate(dir_.path(), "preflight slow");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
}

TEST_F(PreflightCli, InvalidConfigExitsTwoWithFileAndLine) {
  dir_.Write("preflight/suites.json",
             "{\"schema_version\": 1,\n \"legs\": {\"a\": {\"run\": 5}}, \"suites\": {}}");
  auto r = RunProofgate(dir_.path(), "preflight");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "proofgate: preflight/suites.json:2:17: leg \"a\": field \"run\" must be an argv array or a "
      "shell string, got a number\n");
}

TEST_F(PreflightCli, UnknownSuiteAndUnknownFlagExitTwo) {
  EXPECT_EQ(RunProofgate(dir_.path(), "preflight nosuch").exit_code, 2);
  auto flag = RunProofgate(dir_.path(), "preflight --frobnicate");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_NE(flag.err.find("--frobnicate"), std::string::npos) << flag.err;
  auto zero = RunProofgate(dir_.path(), "preflight --jobs 0");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("legs run at once must be a whole number from 1 to 4096, got 0"),
            std::string::npos)
      << zero.err;
}

TEST_F(PreflightCli, ListPrintsSuitesAndRunsNothing) {
  auto r = RunProofgate(dir_.path(), "preflight --list");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "default: ok\nred: ok bad\nslow: slow\n");
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/.git/proofgate"));
}

TEST_F(PreflightCli, OutsideAnyRepoWithoutSuitesExitsTwo) {
  TempDir empty;
  auto r = RunProofgate(empty.path(), "preflight");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no preflight/suites.json in " + empty.path()), std::string::npos) << r.err;
}

TEST_F(PreflightCli, FindsTheRootFromASubdirectory) {
  auto r = RunProofgate(dir_.path() + "/src", "preflight -q");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST_F(PreflightCli, WritesJunitAndSummaryFiles) {
  auto r = RunProofgate(dir_.path(), "preflight red --junit out/j.xml --summary out/s.md");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(dir_.Read("out/j.xml").find("<testcase classname=\"preflight.red\" name=\"bad\""),
            std::string::npos);
  EXPECT_NE(dir_.Read("out/s.md").find("| bad | ❌ fail |"), std::string::npos);
}

TEST(LoadCli, PrintsOneReadingWithEverySignalOrAbsent) {
  TempDir dir;
  auto text = RunProofgate(dir.path(), "load --interval 0.2");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  for (const char* key : {"foreign=", "busy=", "steal=", "loadavg=", "psi_cpu=", "psi_io=",
                          "psi_memory=", "throttled_s="}) {
    EXPECT_NE(text.out.find(key), std::string::npos) << key << " in " << text.out;
  }
  auto json = RunProofgate(dir.path(), "load --json --interval 0.2");
  EXPECT_EQ(json.exit_code, 0);
  Json doc = Json::parse(json.out);
  EXPECT_EQ(doc["samples"], 1);
  EXPECT_TRUE(doc["foreign_mean"].is_number());
  EXPECT_TRUE(doc["absent"].is_array());
}

// The leg forks grandchildren in its process group; SIGINT to proofgate must leave none.
TEST_F(PreflightCli, InterruptLeavesNoOrphans) {
  std::string pids = dir_.path() + "/out/pids";
  dir_.Write(
      "preflight/suites.json",
      R"({"schema_version": 1, "legs": {"tree": {"run": "sleep 300 & echo $! >> out/pids; )"
      R"((sleep 300 & echo $! >> out/pids; wait) & sleep 0.2; echo ready >> out/ready; wait"}},
             "suites": {"default": ["tree"]}})");
  auto child = Child::Spawn(
      SpawnSpec{{PROOFGATE_BIN, "preflight"}, dir_.path(), {}, dir_.path() + "/out/log", ""});
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(testing::WaitForFile(dir_.path() + "/out/ready", 30));
  kill(child->pid(), SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(child->pid(), &status, 0), child->pid());
  EXPECT_EQ(WEXITSTATUS(status), 130) << dir_.Read("out/log");
  auto listed = testing::ReadPids(pids);
  ASSERT_EQ(listed.size(), 2u);
  for (pid_t pid : listed) EXPECT_TRUE(testing::DiesWithin(pid)) << "pid " << pid << " survived";
}

}  // namespace
}  // namespace pg
