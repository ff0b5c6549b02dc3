// What `proofgate mutate` reports: a table on stdout, JSON, JUnit, and the generated table in
// a spec. None of them decides anything; each renders the same MutateReport.
#pragma once

#include <ostream>
#include <string>

#include "gates/core/exit_code.h"
#include "gates/core/status.h"
#include "gates/mutate/catalog.h"
#include "gates/mutate/mutate_run.h"

namespace pg {

void WriteMutateTable(const MutateReport& report, std::ostream& out, bool color);
std::string MutateReportJson(const MutateReport& report);
std::string MutateReportJunit(const MutateReport& report);
// Markdown for a CI step summary: verdict, counts, the mutation score of generated mutants, a
// row per mutant not as claimed, and each generated survivor's diff.
std::string MutateReportMarkdown(const MutateReport& report);
// SARIF 2.1.0: each surviving generated mutant as a `surviving-mutant` result at its place.
std::string MutateReportSarif(const MutateReport& report);

// `spec_text` with the table between the mutation markers rewritten: one row per mutation and
// combo of `catalog`, from `report` where it ran, else the row the table already had. The
// marker line names `verified_at` (a commit) when it is not empty.
StatusOr<std::string> UpdateSpecTable(const std::string& spec_path, const std::string& spec_text,
                                      const Catalog& catalog, const MutateReport& report,
                                      const std::string& verified_at);

// The commit a spec's generated table says it was verified at; empty when it names none.
std::string TableVerifiedAt(const std::string& spec_text);

// Generated mutants' killed / (killed + survived); -1 when none was either.
double MutationScore(const MutateReport& report);

// What a mutant's outcome means for its run: as claimed passes, a timeout is a timeout.
ResultClass ClassOf(const MutantResult& r);

// The run's exit code (specs/exit-codes.md): a baseline not green fails it.
int MutateExitCode(const MutateReport& report);

}  // namespace pg
