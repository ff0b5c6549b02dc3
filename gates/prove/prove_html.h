// A prove run as one HTML page (specs/reports.md): red before, green after, broken and lost.
#pragma once

#include <string>

#include "gates/prove/prove.h"

namespace pg {

std::string ProveReportHtml(const ProveReport& report);

}  // namespace pg
