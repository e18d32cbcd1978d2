// "KEY=VALUE" lists, the reader of the prefill and decode plans.
#include "lightsim/core/key_value_list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lightsim/core/error.h"

namespace lightsim {
namespace {

TEST(KeyValueList, KeysUpperCasedItemsTrimmedEmptyItemsSkipped) {
  std::vector<std::string> seen;
  for_each_key_value(" tp = 4 ,, Ep=72,", "plan", "TP EP",
                     [&](std::string_view k, std::string_view v) {
                       seen.push_back(std::string(k) + ":" + std::string(v));
                     });
  EXPECT_EQ(seen, (std::vector<std::string>{"TP:4", "EP:72"}));
  try {
    for_each_key_value("TP=4,EP", "decode plan", "TP EP", [](auto, auto) {});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "decode plan: 'EP' is not KEY=VALUE (keys TP EP)");
  }
}

TEST(KeyValueList, PositiveIntegersWithAndWithoutABound) {
  EXPECT_EQ(positive_integer("plan", "TP", "8"), 8);
  EXPECT_THROW(positive_integer("plan", "TP", "0"), UsageError);
  EXPECT_THROW(positive_integer("plan", "TP", "4x"), UsageError);
  EXPECT_THROW(positive_integer("plan", "TP", "-2"), UsageError);
  EXPECT_EQ(positive_integer("plan", "TP", "1024", 1024), 1024);
  try {
    positive_integer("decode plan", "EP", "2048", 1024);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "decode plan: EP=2048 is not an integer in [1, 1024]");
  }
}

}  // namespace
}  // namespace lightsim
