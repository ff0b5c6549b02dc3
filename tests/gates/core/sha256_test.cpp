#include "gates/core/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace pg {
namespace {

// FIPS 180-2's examples (appendix B): what the journal's and mutate's "every byte as
// before" rests on, whichever library computes it.
TEST(Sha256, DigestsAreFipsExamples) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, BytesPastANulAreHashed) {
  EXPECT_NE(Sha256Hex(std::string("a\0b", 3)), Sha256Hex("a"));
}

}  // namespace
}  // namespace pg
