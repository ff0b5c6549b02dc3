// A fixture model as an in-memory GGUF file, for the model tests on every backend.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "vt/fixture.h"

namespace vt::testing {

inline std::shared_ptr<const GgufFile> FixtureFile(const FixtureSpec& spec) {
  auto f = GgufFile::FromBytes(MakeFixture(spec).Bytes());
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return std::make_shared<const GgufFile>(std::move(f).value());
}

}  // namespace vt::testing
