#include "gates/runner/capture.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "gates/config/suite_config.h"
#include "gates/runner/supervisor.h"

namespace pg {
namespace {

// Runs the command with its output to `path` (stderr to `err_path` when set); the exit, or
// kIo naming what went wrong.
StatusOr<ExitInfo> RunTo(const std::vector<std::string>& argv, const std::string& cwd,
                         double timeout_s, const std::string& path, const std::string& err_path) {
  Supervisor supervisor(RealLauncher(), kDefaultKillGraceS);
  PG_RETURN_IF_ERROR(
      supervisor.Start(SpawnSpec{argv, cwd, {}, path, err_path}, timeout_s).status());
  std::vector<SupervisedExit> ended;
  bool cancel = false;
  while (ended.empty()) ended = supervisor.Wait(-1, &cancel);
  if (ended.front().timed_out) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", timeout_s);  // "30 s", not "30.000000 s"
    return Status::Io("\"" + argv[0] + "\" did not finish within " + limit + " s");
  }
  return ended.front().info;
}

// A fresh temporary file's path, or empty when none can be made.
std::string TempPath() {
  char path[] = "/tmp/proofgate-capture-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return "";
  close(fd);
  return path;
}

// The file's bytes, then the file removed.
std::string Take(const std::string& path) {
  std::string text;
  FILE* f = fopen(path.c_str(), "rb");
  char buf[4096];
  for (size_t n; f && (n = fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  if (f) fclose(f);
  unlink(path.c_str());
  return text;
}

}  // namespace

StatusOr<Captured> RunCapture(const std::vector<std::string>& argv, const std::string& cwd,
                              double timeout_s, bool apart) {
  std::string path = TempPath(), err_path = apart ? TempPath() : "";
  if (path.empty() || (apart && err_path.empty())) {
    if (!path.empty()) unlink(path.c_str());
    return Status::Io(std::string("mkstemp: ") + std::strerror(errno));
  }
  auto exit = RunTo(argv, cwd, timeout_s, path, err_path);
  Captured result;
  result.output = Take(path);
  if (apart) result.errors = Take(err_path);
  if (!exit.ok()) return exit.status();
  result.exit = *exit;
  return result;
}

}  // namespace pg
