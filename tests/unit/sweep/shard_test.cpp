// Job-array shards: parsing --shard, a shard's store, merging the shards, exporting as CSV.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "lightsim/core/json.h"
#include "lightsim/sweep/export.h"
#include "lightsim/sweep/merge.h"
#include "lightsim/sweep/shard.h"
#include "lightsim/sweep/store.h"
#include "scratch_dir.h"

namespace lightsim::sweep {
namespace {

using lightsim::testing::read_bytes;
using lightsim::testing::scratch_dir;
using lightsim::testing::write_bytes;
using ::testing::HasSubstr;

Json shard_header(const Shard& shard = {}, const char* hash = "abc", std::size_t points = 5) {
  Json h = {
      {"lightsim_sweep", 1}, {"name", "g"}, {"spec_hash", hash}, {"seed", 1}, {"points", points}};
  if (!shard.whole()) h["shard"] = shard.text();
  return h;
}

std::string shard_line(std::size_t i) {
  return record_line(i, "id", Json{{"k", i}}, {{"x", 1.5 * static_cast<double>(i)}});
}

// The store of `shard` of a 5-point sweep, complete unless `skip` names one of its points.
std::filesystem::path shard_store(const std::filesystem::path& dir, const Shard& shard,
                                  std::size_t skip = 99, const char* hash = "abc") {
  std::string text = shard_header(shard, hash).dump() + "\n";
  for (std::size_t i = 0; i < 5; ++i)
    if (shard.owns(i) && i != skip) text += shard_line(i) + "\n";
  const auto path = dir / shard.store_file("g");
  write_bytes(path, text);
  return path;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Shard, ParsesIOfNAndOwnsEveryNthPoint) {
  const Shard s = parse_shard("1/3", "--shard");
  EXPECT_EQ(s.index, 1u);
  EXPECT_EQ(s.count, 3u);
  EXPECT_TRUE(s.owns(4));
  EXPECT_FALSE(s.owns(3));
  EXPECT_EQ(s.store_file("g"), "g.shard-1-of-3.jsonl");
  EXPECT_EQ(Shard{}.store_file("g"), "g.jsonl");
  for (const char* bad : {"3/3", "-1/2", "1-of-4", "1/", "/2", "1/0", "a/b", "1/2/3", ""})
    EXPECT_THROW(parse_shard(bad, "--shard"), UsageError) << bad;
  EXPECT_THAT(message_of([] { parse_shard("3/3", "--shard"); }), HasSubstr("--shard '3/3'"));
}

TEST(Shard, AShardStoreRefusesAPointOfAnotherShard) {
  const auto dir = scratch_dir();
  const Shard s{1, 2};
  write_bytes(dir / "g.jsonl", shard_header(s).dump() + "\n" + shard_line(2) + "\n");
  EXPECT_THAT(message_of([&] {
                ResultStore store(dir / "g.jsonl", shard_header(s), true,
                                  std::vector<StoredPoint>(5, StoredPoint{"id", "{}"}));
              }),
              HasSubstr("point 2 is not in shard 1/2"));
}

TEST(SweepMerge, ShardsInAnyOrderMergeToTheWholeSweepsStore) {
  const auto dir = scratch_dir();
  const auto a = shard_store(dir, {1, 2});
  const auto b = shard_store(dir, {0, 2});
  const MergeSummary s = merge_shards({a, b}, {});
  EXPECT_EQ(s.out, dir / "g.jsonl");
  EXPECT_EQ(s.points, 5u);
  EXPECT_EQ(s.shards, 2u);
  std::string want = shard_header().dump() + "\n";
  for (std::size_t i = 0; i < 5; ++i) want += shard_line(i) + "\n";
  EXPECT_EQ(read_bytes(dir / "g.jsonl"), want);
  // The output is never overwritten.
  EXPECT_THAT(message_of([&] { merge_shards({a, b}, {}); }), HasSubstr("already exists"));
}

TEST(SweepMerge, RefusesMissingTwiceIncompleteTornForeignAndWholeStores) {
  const auto dir = scratch_dir();
  const auto s0 = shard_store(dir, {0, 3});
  const auto s1 = shard_store(dir, {1, 3});
  const auto s2 = shard_store(dir, {2, 3});
  const auto out = dir / "out.jsonl";
  EXPECT_THAT(message_of([&] {
                merge_shards({s0, s2}, out);
              }),
              HasSubstr("1 of the 3 shards are missing (shard indices 1)"));
  EXPECT_THAT(message_of([&] {
                merge_shards({s0, s1, s1, s2}, out);
              }),
              HasSubstr("shard 1/3 is given twice"));
  const auto sub = [&](const char* name) {
    std::filesystem::create_directory(dir / name);
    return dir / name;
  };
  const auto foreign = shard_store(sub("foreign"), {1, 3}, 99, "xyz");
  EXPECT_THAT(message_of([&] {
                merge_shards({s0, foreign, s2}, out);
              }),
              HasSubstr("\"spec_hash\" differ"));
  const auto partial = shard_store(sub("partial"), {1, 3}, 4);
  EXPECT_THAT(message_of([&] {
                merge_shards({s0, partial, s2}, out);
              }),
              HasSubstr("shard 1/3 ('" + partial.string() + "') is incomplete: 1 of its 2 points"));
  const auto torn = shard_store(sub("torn"), {1, 3});
  write_bytes(torn, read_bytes(torn) + "{\"index\": 4, \"id");
  EXPECT_THAT(message_of([&] { merge_shards({s0, torn, s2}, out); }), HasSubstr("torn line"));
  write_bytes(dir / "whole.jsonl", shard_header().dump() + "\n");
  EXPECT_THAT(message_of([&] { merge_shards({dir / "whole.jsonl"}, out); }),
              HasSubstr("not a shard store"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(SweepExport, OneRowPerPointInIndexOrderWithQuotedFields) {
  const auto dir = scratch_dir();
  std::string text = shard_header().dump() + "\n";
  text += record_line(1, "b", Json{{"fabric", "copper, 72"}}, {{"t", 2.5}, {"ok", true}}) + "\n";
  text += record_line(0, "a", Json{{"fabric", "say \"hi\""}},
                      {{"t", 1e-9}, {"list", {1, 2}}, {"none", nullptr}}) +
          "\n";
  write_bytes(dir / "s.jsonl", text);
  const StoreFile store = read_store(dir / "s.jsonl");
  EXPECT_EQ(store_csv(store, {}),
            "index,id,values.fabric,result.t,result.list.0,result.list.1,result.none,result.ok\r\n"
            "0,a,\"say \"\"hi\"\"\",1e-09,1,2,,\r\n"
            "1,b,\"copper, 72\",2.5,,,,true\r\n");
  CsvOptions only_t;
  only_t.columns = {"result.t"};
  EXPECT_EQ(store_csv(store, only_t),
            "index,id,values.fabric,result.t\r\n0,a,\"say \"\"hi\"\"\",1e-09\r\n"
            "1,b,\"copper, 72\",2.5\r\n");
  CsvOptions narrow;
  narrow.max_columns = 4;
  EXPECT_THROW(store_csv(store, narrow), UsageError);
}

}  // namespace
}  // namespace lightsim::sweep
