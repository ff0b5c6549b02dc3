// Gate the tree that would land: merge HEAD into a base in memory, run the suites on that
// merged tree, and keep the verdict as a git note so a later check can tell whether it still
// describes what would land.
#pragma once

#include <string>
#include <vector>

#include "gates/runner/preflight.h"

namespace pg {

inline constexpr char kNotesRef[] = "refs/notes/proofgate";

struct GateOntoResult {
  std::vector<std::string> conflicts;  // non-empty: nothing ran
  std::string base, head, merged_tree;
  RunReport report;
};

// `options.root` is the repository; suites run in a scratch checkout of the merged tree.
StatusOr<GateOntoResult> GateOnto(const std::string& onto, PreflightOptions options);

// What `gate --verify` found (specs/exit-codes.md): pass; stale when the base moved; unproven
// when HEAD has no verdict of proofgate's; fail when HEAD no longer merges cleanly or its
// verdict failed. A ref that does not resolve is kInvalidInput, a merge that cannot be
// computed an I/O error.
struct GateVerification {
  ResultClass result = ResultClass::kUnproven;
  std::string message;
};

StatusOr<GateVerification> VerifyGate(const std::string& root, const std::string& onto);

}  // namespace pg
