// The page every `--html FILE` is written in: one self-contained document (inline style and
// script, no network, no fonts), sections collapsed unless red, a filter that hides what passed.
// The verbs' pages (gates/report/html_report.cpp, gates/mutate/mutate_html.cpp,
// gates/prove/prove_html.cpp) fill its body; none of them decides anything.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pg {

// Text as HTML character data or a quoted attribute value: & < > " ' escaped, and bytes that
// are not valid UTF-8 (a binary's output in a log tail) replaced by U+FFFD so the page parses.
std::string HtmlText(std::string_view text);

// The whole document. `verdict_class` colours the heading ("ok", "bad", "warn").
std::string HtmlDocument(const std::string& title, const std::string& verdict_class,
                         const std::string& body);

// A collapsible section; `ok` sections are hidden by the "hide passing" filter, and sections
// that are not ok start open.
std::string HtmlDetails(const std::string& summary_html, const std::string& content_html, bool ok,
                        const std::string& id = "");

// Preformatted text (a log tail, a diff), escaped.
std::string HtmlPre(const std::string& text);

// A table: `header` cells, then rows whose first element is the row's class ("ok" rows are
// hidden by the filter) and the rest its cells, already HTML.
std::string HtmlTable(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows);

// An outcome word in its colour (pass, fail, timeout, contended, skipped, error, inherited,
// killed, survived, red-as-claimed, ...).
std::string HtmlBadge(std::string_view outcome);

// "key: value" lines as a definition list; values already HTML.
std::string HtmlFacts(const std::vector<std::pair<std::string, std::string>>& facts);

}  // namespace pg
