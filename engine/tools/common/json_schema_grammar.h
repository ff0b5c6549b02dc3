// A JSON Schema → a GBNF grammar of the JSON texts it allows (specs/structured-outputs.md),
// for vt-serve's response_format / structured_outputs and vt-run's --json-schema.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "vt/status.h"

namespace vttools {

// `schema`'s grammar (root: the value). kInvalidArgument "WHERE.path: why" for a keyword the
// grammar cannot express, `where` naming the schema's own place (a field or a flag). Ordered:
// an object's members come in the order its `properties` were written.
vt::StatusOr<std::string> JsonSchemaToGbnf(const nlohmann::ordered_json& schema, const std::string& where);

// Any JSON value, or any JSON object (`response_format: json_object`).
std::string AnyJsonGbnf(bool object_only);

}  // namespace vttools
