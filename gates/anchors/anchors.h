// `path:line` anchors in Markdown, each followed by the text it points at, re-verified
// against the tree: an anchor copied from an older revision says where its text went.
#pragma once

#include <string>
#include <vector>

#include "gates/core/status.h"

namespace pg {

struct Anchor {
  std::string doc;   // the Markdown file, relative to the root
  int doc_line = 0;  // where the anchor is written
  std::string rev;  // pinned: the revision whose tree it is checked against ("" = the working tree)
  std::string path;  // what it points at
  int line = 0;
  int line_end = 0;           // a range LINE-END (0: one line)
  std::string lines_written;  // "12" or "12-14", as the document writes them
  std::string text;           // the quoted text
  size_t line_offset = 0;     // byte offset of the line number (or range) inside the document
  size_t line_length = 0;
  std::string Where() const;  // "rev:path:12-14" as written
};

enum class AnchorState { kHolds, kMoved, kTextGone, kFileGone, kRevGone };

struct AnchorResult {
  Anchor anchor;
  AnchorState state = AnchorState::kHolds;
  int found_at = 0;             // kMoved: the nearest line holding the text
  std::string Message() const;  // "README.md:12: a.cpp:42 → text found at :57"
};

// Anchors in one Markdown document's text: `path:LINE` or `path:LINE-END`, optionally pinned to
// a revision as `REV:path:LINE`, followed by the quoted or backticked text.
std::vector<Anchor> ScanAnchors(const std::string& doc, const std::string& text);

// A pinned anchor is read from git's object database at its revision (root must be in a
// repository); an unpinned one from the working tree.
AnchorResult CheckAnchor(const Anchor& anchor, const std::string& root);

// Markdown files under `root` (skipping .git, build*, node_modules), relative, sorted.
std::vector<std::string> MarkdownFiles(const std::string& root);

// Rewrites the moved anchors' line numbers in their documents; returns how many changed.
StatusOr<int> FixAnchors(const std::vector<AnchorResult>& results, const std::string& root);

}  // namespace pg
