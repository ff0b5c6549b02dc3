#include "tests/gates/support/test_support.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "gates/core/file_io.h"
#include "gates/git/git.h"
#include "gates/runner/capture.h"

namespace fs = std::filesystem;

namespace pg::testing {
namespace {

// The proofgate these tests run detects its CI from the environment (`--ci auto`): a test binary
// started inside GitHub Actions or GitLab would see workflow commands in every stderr it reads.
// Tests about CI set these variables themselves.
const bool kCiUnset = [] {
  unsetenv("GITHUB_ACTIONS");
  unsetenv("GITLAB_CI");
  unsetenv("GITHUB_STEP_SUMMARY");
  return true;
}();

}  // namespace

void WriteConfigure(const TempDir& dir, const std::string& configure) {
  (void)kCiUnset;
  dir.Write("preflight/suites.json",
            R"({"schema_version": 1, "legs": {"t": {"run": ["true"]}}, "suites": {"default": ["t"]},
    "commands": {"configure": )" +
                configure + "}}");
  if (!git::CommitAll(dir.path(), "suites").ok()) std::abort();
}

TempDir::TempDir() {
  std::string templ = (fs::temp_directory_path() / "pg-test-XXXXXX").string();
  path_ = mkdtemp(templ.data());
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string& rel, const std::string& content) const {
  fs::path p = fs::path(path_) / rel;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
  return p.string();
}

std::string TempDir::Read(const std::string& rel) const {
  auto text = ReadFile(path_ + "/" + rel);
  return text.ok() ? *text : "";
}

void Git(const TempDir& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "-c", "user.name=t", "-c", "user.email=t@example.com"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto run = RunCapture(argv, dir.path(), 60);
  ASSERT_TRUE(run.ok() && run->exit.exit_code == 0)
      << "git " << args[0] << ": " << (run.ok() ? run->output : run.status().message());
}

void MakeRepo(const TempDir& dir, const std::string& suites) {
  dir.Write("preflight/suites.json", suites);
  dir.Write(".gitignore", "out/\n");
  dir.Write("src/code.txt", "version 1\n");
  fs::create_directories(dir.path() + "/out");
  if (!git::Init(dir.path()).ok()) std::abort();
  if (!git::CommitAll(dir.path(), "initial").ok()) std::abort();
}

void WriteSlowRunner(const TempDir& dir, bool kills_its_test) {
  dir.Write("runner.pl", std::string("my $kills = ") + (kills_its_test ? "1" : "0") + R"(;
$ENV{PROOFGATE_LEG_TOKEN} = $ARGV[0];
mkdir 'out';
my $test = fork();
if ($test == 0) { exec('setsid', 'sh', '-c', 'echo $$ > out/test.pid.tmp; mv out/test.pid.tmp out/test.pid; exec sleep 60'); }
$SIG{TERM} = $kills ? sub { kill 'KILL', $test; } : 'IGNORE';
my $ballast = 'x' x 1000000000;  # after the test and the handler: a loaded host takes its time
sleep 100 while 1;
)");
}

bool Alive(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t close = all.rfind(')');
  return close == std::string::npos || close + 2 >= all.size() || all[close + 2] != 'Z';
}

bool DiesWithin(pid_t pid, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (Alive(pid)) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

std::vector<pid_t> ReadPids(const std::string& path) {
  std::ifstream in(path);
  std::vector<pid_t> pids;
  for (pid_t p; in >> p;) pids.push_back(p);
  return pids;
}

bool WaitForFile(const std::string& path, double seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (fs::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return fs::exists(path);
}

const LegResult* FindLeg(const std::vector<LegResult>& legs, const std::string& name) {
  for (const LegResult& leg : legs) {
    if (leg.name == name) return &leg;
  }
  return nullptr;
}

CliResult RunProofgate(const std::string& cwd, const std::string& args) {
  TempDir io;
  std::string cmd =
      std::string(PROOFGATE_BIN) + " " + args + " >" + io.path() + "/out 2>" + io.path() + "/err";
  auto run = RunCapture({"sh", "-c", cmd}, cwd, 120);
  CliResult result;
  if (run.ok()) result.exit_code = run->exit.exit_code;
  result.out = io.Read("out");
  result.err = io.Read("err");
  return result;
}

}  // namespace pg::testing
