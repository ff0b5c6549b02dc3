#include <sstream>

#include "gates/report/writers.h"

namespace pg {

std::string XmlText(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') break;
        out += static_cast<char>(c);
    }
  }
  return out;
}

namespace {

void WriteCase(const LegResult& leg, const std::string& suite, std::ostringstream& out) {
  out << "    <testcase classname=\"preflight." << XmlText(suite) << "\" name=\""
      << XmlText(leg.name) << "\" time=\"" << leg.wall_s << "\">\n";
  std::string message =
      std::string(OutcomeName(leg.outcome)) + (leg.note.empty() ? "" : ": " + leg.note);
  switch (leg.outcome) {
    case Outcome::kPass:
      break;
    case Outcome::kSkipped:
      out << "      <skipped message=\"" << XmlText(message) << "\"/>\n";
      break;
    case Outcome::kFail:
    case Outcome::kTimeout:
    case Outcome::kInherited:  // it did fail; the message says the base fails the same way
      out << "      <failure message=\"" << XmlText(message) << "\" type=\""
          << OutcomeName(leg.outcome) << "\">" << XmlText(leg.output_tail) << "</failure>\n";
      break;
    case Outcome::kContended:
    case Outcome::kError:
      out << "      <error message=\"" << XmlText(message) << "\" type=\""
          << OutcomeName(leg.outcome) << "\">" << XmlText(leg.output_tail) << "</error>\n";
      break;
  }
  if (!leg.log_path.empty())
    out << "      <system-out>log: " << XmlText(leg.log_path) << "</system-out>\n";
  out << "    </testcase>\n";
}

}  // namespace

std::string RunReportJunit(const RunReport& report) {
  std::string suite;
  for (const std::string& s : report.suites) suite += (suite.empty() ? "" : "+") + s;
  int failures = report.Count(Outcome::kFail) + report.Count(Outcome::kTimeout);
  int errors = report.Count(Outcome::kError) + report.Count(Outcome::kContended);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"proofgate\" tests=\"" << report.legs.size() << "\" failures=\""
      << failures << "\" errors=\"" << errors << "\" time=\"" << report.wall_s << "\">\n";
  out << "  <testsuite name=\"preflight." << XmlText(suite) << "\" tests=\"" << report.legs.size()
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\""
      << report.Count(Outcome::kSkipped) << "\" time=\"" << report.wall_s << "\" timestamp=\""
      << XmlText(report.started_at) << "\">\n";
  for (const LegResult& leg : report.legs) WriteCase(leg, suite, out);
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

}  // namespace pg
