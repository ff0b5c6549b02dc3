// vt-run's constrained decoding flags, llama.cpp's names (specs/structured-outputs.md):
// --grammar, --grammar-file, -j/--json-schema, --json-schema-file.
#pragma once

#include <memory>
#include <string>

#include "vt/grammar.h"
#include "vt/status.h"

namespace vtrun {

struct GrammarFlags {
  std::string grammar, grammar_file, json_schema, json_schema_file;
};

// The grammar the flags ask for (null: none). kInvalidArgument naming the flag: two given, a
// file that cannot be read, a schema or grammar that does not compile.
vt::StatusOr<std::shared_ptr<const vt::Grammar>> LoadGrammar(const GrammarFlags& flags);

}  // namespace vtrun
