#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kv_test_util.h"
#include "lightsim/core/error.h"
#include "lightsim/core/json.h"
#include "lightsim/kv/io.h"
#include "scratch_dir.h"

namespace lightsim::kv {
namespace {

using ::testing::HasSubstr;

KvGeometry small_geometry() {
  return {2, 2, 4, 8, 40, 3};
}

TEST(KvIo, Float32RoundTripIsExact) {
  const auto dir = lightsim::testing::scratch_dir();
  KvCache c = testing::random_cache(small_geometry(), 5);
  c.layer_ids = {3, 7};
  c.rope_base = 5e5;
  c.needles = {{4, 9}};
  c.source = "test";
  write_kv_cache(dir, c);
  const KvCache r = read_kv_cache(dir);
  EXPECT_EQ(r.geometry(), c.geometry());
  EXPECT_EQ(r.key_data(), c.key_data());
  EXPECT_EQ(r.value_data(), c.value_data());
  EXPECT_EQ(r.query_data(), c.query_data());
  EXPECT_EQ(r.layer_ids, c.layer_ids);
  EXPECT_EQ(r.needles, c.needles);
  EXPECT_EQ(r.rope_base, 5e5);
  EXPECT_EQ(r.source, "test");
}

TEST(KvIo, Float16StorageRoundsToHalfPrecision) {
  const auto dir = lightsim::testing::scratch_dir();
  KvCache c = testing::random_cache(small_geometry(), 6);
  c.storage = NpyDtype::kFloat16;
  write_kv_cache(dir, c);
  const KvCache r = read_kv_cache(dir);
  EXPECT_EQ(r.storage, NpyDtype::kFloat16);
  for (std::size_t i = 0; i < c.key_data().size(); ++i)
    EXPECT_NEAR(r.key_data()[i], c.key_data()[i], 2e-3 * std::abs(c.key_data()[i]) + 1e-7);
}

TEST(KvIo, WrongShapeNamesArrayAndBothShapes) {
  const auto dir = lightsim::testing::scratch_dir();
  write_kv_cache(dir, testing::random_cache(small_geometry(), 7));
  const std::vector<float> bad(2 * 2 * 41 * 8, 0.0f);
  const std::vector<std::size_t> shape{2, 2, 41, 8};
  write_npy(dir / "values.npy", bad, shape, NpyDtype::kFloat32);
  try {
    (void)read_kv_cache(dir);
    FAIL() << "no error";
  } catch (const DataFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("values.npy"));
    EXPECT_THAT(e.what(), HasSubstr("'values'"));
    EXPECT_THAT(e.what(), HasSubstr("[2, 2, 41, 8]"));
    EXPECT_THAT(e.what(), HasSubstr("[2, 2, 40, 8]"));
  }
}

TEST(KvIo, WrongDtypeNamesArrayAndBothTypes) {
  const auto dir = lightsim::testing::scratch_dir();
  write_kv_cache(dir, testing::random_cache(small_geometry(), 8));
  const std::vector<float> q(2 * 4 * 3 * 8, 0.0f);
  const std::vector<std::size_t> shape{2, 4, 3, 8};
  write_npy(dir / "queries.npy", q, shape, NpyDtype::kFloat16);
  try {
    (void)read_kv_cache(dir);
    FAIL() << "no error";
  } catch (const DataFormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'queries'"));
    EXPECT_THAT(e.what(), HasSubstr("float16"));
    EXPECT_THAT(e.what(), HasSubstr("float32"));
  }
}

TEST(KvIo, MissingFolderAndBadManifest) {
  const auto dir = lightsim::testing::scratch_dir();
  EXPECT_THROW((void)read_kv_cache(dir / "nope"), InputError);
  EXPECT_THROW((void)read_kv_cache(dir), InputError);
  write_kv_cache(dir, testing::random_cache(small_geometry(), 9));
  Json m = read_json_file(dir / "manifest.json");
  m["q_heads"] = 3;  // not a multiple of kv_heads
  write_json_file(dir / "manifest.json", m);
  EXPECT_THROW((void)read_kv_cache(dir), InputError);
  m["q_heads"] = 4;
  m["needles"] = Json::array({Json{{"begin", 30}, {"end", 50}}});
  write_json_file(dir / "manifest.json", m);
  EXPECT_THROW((void)read_kv_cache(dir), DataFormatError);
}

// Keys of the wrong JSON type are a DataFormatError, never nlohmann's type_error (found by
// fuzz.kv_manifest; tests/data/fuzz/kv_manifest/format_is_a_number.json).
TEST(KvIo, ManifestKeysOfTheWrongTypeAreDataFormatErrors) {
  const auto dir = lightsim::testing::scratch_dir();
  write_kv_cache(dir, testing::random_cache(small_geometry(), 9));
  const Json good = read_json_file(dir / "manifest.json");
  for (const char* key : {"format", "source"}) {
    Json m = good;
    m[key] = 7295;
    write_json_file(dir / "manifest.json", m);
    EXPECT_THROW((void)read_kv_cache(dir), DataFormatError) << key;
  }
}

// Integer keys must be integers that fit: a float, a negative count or one beyond 2^64 is a
// DataFormatError naming the key, never a cast (found by fuzz.kv_manifest;
// tests/data/fuzz/kv_manifest/kv_heads_beyond_uint64.json).
TEST(KvIo, ManifestIntegersMustFitTheirType) {
  const auto dir = lightsim::testing::scratch_dir();
  write_kv_cache(dir, testing::random_cache(small_geometry(), 9));
  const Json good = read_json_file(dir / "manifest.json");
  for (const Json& bad : {Json::parse("42949429496724967296"), Json(2.5), Json(-1)}) {
    Json m = good;
    m["kv_heads"] = bad;
    write_json_file(dir / "manifest.json", m);
    try {
      (void)read_kv_cache(dir);
      ADD_FAILURE() << bad.dump();
    } catch (const DataFormatError& e) {
      EXPECT_NE(std::string(e.what()).find("kv_heads"), std::string::npos) << e.what();
    }
  }
  Json m = good;
  m["layer_ids"] = Json::array({0, 1.5});
  write_json_file(dir / "manifest.json", m);
  EXPECT_THROW((void)read_kv_cache(dir), DataFormatError);
}

}  // namespace
}  // namespace lightsim::kv
