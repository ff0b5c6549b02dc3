// A run of legs as one HTML page (specs/reports.md): the timeline of legs with the machine's
// load under it on the same axis, then each leg's details.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gates/report/html_page.h"
#include "gates/report/writers.h"

namespace pg {
namespace {

constexpr double kLabelW = 200, kPlotW = 900, kRowH = 16, kLoadH = 110;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string Percent(const std::optional<double>& v) {
  return v ? std::to_string(static_cast<int>(std::lround(*v * 100))) + "%" : "absent";
}

// The time axis: from the run's start to whatever ended last.
double Span(const RunReport& report) {
  double end = report.wall_s;
  for (const LegResult& leg : report.legs) end = std::max(end, leg.started_s + leg.wall_s);
  if (!report.load_timeline.empty()) end = std::max(end, report.load_timeline.back().t);
  return std::max(end, 1e-3);
}

std::string Bar(double x0, double x1, double y, const std::string& cls, const std::string& title) {
  return "<rect class=\"" + cls + "\" x=\"" + Num(x0) + "\" y=\"" + Num(y + 2) + "\" width=\"" +
         Num(std::max(1.0, x1 - x0)) + "\" height=\"" + Num(kRowH - 4) + "\"><title>" +
         HtmlText(title) + "</title></rect>";
}

// One row: each earlier attempt, the quiet wait after it, then the reported attempt.
std::string LegRow(const LegResult& leg, double y, double span) {
  auto x = [&](double t) { return kLabelW + t / span * kPlotW; };
  std::string out = "<text x=\"4\" y=\"" + Num(y + kRowH - 4) + "\">" +
                    HtmlText(leg.name.substr(0, 30)) +
                    "</text>";  // proofgate: no-mutate (a label's baseline anywhere in its row
                                // draws the same chart)
  for (size_t i = 0; i < leg.attempts.size(); ++i) {
    const Attempt& a = leg.attempts[i];
    double next = i + 1 < leg.attempts.size() ? leg.attempts[i + 1].started_s : leg.started_s;
    std::string name(OutcomeName(a.outcome));
    out += Bar(x(a.started_s), x(a.started_s + a.wall_s), y, "o-" + name,
               leg.name + ": attempt " + std::to_string(i + 1) + ", " + name + ", " +
                   FormatSeconds(a.wall_s) + ", foreign " + Percent(a.load.foreign_mean) + "; " +
                   a.note);
    if (next > a.started_s + a.wall_s) {
      out +=
          Bar(x(a.started_s + a.wall_s), x(next), y, "quiet",
              leg.name + ": waited " + FormatSeconds(next - a.started_s - a.wall_s) + " for quiet");
    }
  }
  if (leg.outcome == Outcome::kSkipped || leg.cached) return out;
  std::string name(OutcomeName(leg.outcome));
  return out + Bar(x(leg.started_s), x(leg.started_s + leg.wall_s), y, "o-" + name,
                   leg.name + ": " + name + ", " + FormatSeconds(leg.wall_s) + ", foreign " +
                       Percent(leg.load.foreign_mean) + (leg.note.empty() ? "" : "; " + leg.note));
}

std::string Polyline(const RunReport& report, double top, double span, const char* cls,
                     double (*value)(const LoadPoint&)) {
  std::string points;
  for (const LoadPoint& p : report.load_timeline) {
    double v = value(p);
    if (std::isnan(v)) continue;
    points += Num(kLabelW + p.t / span * kPlotW) + "," +
              Num(top + kLoadH * (1 - std::clamp(v, 0.0, 1.0))) + " ";
  }
  return points.empty()
             ? ""
             : "<polyline class=\"" + std::string(cls) + "\" points=\"" + points + "\"/>";
}

std::string LoadChart(const RunReport& report, double top, double span) {
  std::string out = "<text x=\"4\" y=\"" + Num(top + 12) + "\">machine load</text>";
  out += "<rect x=\"" + Num(kLabelW) + "\" y=\"" + Num(top) + "\" width=\"" + Num(kPlotW) +
         "\" height=\"" + Num(kLoadH) + "\" fill=\"#f6f8fa\"/>";
  out += "<text x=\"4\" y=\"" + Num(top + 28) +
         "\" class=\"l-foreign\">foreign CPU</text><text x=\"4\" y=\"" + Num(top + 42) +
         "\" class=\"l-steal\">steal</text><text x=\"4\" y=\"" + Num(top + 56) +
         "\" class=\"l-psi\">PSI cpu (avg10)</text><text x=\"" + Num(kLabelW - 30) + "\" y=\"" +
         Num(top + 10) + "\">100%</text><text x=\"" + Num(kLabelW - 20) + "\" y=\"" +
         Num(top + kLoadH) + "\">0%</text>";
  out += Polyline(report, top, span, "foreign", [](const LoadPoint& p) { return p.foreign; });
  out += Polyline(report, top, span, "steal", [](const LoadPoint& p) { return p.steal; });
  out += Polyline(report, top, span, "psi",
                  [](const LoadPoint& p) { return p.psi_cpu ? *p.psi_cpu / 100 : std::nan(""); });
  return out;
}

std::string Axis(double y, double span) {
  double step = std::pow(10, std::floor(std::log10(span / 5)));
  if (span / step > 10) step *= span / step > 25 ? 5 : 2;
  std::string out;
  for (double t = 0; t <= span + 1e-9; t += step) {
    double x = kLabelW + t / span * kPlotW;
    out += "<line x1=\"" + Num(x) + "\" x2=\"" + Num(x) + "\" y1=\"0\" y2=\"" + Num(y) +
           "\" stroke=\"#eaeef2\"/>";
    out +=
        "<text x=\"" + Num(x + 2) + "\" y=\"" + Num(y + 12) + "\">" + FormatSeconds(t) + "</text>";
  }
  return out;
}

std::string Timeline(const RunReport& report) {
  double span = Span(report);
  double legs_h = kRowH * static_cast<double>(report.legs.size());
  bool load = !report.load_timeline.empty();
  double height = legs_h + (load ? kLoadH + 10 : 0) + 20;
  std::string svg =
      "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
      Num(kLabelW + kPlotW + 10) + "\" height=\"" + Num(height) +
      "\">"
      "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"2\" height=\"6\" "
      "fill=\"#8c959f\"/></pattern></defs>"
      "<style>.quiet{fill:url(#hatch)}polyline{fill:none;stroke-width:1.5}.foreign{stroke:#cf222e}"
      ".steal{stroke:#bc4c00}.psi{stroke:#0969da}.l-foreign{fill:#cf222e}.l-steal{fill:#bc4c00}"
      ".l-psi{fill:#0969da}rect[class^=o-]{stroke:#fff}</style>";
  double chart_bottom = legs_h + (load ? kLoadH + 10 : 0);
  svg += Axis(chart_bottom, span);
  for (size_t i = 0; i < report.legs.size(); ++i)
    svg += LegRow(report.legs[i], kRowH * static_cast<double>(i), span);
  if (load) svg += LoadChart(report, legs_h + 10, span);
  return svg + "</svg>\n";
}

std::string Code(const std::string& text) { return "<code>" + HtmlText(text) + "</code>"; }

std::string ExitText(const std::optional<int>& exit_code, int signal) {
  if (signal != 0) return "killed by signal " + std::to_string(signal);
  return exit_code ? "exit " + std::to_string(*exit_code) : "did not run";
}

std::string LoadText(const LoadEvidence& e) {
  std::string text = LoadReadingText(e);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text + " (" + std::to_string(e.samples) + " samples)";
}

std::string RunFactsHtml(const RunReport& report) {
  std::string suites;
  for (const std::string& s : report.suites) suites += (suites.empty() ? "" : ", ") + s;
  std::vector<std::pair<std::string, std::string>> facts = {
      {"suites", HtmlText(suites)},
      {"tree", Code(report.tree_hash.empty() ? "(not a git tree)" : report.tree_hash)},
      {"toolchain", Code(report.toolchain)},
      {"run", HtmlText(report.run_id + ", started " + report.started_at)},
      {"root", Code(report.root)}};
  if (!report.tree_hash_after.empty() && report.tree_hash_after != report.tree_hash) {
    std::string how = TreeChangesText(report.tree_changes, 20);
    facts.insert(facts.begin() + 2,
                 {"tree after", Code(report.tree_hash_after) + " (changed during the run" +
                                    (how.empty() ? "" : ": " + HtmlText(how)) + ")"});
  }
  if (report.shard_count > 0)
    facts.push_back({"shard", std::to_string(report.shard_index) + " of " +
                                  std::to_string(report.shard_count)});
  std::string from;
  for (const std::string& f : report.merged_from) from += (from.empty() ? "" : ", ") + f;
  if (!from.empty()) facts.push_back({"merged from", HtmlText(from)});
  if (report.interrupted) facts.push_back({"interrupted", "yes"});
  return HtmlFacts(facts);
}

std::string LegDetailsHtml(const LegResult& leg) {
  std::string argv;
  for (const std::string& a : leg.argv) argv += (argv.empty() ? "" : " ") + a;
  std::vector<std::pair<std::string, std::string>> facts = {
      {"argv", Code(argv)},
      {"cwd", Code(leg.cwd)},
      {"exit", HtmlText(ExitText(leg.exit_code, leg.signal))},
      {"wall / cpu", FormatSeconds(leg.wall_s) + " / " + FormatSeconds(leg.cpu_s)},
      {"load", HtmlText(LoadText(leg.load))}};
  if (!leg.note.empty()) facts.push_back({"note", HtmlText(leg.note)});
  if (!leg.log_path.empty()) facts.push_back({"log", Code(leg.log_path)});
  if (!leg.base_log_path.empty()) facts.push_back({"base log", Code(leg.base_log_path)});
  if (leg.timing)
    facts.push_back({"timing", "yes: a failure under foreign load is contended, not failed"});
  std::string content = HtmlFacts(facts);
  for (size_t i = 0; i < leg.attempts.size(); ++i) {
    const Attempt& a = leg.attempts[i];
    content += "<p>Attempt " + std::to_string(i + 1) + ": " + HtmlBadge(OutcomeName(a.outcome)) +
               " " +
               HtmlText(ExitText(a.exit_code, a.signal) + ", " + FormatSeconds(a.wall_s) + "; " +
                        a.note + "; " + LoadText(a.load)) +
               "</p>\n";
    if (!a.output_tail.empty()) content += HtmlPre(a.output_tail);
  }
  if (!leg.output_tail.empty()) content += HtmlPre(leg.output_tail);
  bool ok = leg.outcome == Outcome::kPass || leg.outcome == Outcome::kSkipped;
  std::string summary = "<b>" + HtmlText(leg.name) + "</b> " +
                        HtmlBadge(leg.cached ? "cached" : OutcomeName(leg.outcome)) + " " +
                        FormatSeconds(leg.wall_s);
  return HtmlDetails(summary, content, ok, "leg-" + leg.name);
}

// Whether the sampler measured any interval of any attempt: a run with no timeline point then
// only ended before the first one.
bool AnyLegSampled(const RunReport& report) {
  for (const LegResult& leg : report.legs) {
    if (leg.load.samples > 0) return true;
    for (const Attempt& a : leg.attempts) {
      if (a.load.samples > 0) return true;
    }
  }
  return false;
}

}  // namespace

std::string RunReportHtml(const RunReport& report) {
  std::string body = "<p>" + HtmlBadge(ExitCodeName(report.exit_code)) + " exit " +
                     std::to_string(static_cast<int>(report.exit_code)) + ", " +
                     std::to_string(report.legs.size()) + " legs in " +
                     FormatSeconds(report.wall_s) + "</p>\n";
  body += RunFactsHtml(report);
  body += "<h2>Timeline</h2>\n";
  if (!report.merged_from.empty()) {
    body += "<p class=\"muted\">Merged from " + std::to_string(report.merged_from.size()) +
            " shards: each leg is drawn from its own shard's start, and no machine load is plotted "
            "(each shard "
            "sampled its own machine; its own report has its load).</p>\n";
  } else if (report.load_timeline.empty() && AnyLegSampled(report)) {
    body +=
        "<p class=\"muted\">No load timeline: the run ended within one sampling interval; each "
        "leg's load is in its "
        "details.</p>\n";
  } else if (report.load_timeline.empty()) {
    body += "<p class=\"muted\">No load readings: this machine's /proc could not be sampled.</p>\n";
  }
  body += Timeline(report);
  body += "<h2>Legs</h2>\n";
  for (const LegResult& leg : report.legs) body += LegDetailsHtml(leg);
  std::string cls = report.exit_code == ExitCode::kPass        ? "ok"
                    : report.exit_code == ExitCode::kContended ? "warn"
                                                               : "bad";
  return HtmlDocument(
      "proofgate " + report.verb + ": " + std::string(ExitCodeName(report.exit_code)), cls, body);
}

}  // namespace pg
