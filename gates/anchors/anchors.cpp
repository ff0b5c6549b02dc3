#include "gates/anchors/anchors.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "gates/core/file_io.h"
#include "gates/core/integer_text.h"
#include "gates/git/git.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// No file has this many lines: a larger number (one past long's range included) is a line
// that cannot hold, kept small enough that a line plus its range never overflows an int.
constexpr long kMaxLine = 100'000'000;

int LineNumber(const std::string& digits) {
  return static_cast<int>(std::min(ParseInteger(digits).value_or(kMaxLine), kMaxLine));
}

}  // namespace

std::vector<Anchor> ScanAnchors(const std::string& doc, const std::string& text) {
  static const std::regex kAnchor(
      R"re(`(?:([A-Za-z0-9_.^~/@{}-]+):)?([A-Za-z0-9_./+-]+):(\d+)(?:-(\d+))?`[ \t]+(?:"([^"\n]+)"|`([^`\n]+)`))re");
  std::vector<Anchor> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kAnchor);
       it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    Anchor a;
    a.doc = doc;
    a.doc_line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + m.position(0), '\n'));
    a.rev = m[1].str();
    a.path = m[2].str();
    a.line = LineNumber(m[3].str());
    a.line_end = m[4].matched ? LineNumber(m[4].str()) : 0;
    a.lines_written = m[3].str() + (m[4].matched ? "-" + m[4].str() : "");
    a.text = Trim(m[5].matched ? m[5].str() : m[6].str());
    a.line_offset = static_cast<size_t>(m.position(3));
    a.line_length = static_cast<size_t>(m[4].matched ? m.position(4) + m.length(4) - m.position(3)
                                                     : m.length(3));
    if (!a.text.empty()) out.push_back(std::move(a));
  }
  return out;
}

std::string Anchor::Where() const {
  return (rev.empty() ? "" : rev + ":") + path + ":" + lines_written;
}

namespace {

// The file as the anchor sees it: at its revision when pinned, else in the working tree.
StatusOr<std::string> AnchoredText(const Anchor& anchor, const std::string& root,
                                   AnchorState* gone) {
  if (anchor.rev.empty()) {
    *gone = AnchorState::kFileGone;
    return ReadFile(root + "/" + anchor.path);
  }
  *gone = AnchorState::kRevGone;
  PG_ASSIGN_OR_RETURN(std::string commit, git::ResolveCommit(root, anchor.rev));
  *gone = AnchorState::kFileGone;
  return git::FileAt(root, commit, anchor.path);
}

}  // namespace

AnchorResult CheckAnchor(const Anchor& anchor, const std::string& root) {
  AnchorResult r{anchor};
  auto text = AnchoredText(anchor, root, &r.state);
  if (!text.ok()) return r;
  r.state = AnchorState::kHolds;
  std::vector<std::string> lines = Lines(*text);
  int span = anchor.line_end > anchor.line ? anchor.line_end - anchor.line : 0;
  auto holds = [&](int n) {
    return n >= 1 && n <= static_cast<int>(lines.size()) &&
           lines[n - 1].find(anchor.text) != std::string::npos;
  };
  for (int n = anchor.line; n <= std::min(anchor.line + span, static_cast<int>(lines.size()));
       ++n) {
    if (holds(n)) return r;
  }
  int best = 0;
  for (int n = 1; n <= static_cast<int>(lines.size()); ++n) {
    if (holds(n) && (best == 0 || std::abs(n - anchor.line) < std::abs(best - anchor.line)))
      best = n;
  }
  r.state = best ? AnchorState::kMoved : AnchorState::kTextGone;
  r.found_at = best;
  return r;
}

std::string AnchorResult::Message() const {
  std::string head = anchor.doc + ":" + std::to_string(anchor.doc_line) + ": " + anchor.Where();
  switch (state) {
    case AnchorState::kHolds:
      return head + " holds";
    case AnchorState::kMoved:
      return head + " → text found at :" + std::to_string(found_at);
    case AnchorState::kTextGone:
      return head + ": text \"" + anchor.text + "\" is gone from " +
             (anchor.rev.empty() ? "" : anchor.rev + ":") + anchor.path;
    case AnchorState::kFileGone:
      return head + ": " + (anchor.rev.empty() ? "" : anchor.rev + ":") + anchor.path + " is gone";
    case AnchorState::kRevGone:
      return head + ": revision " + anchor.rev + " is not in this repository";
  }
  return head;
}

std::vector<std::string> MarkdownFiles(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_directory(ec) &&
        (name[0] == '.' || name.rfind("build", 0) == 0 || name == "node_modules")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && it->path().extension() == ".md")
      out.push_back(RelativePath(it->path().generic_string(), root));
  }
  std::sort(out.begin(), out.end());
  return out;
}

StatusOr<int> FixAnchors(const std::vector<AnchorResult>& results, const std::string& root) {
  std::map<std::string, std::vector<const AnchorResult*>> by_doc;
  for (const AnchorResult& r : results) {
    if (r.state == AnchorState::kMoved) by_doc[r.anchor.doc].push_back(&r);
  }
  int fixed = 0;
  for (auto& [doc, moved] : by_doc) {
    PG_ASSIGN_OR_RETURN(std::string text, ReadFile(root + "/" + doc));
    // Back to front, so earlier offsets stay valid.
    std::sort(moved.begin(), moved.end(),
              [](auto* a, auto* b) { return a->anchor.line_offset > b->anchor.line_offset; });
    for (const AnchorResult* r : moved) {
      int span = r->anchor.line_end > r->anchor.line ? r->anchor.line_end - r->anchor.line : 0;
      std::string lines = std::to_string(r->found_at) +
                          (r->anchor.line_end ? "-" + std::to_string(r->found_at + span) : "");
      text.replace(r->anchor.line_offset, r->anchor.line_length, lines);
      ++fixed;
    }
    PG_RETURN_IF_ERROR(WriteFileAtomic(root + "/" + doc, text));
  }
  return fixed;
}

}  // namespace pg
