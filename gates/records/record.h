// Records: values the project depends on (tool versions, an oracle's pin), each observed field
// checked against its own expected constant, with declared relations between observed values.
#pragma once

#include <string>
#include <vector>

#include "gates/core/status.h"

namespace pg {

struct RecordField {
  std::string name;
  std::string expect;
  std::vector<std::string> observe;  // argv, run from the root; or:
  std::string observe_file;          // a file under the root, searched with `regex`
  std::string regex;
  double timeout_s = 60;
  bool optional = false;  // a tool that cannot be started is "absent", not a failure
};

struct RecordRelation {
  std::string kind;  // prefix | equal | suffix-when
  std::string of, is;
  std::string suffix, when_field, when_equals;  // suffix-when
};

struct Record {
  std::string path;
  std::string name;
  std::vector<RecordField> fields;
  std::vector<RecordRelation> relations;
  const RecordField* Find(const std::string& field) const;
};

// Parses, validates and shape-lints; every error is kInvalidInput starting "path:line:col:".
StatusOr<Record> ParseRecord(const std::string& path, const std::string& text);
StatusOr<Record> LoadRecord(const std::string& path);

enum class Verdict { kMatch, kMismatch, kAbsent, kError };
std::string_view VerdictName(Verdict v);

struct FieldResult {
  std::string field, expected, observed;
  Verdict verdict = Verdict::kError;
  std::string message;  // for anything but a match: "record.field: observed "X", expected "Y""
};

struct RelationResult {
  std::string text;  // "runtime_release is a prefix of distribution_version"
  bool ok = false;
  std::string message;
};

struct RecordResult {
  std::string record, path;
  std::vector<FieldResult> fields;
  std::vector<RelationResult> relations;
  bool ok() const;
};

// Observes every field (commands run from `root`) and evaluates the relations.
RecordResult CheckRecord(const Record& record, const std::string& root);

// Text lines and one JSON document for `proofgate records check`.
std::string RecordResultsText(const std::vector<RecordResult>& results);
std::string RecordResultsJson(const std::vector<RecordResult>& results);

}  // namespace pg
