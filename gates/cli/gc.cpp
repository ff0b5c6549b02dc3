// `proofgate gc`: what proofgate keeps under <git-dir>/proofgate takes on disk, and removing it.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "gates/cli/cli.h"
#include "gates/core/disk_usage.h"
#include "gates/core/exit_code.h"
#include "gates/git/git.h"

namespace fs = std::filesystem;

namespace pg::cli {
namespace {

struct Area {
  const char* name;
  const char* what;
};

const Area kAreas[] = {{"mutate", "mutate's scratch trees, builds and journal"},
                       {"prove", "prove's base, head and mixed trees and builds"},
                       {"trees", "--blame-base checkouts"},
                       {"logs", "preflight's leg logs"},
                       {"cache.json", "cached passes"}};

// A mutate run holding its lock is using its scratch trees: nothing is removed under it.
bool MutateRunning(const std::string& state) {
  int fd = open((state + "/mutate/lock").c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  bool held = flock(fd, LOCK_EX | LOCK_NB) != 0;
  close(fd);
  return held;
}

}  // namespace

int RunGcVerb(const CommonFlags& common, const GcFlags& flags) {
  auto repo = git::Discover(ProjectRoot(common));
  if (!repo.ok()) return Fail(repo.status());
  std::string state = repo->gitdir + "proofgate";
  if (!flags.dry_run && MutateRunning(state)) {
    return Fail(Status::Invalid(state + "/mutate: a proofgate mutate is running; nothing removed"));
  }
  std::uint64_t freed = 0;
  std::cout << state << ":\n";
  for (const Area& a : kAreas) {
    std::string path = state + "/" + a.name;
    std::error_code ec;
    if (!fs::exists(path, ec)) continue;
    std::uint64_t size = DiskUsage(path);
    bool keep = flags.keep_cache && std::string(a.name) == "cache.json";
    if (!keep && !flags.dry_run) fs::remove_all(path, ec);
    if (ec) return Fail(Status::Io(path + ": cannot remove: " + ec.message()));
    if (!keep)
      freed += size;  // what a dry run would free counts too (it said "0 B" beside 260 MiB)
    std::cout << "  " << a.name << std::string(12 - std::string(a.name).size(), ' ')
              << HumanBytes(size) << "  " << a.what
              << (keep            ? "  (kept)"
                  : flags.dry_run ? ""
                                  : "  removed")
              << "\n";
  }
  std::cout << "gc: " << HumanBytes(freed)
            << (flags.dry_run ? " would be freed (--dry-run)" : " freed") << "\n";
  return static_cast<int>(ExitCodeOf(ResultClass::kPass));
}

}  // namespace pg::cli
