// `proofgate anchors check [--fix] [FILE...]`: path:line anchors in Markdown still point at their
// text.
#include "gates/anchors/anchors.h"

#include <filesystem>
#include <iostream>

#include "gates/cli/cli.h"
#include "gates/core/exit_code.h"
#include "gates/core/file_io.h"

namespace pg::cli {

int RunAnchorsCheck(const CommonFlags& common, std::vector<std::string> docs, bool fix,
                    bool allow_empty) {
  std::string root = ProjectRoot(common);
  if (docs.empty()) docs = pg::MarkdownFiles(root);
  std::vector<pg::AnchorResult> results;
  for (const std::string& doc : docs) {
    auto text = pg::ReadFile(std::filesystem::path(doc).is_absolute() ? doc : root + "/" + doc);
    if (!text.ok()) return Fail(text.status());
    for (const pg::Anchor& a : pg::ScanAnchors(doc, *text))
      results.push_back(pg::CheckAnchor(a, root));
  }
  int stale = 0, gone = 0;
  for (const pg::AnchorResult& r : results) {
    if (r.state == pg::AnchorState::kHolds) {
      if (common.verbose) std::cout << r.Message() << "\n";
      continue;
    }
    std::cout << r.Message() << (fix && r.state == pg::AnchorState::kMoved ? " (fixed)" : "")
              << "\n";
    ++(r.state == pg::AnchorState::kMoved ? stale : gone);
  }
  if (fix) {
    auto fixed = pg::FixAnchors(results, root);
    if (!fixed.ok()) return Fail(fixed.status());
    stale = 0;
  }
  std::vector<pg::Annotation> stale_places;  // what a CI shows at each document line
  for (const pg::AnchorResult& r : results) {
    if (r.state == pg::AnchorState::kHolds || (fix && r.state == pg::AnchorState::kMoved)) continue;
    stale_places.push_back({"error", r.anchor.doc, r.anchor.doc_line,
                            "stale anchor " + r.anchor.Where(), r.Message(), "stale-anchor"});
  }
  pg::Status emitted = EmitCi(common, "", stale_places, "");
  if (!emitted.ok()) return Fail(emitted);
  if (!common.quiet)
    std::cerr << "anchors: " << results.size() << " checked, " << stale + gone << " stale\n";
  // Each anchor that no longer holds (and was not fixed) fails the check.
  std::vector<pg::ResultClass> classes(static_cast<size_t>(stale + gone), pg::ResultClass::kFail);
  if (results.empty()) {
    std::cerr << "anchors: nothing checked: no anchors in " << docs.size() << " files"
              << (allow_empty ? " (--allow-empty: accepted)" : "") << "\n";
    if (!allow_empty) classes.push_back(pg::ResultClass::kUnproven);
  }
  return static_cast<int>(pg::RunExitCode(classes));
}

}  // namespace pg::cli
