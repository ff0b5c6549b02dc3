// `proofgate install` / `proofgate uninstall`: the git hook that runs a suite before a commit
// (or a push), and taking it away again.
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "gates/cli/cli.h"
#include "gates/config/suite_config.h"
#include "gates/core/own_outputs.h"
#include "gates/git/git.h"
#include "gates/hooks/git_hook.h"
#include "gates/runner/preflight.h"

namespace pg::cli {

namespace {

// This binary's own path: the hook runs the proofgate that installed it (PATH's when it is gone).
std::string SelfPath() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("proofgate") : self.string();
}

StatusOr<git::Repo> RepoHere(const CommonFlags& common) {
  std::error_code ec;
  std::string start = common.dir.empty() ? std::filesystem::current_path(ec).string() : common.dir;
  if (!std::filesystem::is_directory(start, ec))
    return Status::Invalid("-C " + start + ": not a directory");
  return git::Discover(start);
}

}  // namespace

int RunInstallVerb(const CommonFlags& common, const HookFlags& flags) {
  auto repo = RepoHere(common);
  if (!repo.ok()) return Fail(repo.status());
  // The suite must be one the hook can run: a typo would fail every commit. Its root is found as
  // preflight finds it (here or above), and the hook goes there: git runs hooks at the top.
  std::error_code ec;
  auto root =
      FindRoot(common.dir.empty() ? std::filesystem::current_path(ec).string() : common.dir);
  if (!root.ok() || InsideTree(repo->workdir, {*root}).empty()) {
    return Fail(Status::Invalid(
        repo->workdir + kDefaultConfig +
        ": not there; run `proofgate init` first (the hook runs one of its suites)"));
  }
  std::string root_dir = PrefixInTree(repo->workdir, *root);
  if (!root_dir.empty()) root_dir.pop_back();  // -C app
  std::string suites = *root + "/" + kDefaultConfig;
  auto config = LoadSuiteConfig(suites);
  if (!config.ok()) return Fail(config.status());
  auto legs = SelectLegs(*config, {flags.suite});
  if (!legs.ok())
    return Fail(Status::Invalid("--suite " + flags.suite + ": " + legs.status().message()));
  auto change =
      InstallHook(repo->hooksdir, flags.hook, flags.suite, SelfPath(), flags.force, root_dir);
  if (!change.ok()) return Fail(change.status());
  std::cout << change->path << ": " << change->action << " (runs `proofgate preflight "
            << (flags.hook == "pre-commit" ? "--staged " : "") << flags.suite << "` before each "
            << (flags.hook == "pre-push" ? "push" : "commit") << ")\n";
  return 0;
}

int RunUninstallVerb(const CommonFlags& common, const HookFlags& flags) {
  auto repo = RepoHere(common);
  if (!repo.ok()) return Fail(repo.status());
  auto change = UninstallHook(repo->hooksdir, flags.hook);
  if (!change.ok()) return Fail(change.status());
  std::cout << change->path << ": " << change->action << "\n";
  return 0;
}

}  // namespace pg::cli
