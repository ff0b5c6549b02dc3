// Typed, positioned reads of one JSON object's fields. Every config-like file of proofgate
// (suites, catalogs, records) validates through this, so messages read the same everywhere:
//   suites.json:12:9: leg "unit": field "timeout_s" must be a number > 0, got "ten"
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gates/config/json_source.h"

namespace pg {

class JsonFields {
 public:
  // `owner` names the object in messages ("leg \"unit\""); empty for the top level.
  JsonFields(const JsonSource& source, const Json& object, std::string pointer, std::string owner);

  // Unknown keys are errors; a close known name is suggested.
  Status CheckKnown(std::initializer_list<std::string_view> known) const;
  Status Require(std::string_view key) const;
  bool Has(std::string_view key) const { return object_.contains(key); }

  Status String(std::string_view key, std::string* out) const;
  Status Number(std::string_view key, double* out, double min_exclusive) const;
  Status Integer(std::string_view key, long* out) const;
  Status Bool(std::string_view key, bool* out) const;
  Status StringList(std::string_view key, std::vector<std::string>* out) const;
  Status StringMap(std::string_view key,
                   std::vector<std::pair<std::string, std::string>>* out) const;

  std::string PointerOf(std::string_view key) const;
  Status ErrorAt(std::string_view key, const std::string& message) const;

 private:
  std::string Prefix() const;
  const JsonSource& source_;
  const Json& object_;
  std::string pointer_;
  std::string owner_;
};

// "string", "number", ... as a user reads them.
std::string JsonTypeName(const Json& value);
// Short rendering of a value for messages.
std::string JsonShort(const Json& value);
// The closest of `known` to `word` when it is a plausible typo, else empty.
std::string ClosestName(std::string_view word, std::initializer_list<std::string_view> known);
std::string ClosestName(std::string_view word, const std::vector<std::string_view>& known);

}  // namespace pg
