#include "gates/config/json_fields.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>

namespace pg {

JsonFields::JsonFields(const JsonSource& source, const Json& object, std::string pointer,
                       std::string owner)
    : source_(source), object_(object), pointer_(std::move(pointer)), owner_(std::move(owner)) {}

std::string JsonFields::Prefix() const { return owner_.empty() ? "" : owner_ + ": "; }

std::string JsonFields::PointerOf(std::string_view key) const {
  return pointer_ + "/" + JsonSource::Escape(std::string(key));
}

Status JsonFields::ErrorAt(std::string_view key, const std::string& message) const {
  return source_.ErrorAt(PointerOf(key), Prefix() + message);
}

Status JsonFields::CheckKnown(std::initializer_list<std::string_view> known) const {
  for (const auto& [key, value] : object_.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string message = "unknown field \"" + key + "\"";
    std::string guess = ClosestName(key, known);
    if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
    return ErrorAt(key, message);
  }
  return Status();
}

Status JsonFields::Require(std::string_view key) const {
  if (Has(key)) return Status();
  return source_.ErrorAt(pointer_,
                         Prefix() + "missing required field \"" + std::string(key) + "\"");
}

Status JsonFields::String(std::string_view key, std::string* out) const {
  if (!Has(key)) return Status();
  const Json& v = object_.at(key);
  if (!v.is_string()) {
    return ErrorAt(key,
                   "field \"" + std::string(key) + "\" must be a string, got " + JsonTypeName(v));
  }
  *out = v.get<std::string>();
  return Status();
}

Status JsonFields::Number(std::string_view key, double* out, double min_exclusive) const {
  if (!Has(key)) return Status();
  const Json& v = object_.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= min_exclusive) {
    std::ostringstream min;
    min << min_exclusive;
    return ErrorAt(key, "field \"" + std::string(key) + "\" must be a number > " + min.str() +
                            ", got " + JsonShort(v));
  }
  *out = v.get<double>();
  return Status();
}

Status JsonFields::Integer(std::string_view key, long* out) const {
  if (!Has(key)) return Status();
  const Json& v = object_.at(key);
  // An unsigned value past a long's range read as a long wraps (18446744073709551615 was -1).
  bool too_big = v.is_number_unsigned() &&
                 v.get<unsigned long long>() > static_cast<unsigned long long>(LONG_MAX);
  if (!v.is_number_integer() || too_big) {
    return ErrorAt(key, "field \"" + std::string(key) + "\" must be an integer" +
                            (too_big ? " up to " + std::to_string(LONG_MAX) : std::string()) +
                            ", got " + JsonShort(v));
  }
  *out = v.get<long>();
  return Status();
}

Status JsonFields::Bool(std::string_view key, bool* out) const {
  if (!Has(key)) return Status();
  const Json& v = object_.at(key);
  if (!v.is_boolean()) {
    return ErrorAt(key,
                   "field \"" + std::string(key) + "\" must be true or false, got " + JsonShort(v));
  }
  *out = v.get<bool>();
  return Status();
}

Status JsonFields::StringList(std::string_view key, std::vector<std::string>* out) const {
  if (!Has(key)) return Status();
  const Json& v = object_.at(key);
  std::string name(key);
  if (!v.is_array()) {
    return ErrorAt(key,
                   "field \"" + name + "\" must be an array of strings, got " + JsonTypeName(v));
  }
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      return source_.ErrorAt(PointerOf(key) + "/" + std::to_string(i),
                             Prefix() + "field \"" + name + "\"[" + std::to_string(i) +
                                 "] must be a string, got " + JsonShort(v[i]));
    }
    out->push_back(v[i].get<std::string>());
  }
  return Status();
}

Status JsonFields::StringMap(std::string_view key,
                             std::vector<std::pair<std::string, std::string>>* out) const {
  if (!Has(key)) return Status();
  const Json& v = object_.at(key);
  std::string name(key);
  if (!v.is_object()) {
    return ErrorAt(key,
                   "field \"" + name + "\" must be an object of strings, got " + JsonTypeName(v));
  }
  out->clear();
  for (const auto& [k, item] : v.items()) {
    if (!item.is_string()) {
      return source_.ErrorAt(PointerOf(key) + "/" + JsonSource::Escape(k),
                             Prefix() + "field \"" + name + "\".\"" + k +
                                 "\" must be a string, got " + JsonShort(item));
    }
    out->emplace_back(k, item.get<std::string>());
  }
  return Status();
}

std::string JsonTypeName(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  return "an object";
}

std::string JsonShort(const Json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

namespace {
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string ClosestName(std::string_view word, std::initializer_list<std::string_view> known) {
  return ClosestName(word, std::vector<std::string_view>(known));
}

std::string ClosestName(std::string_view word, const std::vector<std::string_view>& known) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (std::string_view k : known) {
    size_t d = EditDistance(word, k);
    if (d < best_distance) {
      best_distance = d;
      best = std::string(k);
    }
  }
  return best;
}

}  // namespace pg
