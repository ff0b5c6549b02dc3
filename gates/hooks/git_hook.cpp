#include "gates/hooks/git_hook.h"

#include <sys/stat.h>

#include <filesystem>

#include "gates/core/file_io.h"

namespace pg {

namespace fs = std::filesystem;

namespace {

// `s` as one single-quoted shell word.
std::string ShellWord(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

constexpr const char* kMovedLine = "# proofgate-hook: moved the hook that was here to ";

// The script without the lines that vary (what it runs, with which proofgate, what it moved).
std::string Fixed(const std::string& text) {
  std::string out, line;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    line = text.substr(at, end == std::string::npos ? std::string::npos : end - at + 1);
    at = end == std::string::npos ? text.size() : end + 1;
    bool varies = line.rfind("# Runs the suite ", 0) == 0 || line.rfind("pg=", 0) == 0 ||
                  line.rfind("exec \"$pg\" preflight ", 0) == 0 || line.rfind(kMovedLine, 0) == 0;
    if (!varies) out += line;
  }
  return out;
}

// A pre-push hook's lines that read the pushed refs git names on stdin (its arguments are the
// remote's name and URL, dropped): one ref whose remote commit is here and whose local commit
// is HEAD is gated by what it changes (`--base`); anything else, every file; deletions, nothing.
constexpr const char* kPushedRefs =
    "# git names each pushed ref on stdin: legs with \"files\" run for what the push changes.\n"
    "base= refs=0\n"
    "while read -r local_ref local_sha remote_ref remote_sha; do\n"
    "  case $local_sha in *[!0]*) refs=$((refs + 1)) ;; *) continue ;; esac  # a deletion pushes "
    "no code\n"
    "  case $remote_sha in *[!0]*) base=$remote_sha ;; *) base= ;; esac  # a new branch: every "
    "file\n"
    "  [ \"$local_sha\" = \"$(git rev-parse -q --verify HEAD)\" ] || base=\n"
    "done\n"
    "[ \"$refs\" -gt 0 ] || exit 0\n"
    "set --\n"
    "if [ \"$refs\" -eq 1 ] && [ -n \"$base\" ] && git cat-file -e \"$base^{commit}\" 2>/dev/null; "
    "then set -- --base \"$base\"; fi\n";

std::string Script(const std::string& hook, const std::string& suite, const std::string& proofgate,
                   bool moved, const std::string& root_dir, bool pushed_refs) {
  std::string when = hook == "pre-push" ? "push" : "commit";
  // A commit holds what is staged: the suite runs on that, unstaged changes set aside.
  std::string staged = hook == "pre-commit" ? "--staged " : "";
  std::string dir =
      root_dir.empty() ? "" : "-C " + ShellWord(root_dir) + " ";  // hooks run at the top
  bool refs = pushed_refs && hook == "pre-push";
  return "#!/bin/sh\n" + std::string(kHookMarker) + "; `proofgate uninstall --hook " + hook +
         "` removes it.\n" + (moved ? kMovedLine + hook + ".old\n" : "") + "# Runs the suite " +
         ShellWord(suite) + " before each " + when + " (git " + when +
         " --no-verify skips it once).\n" + "pg=" + ShellWord(proofgate) + "\n" +
         "[ -x \"$pg\" ] || pg=proofgate\n" + (refs ? kPushedRefs : "") +
         "exec \"$pg\" preflight " + dir + staged + (refs ? "\"$@\" " : "") + "-- " +
         ShellWord(suite) + " </dev/null\n";
}

// Proofgate's own script, unedited: a hook with the marker and lines a user added is theirs now
// (install would have overwritten them, uninstall deleted them).
bool IsOurs(const std::string& path, const std::string& hook, bool* moved = nullptr) {
  auto text = ReadFile(path);
  // A pre-push hook an older proofgate wrote (before it read the pushed refs) is its own too.
  if (!text.ok()) return false;
  if (Fixed(*text) != Fixed(Script(hook, "", "", false, "", true)) &&
      Fixed(*text) != Fixed(Script(hook, "", "", false, "", false))) {
    return false;
  }
  if (moved) *moved = text->find(kMovedLine) != std::string::npos;
  return true;
}

}  // namespace

bool IsKnownHook(const std::string& hook) { return hook == "pre-commit" || hook == "pre-push"; }

std::string HookScript(const std::string& hook, const std::string& suite,
                       const std::string& proofgate, bool moved, const std::string& root_dir) {
  return Script(hook, suite, proofgate, moved, root_dir, true);
}

StatusOr<HookChange> InstallHook(const std::string& hooksdir, const std::string& hook,
                                 const std::string& suite, const std::string& proofgate, bool force,
                                 const std::string& root_dir) {
  std::string path = hooksdir + hook, old = path + ".old";
  std::error_code ec;
  HookChange change{path, "installed"};
  bool moved = false;
  if (fs::exists(path, ec) && IsOurs(path, hook, &moved)) {
    change.action = "updated";
  } else if (fs::exists(path, ec) || fs::is_symlink(path, ec)) {
    if (!force) {
      return Status::Invalid(
          path + ": a hook proofgate did not write is there; left as it is (--force moves it to " +
          hook + ".old, and uninstall puts it back)");
    }
    if (fs::exists(old, ec))
      return Status::Invalid(old + " exists too: move one of them yourself; nothing changed");
    fs::rename(path, old, ec);
    if (ec) return Status::Io(path + ": cannot move it to " + old + ": " + ec.message());
    change.action = "installed; the hook that was there is now " + old;
    moved = true;
  }
  PG_RETURN_IF_ERROR(MakeDirs(hooksdir));
  PG_RETURN_IF_ERROR(WriteFileAtomic(path, HookScript(hook, suite, proofgate, moved, root_dir)));
  if (chmod(path.c_str(), 0755) != 0) return Status::Io(path + ": cannot make it executable");
  return change;
}

StatusOr<HookChange> UninstallHook(const std::string& hooksdir, const std::string& hook) {
  std::string path = hooksdir + hook, old = path + ".old";
  std::error_code ec;
  if (!fs::exists(path, ec)) return HookChange{path, "no " + hook + " hook: nothing to remove"};
  bool moved = false;
  if (!IsOurs(path, hook, &moved)) {
    return Status::Invalid(
        path + ": not proofgate's hook (or edited since it was written); left as it is");
  }
  fs::remove(path, ec);
  if (ec) return Status::Io(path + ": cannot remove it: " + ec.message());
  HookChange change{path, "removed"};
  if (moved && fs::exists(old, ec)) {  // only the .old that install moved there, never another
    fs::rename(old, path, ec);
    if (ec) return Status::Io(old + ": cannot put it back: " + ec.message());
    change.action = "removed; the hook it replaced is back";
  }
  return change;
}

}  // namespace pg
