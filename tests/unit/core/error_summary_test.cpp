// core::summarize_errors: the one median / worst statistic of every validation.
#include "lightsim/core/error_summary.h"

#include <gtest/gtest.h>

namespace lightsim::core {
namespace {

TEST(ErrorSummary, EmptyGivesZeros) {
  const ErrorSummary s = summarize_errors({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.median_abs_error, 0.0);
  EXPECT_EQ(s.worst_error, 0.0);
}

TEST(ErrorSummary, OddCountMedianOfAbsoluteValuesAndSignedWorst) {
  const ErrorSummary s = summarize_errors({0.1, -0.5, 0.3});
  EXPECT_EQ(s.count, 3u);
  EXPECT_DOUBLE_EQ(s.median_abs_error, 0.3);
  EXPECT_DOUBLE_EQ(s.worst_error, -0.5);  // the sign is kept
  EXPECT_EQ(s.worst_index, 1u);
}

TEST(ErrorSummary, EvenCountMeansTheMiddleTwoAndTiesTakeTheFirst) {
  const ErrorSummary s = summarize_errors({-0.2, 0.4, 0.1, -0.4});
  EXPECT_DOUBLE_EQ(s.median_abs_error, 0.3);  // (0.2 + 0.4) / 2
  EXPECT_DOUBLE_EQ(s.worst_error, 0.4);
  EXPECT_EQ(s.worst_index, 1u);
}

}  // namespace
}  // namespace lightsim::core
