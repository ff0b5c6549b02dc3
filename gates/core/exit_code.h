// The one place proofgate's exit codes are defined (DESIGN.md "proofgate verbs").
#pragma once

#include <string_view>

#include "core/status.h"

namespace pg {

enum class ExitCode : int {
  kPass = 0,
  kGateFailed = 1,
  kInvalidInput = 2,
  kTimedOut = 3,
  kContended = 4,
  kStale = 5,
  kInternal = 70,
  kInterrupted = 130,  // 128 + SIGINT, as shells report it
};

// Maps a library error to the exit code main returns for it.
ExitCode ExitCodeFor(const Status& status);

std::string_view ExitCodeName(ExitCode code);

}  // namespace pg
