// specs/<feature>.md: the sections every spec must have, and the commands under `## Gates`.
#pragma once

#include <string>
#include <vector>

#include "gates/config/suite_config.h"
#include "gates/core/status.h"

namespace pg {

struct SpecGate {
  int line = 0;  // in the spec file
  std::string command;
};

struct SpecDoc {
  std::string path;                   // as given, for messages
  std::string stem;                   // file name without .md, used in leg names
  std::vector<std::string> sections;  // "## " headings, in order
  std::vector<SpecGate> gates;
};

inline const char* const kRequiredSpecSections[] = {"Scope", "Gates", "Owed"};

// kInvalidInput "path:line: ..." for a missing section or a `## Gates` without commands.
StatusOr<SpecDoc> ParseSpec(const std::string& path, const std::string& text);

// One leg per gate command ("stem.LINE", run by sh -c from the root); each spec's legs run in
// order (each needs the one before), in a suite named "specs".
SuiteConfig SpecGatesConfig(const std::vector<SpecDoc>& specs);

}  // namespace pg
