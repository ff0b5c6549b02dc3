// A JSON document (comments allowed) that remembers where each value came from, so
// validators can say "suites.json:14:7: ..." instead of "somewhere in the file".
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "gates/core/status.h"

namespace pg {

using Json = nlohmann::ordered_json;  // ordered: file order is the user's order

// `j` as text (`indent` as dump's), never throwing: bytes that are not UTF-8 (a process's
// output, a test's message cut mid-character) are written as U+FFFD. nlohmann's plain dump
// throws on them, and a test whose output broke a character once aborted a mutate run.
inline std::string JsonText(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

struct SourcePos {
  int line = 1;
  int column = 1;
};

class JsonSource {
 public:
  // Parses `text` read from `path` (the path is only used in messages). Malformed JSON and
  // duplicate object keys are kInvalidInput errors that start with "path:line:col:".
  static StatusOr<JsonSource> Parse(std::string path, const std::string& text);
  static StatusOr<JsonSource> Load(const std::string& path);

  const Json& root() const { return root_; }
  const std::string& path() const { return path_; }

  // Where the value at a JSON pointer ("/legs/unit/needs/0") starts; for an object member
  // this is its key. Unknown pointers fall back to the nearest known ancestor.
  SourcePos PositionOf(const std::string& pointer) const;
  // "path:line:col"
  std::string Where(const std::string& pointer) const;
  Status ErrorAt(const std::string& pointer, const std::string& message) const;

  static std::string Escape(const std::string& token);  // JSON pointer token escaping

 private:
  std::string path_;
  Json root_;
  std::map<std::string, SourcePos> positions_;
  friend class JsonPositionScanner;
};

}  // namespace pg
