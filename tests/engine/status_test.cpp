#include "vt/status.h"

#include <gtest/gtest.h>

namespace vt {
namespace {

TEST(VtStatus, ToStringNamesTheCodeAndTheMessage) {
  Status s(StatusCode::kUnimplemented, "no kernel for op Matmul on device xpu");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.ToString(), "UNIMPLEMENTED: no kernel for op Matmul on device xpu");
  EXPECT_EQ(Status().ToString(), "OK");
}

Status FailsAt(int step, int* reached) {
  for (int i = 0; i < 3; ++i) {
    *reached = i;
    VT_RETURN_IF_ERROR(i == step ? Status(StatusCode::kDataLoss, "truncated") : Status());
  }
  return Status();
}

TEST(VtStatus, ReturnIfErrorStopsAtTheFirstError) {
  int reached = -1;
  EXPECT_EQ(FailsAt(1, &reached).code(), StatusCode::kDataLoss);
  EXPECT_EQ(reached, 1);
}

TEST(VtStatus, StatusOrHoldsAValueOrAnError) {
  StatusOr<int> v = 7;
  StatusOr<int> e = Status(StatusCode::kOutOfRange, "offset 90 past end 64");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.value(), 7);
  EXPECT_EQ(e.status().code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace vt
