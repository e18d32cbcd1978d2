#include "lightsim/core/error.h"

#include <gtest/gtest.h>

namespace lightsim {
namespace {

TEST(Error, CheckThrowsInternalErrorWithLocationAndCondition) {
  try {
    int answer = 41;
    LIGHTSIM_CHECK(answer == 42, "answer was {}", answer);
    FAIL() << "no throw";
  } catch (const InternalError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("answer was 41"), std::string::npos) << what;
    EXPECT_NE(what.find("answer == 42"), std::string::npos) << what;
    EXPECT_NE(what.find("error_test.cpp"), std::string::npos) << what;
  }
}

TEST(Error, CheckAsThrowsTheRequestedTypeAndInputErrorsAreErrors) {
  EXPECT_THROW(LIGHTSIM_CHECK_AS(ConfigError, 1 > 2, "bad {}", "key"), ConfigError);
  EXPECT_THROW(LIGHTSIM_CHECK_AS(ConfigError, false, "x"), InputError);
  EXPECT_THROW(LIGHTSIM_CHECK_AS(UnitError, false, "x"), Error);
  EXPECT_NO_THROW(LIGHTSIM_CHECK_AS(ConfigError, true, "never"));
  try {
    LIGHTSIM_THROW(UsageError, "missing {} argument", "FILE");
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "missing FILE argument");
  }
}

}  // namespace
}  // namespace lightsim
