#include "gates/generate/file_points.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "gates/generate/clang_database.h"
#include "gates/generate/clang_loader.h"

namespace pg {
namespace {

// Two parses found the same point when it rewrites the same bytes the same way.
using PointKey = std::tuple<size_t, size_t, Operator, std::string>;

PointKey KeyOf(const Point& p) { return {p.offset, p.original.size(), p.op, p.replacement}; }

void AddWarning(const std::string& warning, std::set<std::string>* seen, std::string* out) {
  if (warning.empty() || !seen->insert(warning).second) return;
  *out += (out->empty() ? "" : "; ") + warning;
}

}  // namespace

StatusOr<ParsedFile> FindPoints(const std::string& build_dir, const std::string& file,
                                const std::set<Operator>& ops, const std::string& header) {
  PG_RETURN_IF_ERROR(LoadLibclang());
  PG_ASSIGN_OR_RETURN(std::vector<std::vector<std::string>> commands,
                      ClangCommands(build_dir, file));
  ParsedFile out;
  std::set<PointKey> found;
  std::set<std::string> warnings;
  std::optional<Status> refused;  // the first configuration's that libclang did not parse
  std::string unparsed;
  size_t parsed = 0, tried = std::min(commands.size(), kMaxConfigurations);
  for (size_t i = 0; i < tried; ++i) {
    auto one = PointsWithArgs(commands[i], file, ops, header);
    auto older = one.ok() ? std::nullopt : OlderStandard(commands[i]);
    if (older) one = PointsWithArgs(*older, file, ops, header);
    if (!one.ok()) {
      if (!refused) refused = one.status();
      unparsed += (unparsed.empty() ? "" : "; ") + ConfigurationOf(commands[i]);
      continue;
    }
    if (parsed++ == 0) out.text = std::move(one->text);
    out.includes_test_framework = out.includes_test_framework || one->includes_test_framework;
    AddWarning(one->warning, &warnings, &out.warning);
    for (Point& p : one->points) {
      if (found.insert(KeyOf(p)).second) out.points.push_back(std::move(p));
    }
  }
  if (parsed == 0 && refused) return *refused;
  if (refused) {
    AddWarning(std::to_string(tried - parsed) + " of its " + std::to_string(tried) +
                   " configurations not parsed (libclang refused their commands): " + unparsed,
               &warnings, &out.warning);
  }
  if (commands.size() > kMaxConfigurations) {
    AddWarning("compiled " + std::to_string(commands.size()) + " ways; the first " +
                   std::to_string(kMaxConfigurations) + " parsed for mutants, " +
                   std::to_string(commands.size() - kMaxConfigurations) + " not",
               &warnings, &out.warning);
  }
  return out;
}

}  // namespace pg
