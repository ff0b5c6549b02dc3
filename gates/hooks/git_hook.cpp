#include "hooks/git_hook.h"

#include <sys/stat.h>

#include <filesystem>

#include "core/file_io.h"

namespace pg {

namespace fs = std::filesystem;

namespace {

// `s` as one single-quoted shell word.
std::string ShellWord(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool IsOurs(const std::string& path) {
  auto text = ReadFile(path);
  return text.ok() && text->find(kHookMarker) != std::string::npos;
}

}  // namespace

bool IsKnownHook(const std::string& hook) { return hook == "pre-commit" || hook == "pre-push"; }

std::string HookScript(const std::string& hook, const std::string& suite, const std::string& proofgate) {
  std::string when = hook == "pre-push" ? "push" : "commit";
  return "#!/bin/sh\n" + std::string(kHookMarker) + "; `proofgate uninstall --hook " + hook + "` removes it.\n" +
         "# Runs the suite " + ShellWord(suite) + " before each " + when + " (git " + when +
         " --no-verify skips it once).\n" + "pg=" + ShellWord(proofgate) + "\n" +
         "[ -x \"$pg\" ] || pg=proofgate\nexec \"$pg\" preflight -- " + ShellWord(suite) + " </dev/null\n";
}

StatusOr<HookChange> InstallHook(const std::string& hooksdir, const std::string& hook, const std::string& suite,
                                 const std::string& proofgate, bool force) {
  std::string path = hooksdir + hook, old = path + ".old";
  std::error_code ec;
  HookChange change{path, "installed"};
  if (fs::exists(path, ec) && IsOurs(path)) {
    change.action = "updated";
  } else if (fs::exists(path, ec)) {
    if (!force) {
      return Status::Invalid(path + ": a hook proofgate did not write is there; left as it is (--force moves it to " +
                             hook + ".old, and uninstall puts it back)");
    }
    if (fs::exists(old, ec)) return Status::Invalid(old + " exists too: move one of them yourself; nothing changed");
    fs::rename(path, old, ec);
    if (ec) return Status::Io(path + ": cannot move it to " + old + ": " + ec.message());
    change.action = "installed; the hook that was there is now " + old;
  }
  PG_RETURN_IF_ERROR(MakeDirs(hooksdir));
  PG_RETURN_IF_ERROR(WriteFileAtomic(path, HookScript(hook, suite, proofgate)));
  if (chmod(path.c_str(), 0755) != 0) return Status::Io(path + ": cannot make it executable");
  return change;
}

StatusOr<HookChange> UninstallHook(const std::string& hooksdir, const std::string& hook) {
  std::string path = hooksdir + hook, old = path + ".old";
  std::error_code ec;
  if (!fs::exists(path, ec)) return HookChange{path, "no " + hook + " hook: nothing to remove"};
  if (!IsOurs(path)) return Status::Invalid(path + ": not proofgate's hook; left as it is");
  fs::remove(path, ec);
  if (ec) return Status::Io(path + ": cannot remove it: " + ec.message());
  HookChange change{path, "removed"};
  if (fs::exists(old, ec) && !IsOurs(old)) {
    fs::rename(old, path, ec);
    if (ec) return Status::Io(old + ": cannot put it back: " + ec.message());
    change.action = "removed; the hook it replaced is back";
  }
  return change;
}

}  // namespace pg
