// Helpers for tests that use real processes, real files and real git repositories.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "gates/runner/leg_result.h"

namespace pg::testing {

// A fresh directory under $TMPDIR, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `content` to path()/rel (parents created); returns the absolute path.
  std::string Write(const std::string& rel, const std::string& content) const;
  std::string Read(const std::string& rel) const;

 private:
  std::string path_;
};

// `git ARGS` in `dir` as user t <t@example.com>; a failed command fails the test.
void Git(const TempDir& dir, const std::vector<std::string>& args);

// A temp dir holding a git repository with one commit: a preflight/suites.json of `suites`
// and a .gitignore that ignores out/ (where legs write their evidence).
void MakeRepo(const TempDir& dir, const std::string& suites);

// A preflight/suites.json whose "commands.configure" is `configure` (a JSON array), committed:
// how a project's own configure reaches mutate's scratch builds.
void WriteConfigure(const TempDir& dir, const std::string& configure);

// A test runner shaped like `meson test`, written into `dir` as runner.pl: it starts its test in
// a session of its own (`setsid sleep 60`, its pid into out/test.pid) and waits; killed, it dies
// slowly (perl freeing 1 GB). SIGTERM it ignores, or with `kills_its_test` answers by killing
// its test, which it never reaps. Run it with kSlowRunnerCommand (`sh -c`): a shell ignoring
// SIGTERM starts it with a scrubbed environment (no sweep can name the dying runner by its
// token) and passes it the leg's token, which it gives its test.
void WriteSlowRunner(const TempDir& dir, bool kills_its_test = false);
inline constexpr char kSlowRunnerCommand[] =
    "trap '' TERM; env -i PATH=\"$PATH\" perl runner.pl \"$PROOFGATE_LEG_TOKEN\"; true";

// True when `pid` names a live process (zombies count as dead).
bool Alive(pid_t pid);
// Polls until `pid` is dead (true) or `seconds` pass (false): a kill lands in microseconds,
// but a loaded machine may take a while to run the killer.
bool DiesWithin(pid_t pid, double seconds = 5);
// Pids listed one per line in a file.
std::vector<pid_t> ReadPids(const std::string& path);
// Polls until `path` exists (true) or `seconds` pass (false).
bool WaitForFile(const std::string& path, double seconds);

const LegResult* FindLeg(const std::vector<LegResult>& legs, const std::string& name);

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs the proofgate binary with `args` (shell words) in `cwd`.
CliResult RunProofgate(const std::string& cwd, const std::string& args);

}  // namespace pg::testing
