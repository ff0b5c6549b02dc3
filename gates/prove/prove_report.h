// What `proofgate prove` prints: a table and its summary lines, or one JSON document.
#pragma once

#include <ostream>
#include <string>

#include "gates/prove/prove.h"

namespace pg {

void WriteProveTable(const ProveReport& report, std::ostream& out);
std::string ProveReportJson(const ProveReport& report);
// "red before 2/3, green after 3/3".
std::string ProveSummary(const ProveReport& report);

}  // namespace pg
