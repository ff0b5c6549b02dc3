#include "gates/specs/spec_doc.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "gates/config/json_source.h"

namespace pg {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string LegName(const std::string& stem, int line) {
  std::string name;
  for (char c : stem)
    name +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '_';
  return name + "." + std::to_string(line);
}

}  // namespace

StatusOr<SpecDoc> ParseSpec(const std::string& path, const std::string& text) {
  SpecDoc doc;
  doc.path = path;
  doc.stem = std::filesystem::path(path).stem().string();
  std::istringstream in(text);
  std::string line, section;
  bool fenced = false;
  int gates_line = 0;  // proofgate: no-mutate (read only when "## Gates" was found and set it)
  for (int n = 1; std::getline(in, line); ++n) {
    if (Trim(line).rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (!fenced && line.rfind("## ", 0) == 0) {
      section = Trim(line.substr(3));
      doc.sections.push_back(section);
      if (section == "Gates") gates_line = n;
      continue;
    }
    std::string command = Trim(line);
    if (fenced && section == "Gates" && !command.empty() && command[0] != '#')
      doc.gates.push_back({n, command});
  }
  for (const char* required : kRequiredSpecSections) {
    if (std::find(doc.sections.begin(), doc.sections.end(), required) == doc.sections.end()) {
      return Status::Invalid(path + ":1: missing section \"## " + std::string(required) + "\"");
    }
  }
  if (doc.gates.empty()) {
    return Status::Invalid(path + ":" + std::to_string(gates_line) +
                           ": \"## Gates\" has no fenced command to run");
  }
  return doc;
}

SuiteConfig SpecGatesConfig(const std::vector<SpecDoc>& specs) {
  SuiteConfig config;
  config.path = "specs";
  Suite suite{"specs", {}};
  for (const SpecDoc& spec : specs) {
    std::string previous;
    for (const SpecGate& gate : spec.gates) {
      Leg leg;
      leg.name = LegName(spec.stem, gate.line);
      leg.argv = {"sh", "-c", gate.command};
      if (!previous.empty()) leg.needs = {previous};
      Json definition = {{"run", gate.command}, {"spec", spec.path}, {"needs", leg.needs}};
      leg.definition = definition.dump();
      previous = leg.name;
      suite.legs.push_back(leg.name);
      config.legs.push_back(std::move(leg));
    }
  }
  config.suites.push_back(std::move(suite));
  return config;
}

}  // namespace pg
