// Fields of a client's JSON read without trusting their types: nlohmann's value(key, default)
// throws when the field is there with another type (`"temperature": null`, `"type": 3`), and
// one uncaught throw on a streaming thread ended the server (found by scripts/fuzz-serve).
#pragma once

#include <string>

namespace vtserve {

// j[key] when j is an object holding a string there, else `fallback`.
template <typename J>
std::string StringField(const J& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->template get<std::string>() : fallback;
}

// j[key] when j is an object holding a non-null value there, else `fallback`.
template <typename J>
J Field(const J& j, const char* key, J fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && !it->is_null() ? *it : fallback;
}

}  // namespace vtserve
