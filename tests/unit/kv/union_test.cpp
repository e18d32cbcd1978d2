// kv::union_of_heads and kv::needle_hit (metrics.h): the union of a layer's KV-head selections,
// its fetched fraction, and needle hits against a block mask, on a layout small enough to
// count by hand.
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "lightsim/kv/metrics.h"

namespace lightsim::kv {
namespace {

// 1024 tokens in 8 blocks of 128; 4 sink tokens and a 128-token recent window, so block 0
// fetches 124 tokens, blocks 1-6 fetch 128 and block 7 (the recent window) fetches none.
BlockLayout layout() {
  return BlockLayout(1024, BlockOptions{128, 4, 128});
}

TEST(UnionOfHeads, MaskIsTheUnionAndTheFractionCountsEachBlockOnce) {
  const BlockLayout l = layout();
  const std::vector<std::size_t> a = {1, 3}, b = {3, 5}, c = {};
  const std::vector<std::span<const std::size_t>> selections = {a, b, c};
  std::vector<char> mask = {1, 1};  // stale contents are replaced
  const double fraction = union_of_heads(l, selections, mask);
  EXPECT_EQ(mask, (std::vector<char>{0, 1, 0, 1, 0, 1, 0, 0}));
  // Resident 4 + 128 tokens, plus blocks 1, 3, 5 once each (block 3 is in two selections).
  EXPECT_DOUBLE_EQ(fraction, (132.0 + 3 * 128.0) / 1024.0);
}

TEST(UnionOfHeads, NoSelectionFetchesTheResidentTokensOnlyAndBlockZeroCountsItsSinkOnce) {
  const BlockLayout l = layout();
  std::vector<char> mask;
  EXPECT_DOUBLE_EQ(union_of_heads(l, {}, mask), 132.0 / 1024.0);
  EXPECT_EQ(mask, std::vector<char>(8, 0));
  const std::vector<std::size_t> first = {0};
  const std::vector<std::span<const std::size_t>> one = {first};
  EXPECT_DOUBLE_EQ(union_of_heads(l, one, mask), (132.0 + 124.0) / 1024.0);
}

TEST(UnionOfHeads, NeedleHitNeedsEveryTokenResidentOrSelected) {
  const BlockLayout l = layout();
  const std::vector<char> mask = {0, 1, 0, 1, 0, 1, 0, 0};
  EXPECT_TRUE(needle_hit({390, 400}, l, mask));    // block 3
  EXPECT_FALSE(needle_hit({300, 310}, l, mask));   // block 2
  EXPECT_FALSE(needle_hit({380, 390}, l, mask));   // blocks 2 and 3
  EXPECT_TRUE(needle_hit({0, 4}, l, mask));        // the sink
  EXPECT_TRUE(needle_hit({1000, 1010}, l, mask));  // the recent window
  EXPECT_FALSE(needle_hit({250, 260}, l, mask));   // blocks 1 and 2: 256.. is block 2
}

}  // namespace
}  // namespace lightsim::kv
