// Choosing one device of several by a user's selector, shared by the GPU backends.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vt/backend.h"
#include "vt/status.h"

namespace vt {

// `selector` (else the environment variable `env`, else "0") is an index or a
// case-insensitive substring of a name; the first match wins. No match: kInvalidArgument
// "KIND: no device matches "X" (devices: 0: A, 1: B)".
StatusOr<int> ChooseDevice(const std::vector<std::string>& names, const std::string& selector, const char* env,
                           const std::string& kind);

// A process's default backend of one kind: `open("")`, once the caller's static asks, kept for
// the process (never destroyed: tensors in other statics may outlive any destruction order);
// null when it does not open, or when the environment variable `env` is "none".
Backend* OpenDefault(const char* env, StatusOr<std::unique_ptr<Backend>> (*open)(const std::string&));

}  // namespace vt
