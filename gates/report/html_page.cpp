#include "gates/report/html_page.h"

#include <cstdint>

#include "gates/core/utf8.h"

namespace pg {
namespace {

// Styles: outcome colours, the timeline, and the filter's effect. Kept short: a page for 500
// legs carries it once.
constexpr std::string_view kStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1d2125;background:#fff}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;margin:1.2em 0 .4em}
h1.ok{color:#1a7f37}h1.bad{color:#cf222e}h1.warn{color:#9a6700}
table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #d0d7de;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa}pre{background:#f6f8fa;padding:.5em;overflow:auto;max-height:30em;margin:.3em 0}
details{border:1px solid #d0d7de;border-radius:4px;margin:.3em 0;padding:.2em .5em}
summary{cursor:pointer}dl{display:grid;grid-template-columns:max-content auto;gap:0 1em;margin:.3em 0}
dt{color:#57606a}dd{margin:0;word-break:break-all}
.badge{display:inline-block;border-radius:3px;padding:0 5px;color:#fff;font-size:.9em}
.o-pass,.o-killed,.o-red-as-claimed,.o-green-as-claimed,.o-proven,.o-cached{background:#1a7f37;fill:#1a7f37}
.o-fail,.o-survived,.o-error,.o-broken,.o-not-proven,.o-red-other,.o-not-green,.o-red-after{background:#cf222e;fill:#cf222e}
.o-timeout,.o-unviable{background:#bc4c00;fill:#bc4c00}.o-contended{background:#8250df;fill:#8250df}
.o-skipped,.o-not-run{background:#6e7781;fill:#6e7781}.o-inherited{background:#7d4e00;fill:#7d4e00}
svg text{font:11px system-ui,sans-serif}.muted{color:#57606a}
body.hide-ok .ok{display:none}
)";

// The filter: the page reads fine without it (everything shown).
constexpr std::string_view kScript = R"(
document.getElementById('pg-hide-ok').addEventListener('change', function (e) {
  document.body.classList.toggle('hide-ok', e.target.checked);
});
)";

}  // namespace

std::string HtmlText(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size();) {
    size_t n = Utf8Length(text, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
      continue;
    }
    char c = text[i];
    if (n > 1)
      out.append(text.substr(i, n));
    else if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else if (c == '\'')
      out += "&#39;";
    else if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r')
      out += "\xef\xbf\xbd";
    else
      out += c;
    i += n;
  }
  return out;
}

std::string HtmlDocument(const std::string& title, const std::string& verdict_class,
                         const std::string& body) {
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
      HtmlText(title) + "</title>\n<style>" + std::string(kStyle) +
      "</style></head>\n<body>\n<h1 class=\"" + verdict_class + "\">" + HtmlText(title) +
      "</h1>\n" + "<label><input type=\"checkbox\" id=\"pg-hide-ok\"> hide what passed</label>\n";
  page += body;
  page += "\n<script>" + std::string(kScript) + "</script>\n</body></html>\n";
  return page;
}

std::string HtmlDetails(const std::string& summary_html, const std::string& content_html, bool ok,
                        const std::string& id) {
  std::string open = ok ? "" : " open";
  std::string anchor = id.empty() ? "" : " id=\"" + HtmlText(id) + "\"";
  return "<details class=\"" + std::string(ok ? "ok" : "bad") + "\"" + anchor + open +
         "><summary>" + summary_html + "</summary>\n" + content_html + "</details>\n";
}

std::string HtmlPre(const std::string& text) { return "<pre>" + HtmlText(text) + "</pre>\n"; }

std::string HtmlTable(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table><thead><tr>";
  for (const std::string& h : header) out += "<th>" + HtmlText(h) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const std::vector<std::string>& row : rows) {
    out += "<tr class=\"" + (row.empty() ? std::string() : row[0]) + "\">";
    for (size_t i = 1; i < row.size(); ++i) out += "<td>" + row[i] + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string HtmlBadge(std::string_view outcome) {
  std::string cls;
  for (char c : outcome) cls += c == ' ' ? '-' : c;
  return "<span class=\"badge o-" + HtmlText(cls) + "\">" + HtmlText(outcome) + "</span>";
}

std::string HtmlFacts(const std::vector<std::pair<std::string, std::string>>& facts) {
  std::string out = "<dl>";
  for (const auto& [key, value] : facts)
    out += "<dt>" + HtmlText(key) + "</dt><dd>" + value + "</dd>";
  return out + "</dl>\n";
}

}  // namespace pg
