// JSON text ⇄ template values, for the tools and tests that feed chat templates from JSON
// (conversations, tool definitions, request bodies).
#pragma once

#include <string>

#include "vt/jinja.h"
#include "vt/status.h"

namespace vt {

// kInvalidArgument naming `what` (a file or flag) and the parser's byte offset when not JSON.
StatusOr<jinja::Value> ParseJsonValue(const std::string& text, const std::string& what);

}  // namespace vt
