// Live progress (specs/reports.md): the ETA, the status line's cut, and a real terminal (tmux)
// showing the running leg while it runs and nothing of the line once the run is over.
#include "gates/report/progress.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <thread>

#include "gates/report/status_line.h"
#include "gates/report/step_progress.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

TEST(Progress, TheEtaIsTheLongestLegOrTheWorkSharedByTheJobsAndUnknownWhenAnyIs) {
  EXPECT_EQ(EtaText({10.0, 2.0, 2.0}, 2), "ETA 10.0s");     // the long leg decides
  EXPECT_EQ(EtaText({4.0, 4.0, 4.0, 4.0}, 2), "ETA 8.0s");  // shared by two runners
  EXPECT_EQ(EtaText({4.0, std::nullopt}, 2), "");           // a leg that never passed here
  EXPECT_EQ(EtaText({}, 2), "");
  EXPECT_EQ(EtaText({4.0, 4.0}, 0), "ETA 8.0s");  // no runner count: one
}

TEST(Progress, TheStatusLineIsCutToTheTerminalAtACharacter) {
  EXPECT_EQ(StatusLine::Fit("abcdef", 5), "abcd");
  EXPECT_EQ(StatusLine::Fit("ab·cd·ef", 6), "ab·cd");             // "·" is two bytes, one column
  EXPECT_EQ(StatusLine::Fit("a…bc", 3), "a…");                    // "…" three
  EXPECT_EQ(StatusLine::Fit("a\U0001F600bc", 3), "a\U0001F600");  // an emoji four
  EXPECT_EQ(StatusLine::Fit("short", 80), "short");
  EXPECT_EQ(StatusLine::Fit("one\ntwo", 80), "one");
}

// The width comes from the terminal the line is drawn on: a real pseudo-terminal 20 columns
// wide gets 19 (the last column is left free so the cursor never wraps).
TEST(Progress, TheStatusLineTakesItsWidthFromItsTerminal) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  int tty = open(ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(tty, 0);
  struct winsize ws {};
  ws.ws_col = 20, ws.ws_row = 5;
  ASSERT_EQ(ioctl(tty, TIOCSWINSZ, &ws), 0);
  std::ostringstream out;
  {
    StatusLine line(
        out, tty, [] { return std::string(50, 'x'); }, 60.0);
    line.Print("");  // draws once under the line's lock, whatever its thread has done
    line.Close();
  }
  close(tty);
  close(master);
  EXPECT_NE(out.str().find(std::string(19, 'x')), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find(std::string(20, 'x')), std::string::npos) << out.str();
}

TEST(Progress, TheLegLineSaysDoneOfTotalWhatRunsAndTheEtaFromTheLastPasses) {
  std::ostringstream out;
  ProgressPrinter p(out, false, false);
  p.OnPlan({{"build", 30.0, false}, {"unit", 5.0, false}, {"lint", std::nullopt, true}}, 2);
  LegResult build;
  build.name = "build";
  p.OnChange(build, "running");
  LegResult lint;
  lint.name = "lint";
  p.OnChange(lint, "cached");
  std::string text = p.StatusText();
  EXPECT_NE(text.find("1/3 legs done · running: build "), std::string::npos) << text;
  EXPECT_NE(text.find("· ETA 30.0s"), std::string::npos)
      << text;  // build's 30 s (less what ran) outlasts unit's 5
}

// Found on uriparser/uriparser: a configure that wants Doxygen said "exit status 1" and a log's
// path, and nothing of why. The first failure place (here CMake's) or else the last line says it.
TEST(Progress, ARedLegSaysWhyInOneLine) {
  std::ostringstream out;
  ProgressPrinter p(out, false, false);
  LegResult configure;
  configure.name = "configure";
  configure.log_path = "/logs/configure.log";
  configure.output_tail =
      "-- Looking for doxygen\nCMake Error at /usr/share/cmake/FindPackage.cmake:230 (message):\n"
      "  Could NOT find Doxygen (missing: doxygen)\nCall Stack (most recent call first):\n"
      "  CMakeLists.txt:471 (find_package)\n\n-- Configuring incomplete, errors occurred!\n";
  p.OnChange(configure, "fail");
  EXPECT_NE(
      out.str().find(
          "\n           log: /logs/configure.log\n           first failure: "
          "/usr/share/cmake/FindPackage.cmake:230: Could NOT find Doxygen (missing: doxygen)\n"),
      std::string::npos)
      << out.str();
  LegResult lint;
  lint.name = "lint";
  lint.output_tail = "checking...\nsrc/a.txt has a tab\n\n  \n";
  p.OnChange(lint, "fail");
  EXPECT_NE(out.str().find("lint  fail  0ms\n           last line: src/a.txt has a tab\n"),
            std::string::npos)
      << out.str();
  p.OnChange(lint, "pass");
  EXPECT_EQ(out.str().find("lint  pass  0ms\n           "), std::string::npos) << out.str();
  LegResult wide;  // a long last line is cut where a character starts, CR and all
  wide.name = "wide";
  for (int i = 0; i < 200; ++i) wide.output_tail += "é";
  p.OnChange(wide, "error");
  std::string said = out.str().substr(out.str().find("last line: é"));
  EXPECT_EQ(said.size(), std::string("last line: ").size() + 288 + std::string("…\n").size())
      << said;
}

// A running leg that never passed here leaves the ETA unknown, however short the others are.
TEST(Progress, ARunningLegWithNoPastPassLeavesNoEta) {
  std::ostringstream out;
  ProgressPrinter p(out, false, false);
  p.OnPlan({{"new", std::nullopt, false}, {"unit", 5.0, false}}, 2);
  LegResult leg;
  leg.name = "new";
  p.OnChange(leg, "running");
  std::string text = p.StatusText();
  EXPECT_NE(text.find("0/2 legs done · running: new "), std::string::npos) << text;
  EXPECT_EQ(text.find("ETA"), std::string::npos) << text;
}

TEST(Progress, StepsOfSeveralWorkersAreNamedAndTheEtaFollowsTheFinishedItems) {
  std::ostringstream out;
  StepProgress p(out, "mutants", -1);
  p.SetTotal(4);
  p.OnStep(0, "M1 test");
  p.OnStep(1, "M2 build");
  p.OnDone("mutate: M0 killed\n");
  std::string text = p.StatusText();
  EXPECT_NE(text.find("1/4 mutants done · w0: M1 test "), std::string::npos) << text;
  EXPECT_NE(text.find(", w1: M2 build "), std::string::npos) << text;
  EXPECT_NE(text.find(" · ETA "), std::string::npos) << text;
  EXPECT_EQ(out.str(), "mutate: M0 killed\n");  // not a terminal: plain lines only
}

// `--progress tty` draws the line even into a pipe (as a terminal would get it), erasing it
// with a carriage return before each redraw and at the end.
TEST(Progress, TtyModeRedrawsTheLineInPlaceAndErasesItAtTheEnd) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {"nap": {"run": ["sleep", "0.5"]}},
                             "suites": {"default": ["nap"]}})");
  auto run = RunProofgate(dir.path(), "preflight --progress tty --color never");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("\r\033[K["), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("0/1 legs done · running: nap "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("nap  pass"), std::string::npos);
  EXPECT_EQ(run.err.substr(run.err.size() - 4), "\r\033[K") << run.err;  // erased last
  EXPECT_EQ(run.err.find("nap  running"), std::string::npos);  // a start is the status line's
}

// popen, not RunCapture: RunCapture stops whatever its command leaves running, and the tmux
// server is meant to outlive the command that starts it.
std::string Tmux(const std::string& args) {
  std::string out;
  FILE* pipe = popen(("tmux " + args + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  pclose(pipe);
  return out;
}

bool WaitForScreen(const std::string& socket, const std::string& session, const std::string& text,
                   std::string* screen) {
  for (int i = 0; i < 200; ++i) {
    *screen = Tmux(socket + "capture-pane -p -t " + session);
    if (screen->find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// A real pseudo-terminal: the screen while the slow leg runs, then once the run is over.
TEST(Progress, ATerminalShowsTheRunningLegThenNothingOfTheLineWhenTheRunEnds) {
  if (!std::filesystem::exists("/usr/bin/tmux"))
    GTEST_SKIP() << "no tmux (scripts/install-deps installs it)";
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {"quick": {"run": ["true"]},
                             "slow": {"run": ["sleep", "3"]}}, "suites": {"default": ["quick", "slow"]}})");
  std::string session = "pg" + std::to_string(getpid());
  std::string socket = "-S " + dir.path() + "/tmux.sock ";
  Tmux(socket + "new-session -d -s " + session + " -x 120 -y 20 'cd " + dir.path() + " && " +
       PROOFGATE_BIN + " preflight --color never; echo run-ended; sleep 60'");
  std::string during, after;
  bool running = WaitForScreen(socket, session, "running: slow", &during);
  bool ended = WaitForScreen(socket, session, "run-ended", &after);
  Tmux(socket + "kill-server");
  ASSERT_TRUE(running) << during;
  EXPECT_NE(during.find("1/2 legs done · running: slow"), std::string::npos) << during;
  ASSERT_TRUE(ended) << after;
  EXPECT_EQ(after.find("legs done"), std::string::npos) << after;   // the line is gone
  EXPECT_NE(after.find("slow  pass"), std::string::npos) << after;  // the finished legs' lines stay
  EXPECT_NE(after.find("verdict: pass"), std::string::npos) << after;
}

}  // namespace
}  // namespace pg
