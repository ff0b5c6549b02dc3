// What CI systems read besides the report files (specs/reports.md): GitHub Actions' workflow
// commands (annotations, log groups, the step summary) and GitLab's Code Quality JSON.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gates/core/status.h"
#include "gates/runner/leg_result.h"

namespace pg {

enum class CiSystem { kNone, kGithub, kGitlab };

// `--ci auto|github|gitlab|none`: auto is GitHub under GITHUB_ACTIONS=true, GitLab under
// GITLAB_CI=true, else none. An unknown name is kInvalidInput naming the flag.
StatusOr<CiSystem> ResolveCi(const std::string& flag);

struct Annotation {
  std::string level = "error";  // error, warning, notice
  std::string file;             // relative to the repository root; empty: no place
  int line = 0;                 // 0: the whole file
  std::string title, message;
  std::string check;  // Code Quality's check_name: "failing-test", "surviving-mutant", ...
};

// GitHub shows at most 10 error annotations of a step: more are one warning that counts them.
inline constexpr size_t kMaxAnnotations = 10;
// GitHub's limit on one step's summary file.
inline constexpr size_t kStepSummaryLimit = 1024 * 1024;

// Workflow-command escaping, as the runner unescapes: data (%, CR, LF) and properties (also : ,).
std::string WorkflowData(std::string_view text);
std::string WorkflowProperty(std::string_view text);

// `::error file=F,line=L,title=T::MESSAGE` lines, at most kMaxAnnotations, then one
// `::warning::` saying how many more there were.
std::string GithubAnnotations(const std::vector<Annotation>& annotations);
// `::group::TITLE`, the text, `::endgroup::`.
std::string GithubGroup(const std::string& title, const std::string& text);
// `markdown` cut at a line so that it fits in `limit` bytes with a closing note that says how
// much was left out and where the whole report is (`full_report`, may be empty).
std::string FitStepSummary(const std::string& markdown, size_t limit,
                           const std::string& full_report);
// Appends to the file $GITHUB_STEP_SUMMARY names, within what earlier steps' lines left of the
// limit; nothing when the variable is unset.
Status AppendStepSummary(const std::string& markdown, const std::string& full_report);

// GitLab Code Quality: a JSON array of {description, check_name, fingerprint, severity,
// location: {path, lines: {begin}}}; annotations without a file are left out (it needs one).
std::string CodeQualityJson(const std::vector<Annotation>& annotations);

// A run of legs: each failing test case's place (read from the leg's log, else its output
// tail), a leg that failed without one as an annotation without a place, contended legs as
// warnings. Paths are made relative to the run's root.
std::vector<Annotation> RunAnnotations(const RunReport& report);
// A group with the output tail of each leg that ran (GitHub shows them folded).
std::string RunGroups(const RunReport& report);

}  // namespace pg
