#include "runner/capture.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "config/suite_config.h"
#include "runner/supervisor.h"

namespace pg {
namespace {

// Runs the command with its output to `path`; the exit, or kIo naming what went wrong.
StatusOr<ExitInfo> RunTo(const std::vector<std::string>& argv, const std::string& cwd,
                         double timeout_s, const std::string& path) {
  Supervisor supervisor(RealLauncher(), kDefaultKillGraceS);
  PG_RETURN_IF_ERROR(supervisor.Start(SpawnSpec{argv, cwd, {}, path}, timeout_s).status());
  std::vector<SupervisedExit> ended;
  bool cancel = false;
  while (ended.empty()) ended = supervisor.Wait(-1, &cancel);
  if (ended.front().timed_out) {
    return Status::Io("\"" + argv[0] + "\" did not finish within " + std::to_string(timeout_s) + " s");
  }
  return ended.front().info;
}

}  // namespace

StatusOr<Captured> RunCapture(const std::vector<std::string>& argv, const std::string& cwd,
                              double timeout_s) {
  char path[] = "/tmp/proofgate-capture-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return Status::Io(std::string("mkstemp: ") + std::strerror(errno));
  close(fd);
  auto exit = RunTo(argv, cwd, timeout_s, path);
  Captured result;
  if (exit.ok()) {
    result.exit = *exit;
    FILE* f = fopen(path, "rb");
    char buf[4096];
    for (size_t n; f && (n = fread(buf, 1, sizeof buf, f)) > 0;) result.output.append(buf, n);
    if (f) fclose(f);
  }
  unlink(path);
  if (!exit.ok()) return exit.status();
  return result;
}

}  // namespace pg
