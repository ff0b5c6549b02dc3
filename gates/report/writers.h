// Report writers: each renders the same RunReport; none of them decides anything.
#pragma once

#include <ostream>
#include <string>

#include "gates/runner/leg_result.h"

namespace pg {

// One JSON document (schema_version 1): what --json prints and CI shards upload.
std::string RunReportJson(const RunReport& report);
// What `--json` prints when a verb ends in an error before its report (exit 2, 70): the
// message a CI step parsing stdout would otherwise not see.
std::string ErrorReportJson(const std::string& verb, const std::string& message,
                            ExitCode exit_code);
// One leg as a line of JSON (the report's leg object): what preflight appends to
// <log-dir>/legs.jsonl as each leg finishes.
std::string LegJsonLine(const LegResult& leg);
// JUnit XML as CI systems read it: one testcase per leg.
std::string RunReportJunit(const RunReport& report);
// Markdown for a CI step summary.
std::string RunReportMarkdown(const RunReport& report);
// One self-contained HTML page (specs/reports.md): timeline, load, each leg's details.
std::string RunReportHtml(const RunReport& report);
// The human table printed on stdout by default.
void WriteRunTable(const RunReport& report, std::ostream& out, bool color);

// `proofgate load`: one reading as a line of text or of JSON.
std::string LoadReadingText(const LoadEvidence& evidence);
std::string LoadReadingJson(const LoadEvidence& evidence);

// Text escaped for XML 1.0 (markup escaped, control characters XML cannot carry dropped).
std::string XmlText(const std::string& text);

// `s` padded with spaces to `width` columns (bytes; longer strings are left as they are).
std::string Pad(const std::string& s, size_t width);

// "12.3s", "850ms": durations as the table and the summaries print them.
std::string FormatSeconds(double seconds);

}  // namespace pg
