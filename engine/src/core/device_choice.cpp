#include "core/device_choice.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace vt {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

StatusOr<int> ChooseDevice(const std::vector<std::string>& names, const std::string& selector, const char* env,
                           const std::string& kind) {
  const char* from_env = std::getenv(env);
  std::string want = !selector.empty() ? selector : from_env && *from_env ? from_env : "0";
  bool numeric = std::all_of(want.begin(), want.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  for (size_t i = 0; i < names.size(); ++i) {
    bool match = numeric ? std::to_string(i) == want : Lower(names[i]).find(Lower(want)) != std::string::npos;
    if (match) return static_cast<int>(i);
  }
  std::string there;
  for (size_t i = 0; i < names.size(); ++i) there += (there.empty() ? "" : ", ") + std::to_string(i) + ": " + names[i];
  return Status(StatusCode::kInvalidArgument, kind + ": no device matches \"" + want + "\" (devices: " + there + ")");
}

Backend* OpenDefault(const char* env, StatusOr<std::unique_ptr<Backend>> (*open)(const std::string&)) {
  const char* value = std::getenv(env);
  if (value && std::string(value) == "none") return nullptr;
  auto opened = open("");
  return opened.ok() ? opened.value().release() : nullptr;
}

}  // namespace vt
