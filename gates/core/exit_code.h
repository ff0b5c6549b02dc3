// The one place proofgate's exit codes are defined, and the one function from a run's results
// to its code (specs/exit-codes.md). Every verb maps its own results (legs, mutants, gates,
// records) to a ResultClass, lit-style; the precedence between them lives only here.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "gates/core/status.h"

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

// What one result means for its run, in ascending rank: a run takes its highest-ranked
// result's code. kUnproven (skipped because a need failed, nothing checked) yields to
// timeouts and contention, which explain it; alone it still fails.
enum class ResultClass { kPass, kStale, kUnproven, kContended, kTimeout, kFail };

bool IsFailure(ResultClass c);
ExitCode ExitCodeOf(ResultClass c);

// The run's exit code: 130 when interrupted, else its highest-ranked result's, 0 for none.
ExitCode RunExitCode(std::span<const ResultClass> results, bool interrupted = false);

// Maps a library error (before or instead of a run) to the exit code main returns for it.
ExitCode ExitCodeFor(const Status& status);

std::string_view ExitCodeName(ExitCode code);

// Every code with its meaning as README.md's table says it (checked by ExitCodes.*).
struct ExitCodeMeaning {
  ExitCode code;
  std::string_view meaning;
};
extern const std::array<ExitCodeMeaning, 8> kExitCodes;

}  // namespace pg
