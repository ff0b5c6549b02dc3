// `proofgate install` and `uninstall`: the git hook that runs a suite before each commit or
// push, as lefthook's and pre-commit's do. Only a hook proofgate wrote (its marker line) is ever
// rewritten or removed; a hook someone else wrote is moved aside only when asked (--force),
// to `<hook>.old`, and put back by uninstall.
#pragma once

#include <string>

#include "gates/core/status.h"

namespace pg {

// The line that says a hook file is proofgate's.
inline constexpr const char* kHookMarker = "# proofgate-hook: written by `proofgate install`";

// The hooks proofgate writes.
bool IsKnownHook(const std::string& hook);  // pre-commit, pre-push

// The script: runs `proofgate preflight SUITE` (the binary at `proofgate`, else proofgate on
// PATH) in the working tree git runs hooks in; its exit code is the hook's.
// `moved`: it records that install moved another's hook to `hook.old` (uninstall puts that back).
// `root_dir`: where suites.json's root lies below the working tree's top ("" at the top).
std::string HookScript(const std::string& hook, const std::string& suite,
                       const std::string& proofgate, bool moved, const std::string& root_dir = "");

struct HookChange {
  std::string path;    // the hook file
  std::string action;  // what was done, in words
};

// Writes `hooksdir/hook` (0755). A proofgate hook there is rewritten; another is kInvalidInput
// naming it unless `force`, which moves it to `hook.old` (refused when that exists too).
StatusOr<HookChange> InstallHook(const std::string& hooksdir, const std::string& hook,
                                 const std::string& suite, const std::string& proofgate, bool force,
                                 const std::string& root_dir = "");

// Removes proofgate's `hooksdir/hook` (unedited) and puts back the `hook.old` install moved there.
// Another's hook, or proofgate's with lines added, is kInvalidInput, left as it is; no hook at all
// is nothing to do.
StatusOr<HookChange> UninstallHook(const std::string& hooksdir, const std::string& hook);

}  // namespace pg
