// A mutate run (declared or generated, or shards merged) as one HTML page (specs/reports.md).
#pragma once

#include <string>

#include "gates/mutate/mutate_run.h"

namespace pg {

std::string MutateReportHtml(const MutateReport& report);

}  // namespace pg
