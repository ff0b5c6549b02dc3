// A mutate run's problems as CI annotations (gates/report/ci_output.h): each surviving generated
// mutant at its place, each declared mutant not as claimed at its file.
#pragma once

#include <vector>

#include "gates/mutate/mutate_run.h"
#include "gates/report/ci_output.h"

namespace pg {

std::vector<Annotation> MutateAnnotations(const MutateReport& report);

}  // namespace pg
