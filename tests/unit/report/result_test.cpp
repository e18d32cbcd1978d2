#include "lightsim/report/result.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "scratch_dir.h"

namespace lightsim::report {
namespace {

using ::testing::HasSubstr;

StudyResult sample() {
  StudyResult r;
  r.study = "sample";
  r.title = "A sample study";
  r.spec_section = "SPEC 9.9";
  r.seed = 7;
  r.config = "schema_version: 1\n";
  Claim& c = r.add_claim("speed", "it is fast", "ms");
  c.seed_value = SeedValue::point(10.0);
  c.ours = 12.0;
  c.verdict = Verdict::holds;
  Table& t = r.add_table("timing", "Timing", {{"n", ""}, {"time_ms", "ms"}, {"label", ""}});
  t.add_row({std::int64_t{1}, 0.5, "a"});
  t.add_row({std::int64_t{2}, 1.25, "b"});
  r.add_chart("Time vs n", "timing",
              Json::parse(R"({"mark": "line", "encoding": {"x": {"field": "n"},
                              "y": {"field": "time_ms"}}})"));
  return r;
}

// The message of the DataFormatError `f` throws ("" when it does not throw).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const DataFormatError& e) {
    return e.what();
  }
  return "";
}

TEST(Deviation, PointIsRelativeToTheSeedMagnitude) {
  EXPECT_DOUBLE_EQ(*deviation(SeedValue::point(10.0), 12.0), 0.2);
  EXPECT_DOUBLE_EQ(*deviation(SeedValue::point(-10.0), -12.0), -0.2);
  EXPECT_DOUBLE_EQ(*deviation(SeedValue::point(4.0), 4.0), 0.0);
}

TEST(Deviation, RangeIsZeroInsideAndFromTheNearerBoundOutside) {
  const SeedValue r = SeedValue::range(0.8, 0.9);
  EXPECT_EQ(*deviation(r, 0.8), 0.0);
  EXPECT_EQ(*deviation(r, 0.85), 0.0);
  EXPECT_DOUBLE_EQ(*deviation(r, 0.72), (0.72 - 0.8) / 0.8);
  EXPECT_DOUBLE_EQ(*deviation(r, 0.99), (0.99 - 0.9) / 0.9);
}

TEST(Deviation, UndefinedWithoutBothFiguresOrFromZero) {
  EXPECT_FALSE(deviation(SeedValue::none(), 1.0));
  EXPECT_FALSE(deviation(SeedValue::point(1.0), std::nullopt));
  EXPECT_FALSE(deviation(SeedValue::point(0.0), 1.0));
  EXPECT_FALSE(deviation(SeedValue::range(-1.0, 0.0), 2.0));
}

TEST(Result, JsonRoundTripKeepsEverything) {
  const StudyResult r = sample();
  const Json doc = to_json(r);
  EXPECT_EQ(doc["schema_version"], kResultSchemaVersion);
  EXPECT_EQ(doc["claims"][0]["deviation"].get<double>(), 0.2);
  EXPECT_EQ(doc["claims"][0]["verdict"], "holds");
  const StudyResult back = result_from_json(doc, "x.json");
  EXPECT_EQ(dump_json(to_json(back)), dump_json(doc));
  EXPECT_TRUE(std::holds_alternative<std::int64_t>(back.tables[0].table.rows()[0][0]));
  EXPECT_TRUE(std::holds_alternative<double>(back.tables[0].table.rows()[0][1]));
}

TEST(Result, IntervalOfOursIsWrittenOnlyWhenSetAndRoundTrips) {
  StudyResult r = sample();
  EXPECT_FALSE(to_json(r)["claims"][0].contains("ours_ci95"));
  r.claims[0].ours_ci95 = 0.5;
  r.claims[0].verdict = Verdict::depends_on_workload;
  r.claims[0].explanation = "holds on one profile, not on the other";
  const Json doc = to_json(r);
  EXPECT_EQ(doc["claims"][0]["ours_ci95"].get<double>(), 0.5);
  EXPECT_EQ(doc["claims"][0]["verdict"], "depends on the workload");
  const StudyResult back = result_from_json(doc, "x.json");
  EXPECT_EQ(back.claims[0].ours_ci95, 0.5);
  EXPECT_EQ(back.claims[0].verdict, Verdict::depends_on_workload);
  r.claims[0].ours_ci95 = -1.0;
  EXPECT_THROW(validate(r, "x.json"), DataFormatError);
  r.claims[0].ours_ci95 = 0.5;
  r.claims[0].explanation.clear();
  EXPECT_THROW(validate(r, "x.json"), DataFormatError);  // the verdict must be explained
}

TEST(Result, SeedValueFormsRoundTrip) {
  StudyResult r = sample();
  r.claims[0].seed_value = SeedValue::range(1.0, 2.0);
  r.add_claim("words", "a qualitative claim", "").explanation = "no figure";
  const Json doc = to_json(r);
  EXPECT_EQ(doc["claims"][0]["seed_value"], Json::array({1.0, 2.0}));
  EXPECT_TRUE(doc["claims"][1]["seed_value"].is_null());
  EXPECT_TRUE(doc["claims"][1]["deviation"].is_null());
  const StudyResult back = result_from_json(doc, "x.json");
  EXPECT_EQ(back.claims[0].seed_value.kind, SeedValue::Kind::range);
  EXPECT_EQ(back.claims[1].seed_value.kind, SeedValue::Kind::none);
  EXPECT_FALSE(back.claims[1].ours);
}

TEST(Result, ValidationNamesSourceAndKey) {
  StudyResult r = sample();
  r.claims[0].verdict = Verdict::holds_under_conditions;
  EXPECT_THAT(error_of([&] { validate(r, "out/s.json"); }),
              HasSubstr("out/s.json: claims[0].conditions: must say"));
  r = sample();
  r.claims[0].verdict = Verdict::does_not_hold;
  EXPECT_THAT(error_of([&] { validate(r, "f"); }), HasSubstr("f: claims[0].explanation"));
  r = sample();
  r.study = "Bad Name";
  EXPECT_THAT(error_of([&] { validate(r, "f"); }), HasSubstr("f: study: must match"));
  r = sample();
  r.claims.push_back(r.claims[0]);
  EXPECT_THAT(error_of([&] { validate(r, "f"); }), HasSubstr("claims[1].id: duplicate"));
  r = sample();
  r.claims[0].seed_value = SeedValue::range(2.0, 1.0);
  EXPECT_THAT(error_of([&] { validate(r, "f"); }), HasSubstr("claims[0].seed_value: range"));
  r = sample();
  r.tables[0].table.add_row({std::int64_t{3}, std::nan(""), "c"});
  EXPECT_THAT(error_of([&] { validate(r, "f"); }),
              HasSubstr("tables[0].rows[2][1]: must be finite"));
  r = sample();
  r.add_table("bad", "Bad", {{"a.b", ""}});
  EXPECT_THAT(error_of([&] { validate(r, "f"); }), HasSubstr("tables[1].columns[0].name"));
}

TEST(Result, ChartsMustNameATableAndItsColumns) {
  StudyResult r = sample();
  r.charts[0].table = "timng";
  EXPECT_THAT(
      error_of([&] { validate(r, "f"); }),
      HasSubstr("f: charts[0].table: no table named 'timng' in this study (tables: timing)"));
  r = sample();
  r.charts[0].vega_lite["encoding"]["y"]["field"] = "time";
  EXPECT_THAT(error_of([&] { validate(r, "f"); }),
              HasSubstr("charts[0].vega_lite.encoding.y.field: 'time' is not a column"));
  r = sample();
  r.charts[0].vega_lite["data"] = {{"values", Json::array()}};
  EXPECT_THAT(error_of([&] { validate(r, "f"); }),
              HasSubstr("charts[0].vega_lite.data: must be absent"));
  r = sample();
  r.charts[0].vega_lite = Json::array();
  EXPECT_THAT(error_of([&] { validate(r, "f"); }), HasSubstr("charts[0].vega_lite: must be"));
}

TEST(Result, TransformOutputsAndLayersAreKnownFields) {
  StudyResult r = sample();
  r.charts[0].vega_lite = Json::parse(R"({
    "transform": [{"calculate": "datum.time_ms * 2", "as": "double_ms"}, {"fold": ["n"]}],
    "layer": [{"mark": "line", "encoding": {"x": {"field": "n"}, "y": {"field": "double_ms"}}},
              {"mark": "point", "encoding": {"x": {"field": "key"}, "y": {"field": "value"},
                                             "tooltip": [{"field": "label"}]}}]})");
  EXPECT_NO_THROW(validate(r, "f"));
  r.charts[0].vega_lite["layer"][1]["encoding"]["tooltip"][0]["field"] = "lable";
  EXPECT_THAT(error_of([&] { validate(r, "f"); }),
              HasSubstr("charts[0].vega_lite.layer[1].encoding.tooltip[0].field: 'lable'"));
}

TEST(Result, ReadingIsStrict) {
  const Json good = to_json(sample());
  Json doc = good;
  doc["claims"][0]["verdit"] = "holds";
  EXPECT_THAT(error_of([&] { result_from_json(doc, "s.json"); }),
              HasSubstr("s.json: claims[0].verdit: unknown key (did you mean 'verdict'?)"));
  doc = good;
  doc["claims"][0].erase("ours");
  EXPECT_THAT(error_of([&] { result_from_json(doc, "s.json"); }),
              HasSubstr("s.json: claims[0].ours: missing key"));
  doc = good;
  doc["claims"][0]["verdict"] = "ok";
  EXPECT_THAT(error_of([&] { result_from_json(doc, "s.json"); }),
              HasSubstr("s.json: claims[0].verdict: expected one of holds"));
  doc = good;
  doc["claims"][0]["deviation"] = 0.5;
  EXPECT_THAT(error_of([&] { result_from_json(doc, "s.json"); }),
              HasSubstr("s.json: claims[0].deviation: is 0.5 but seed_value and ours give 0.2"));
  doc = good;
  doc["tables"][0]["rows"][1] = Json::array({1, 2.0});
  EXPECT_THAT(error_of([&] { result_from_json(doc, "s.json"); }),
              HasSubstr("s.json: tables[0].rows[1]: expected an array of 3 cells"));
  doc = good;
  doc["tables"][0]["rows"][0][2] = nullptr;
  EXPECT_THAT(error_of([&] { result_from_json(doc, "s.json"); }),
              HasSubstr("tables[0].rows[0][2]: a cell must be"));
  doc = good;
  doc["schema_version"] = 2;
  EXPECT_THAT(error_of([&] { result_from_json(doc, "s.json"); }),
              HasSubstr("s.json: schema_version: expected 1 (got 2)"));
  doc = good;
  doc["kind"] = "reproduce";
  EXPECT_THAT(error_of([&] { result_from_json(doc, "s.json"); }), HasSubstr("s.json: kind:"));
  EXPECT_THAT(error_of([&] { result_from_json(Json::array(), "s.json"); }),
              HasSubstr("s.json: (document): expected an object"));
}

TEST(Result, WriteResultWritesJsonAndOneCsvPerTable) {
  const auto dir = lightsim::testing::scratch_dir();
  const auto file = write_result(dir, sample());
  EXPECT_EQ(file, dir / "sample.json");
  EXPECT_THAT(lightsim::testing::list_dir(dir),
              ::testing::ElementsAre("sample.json", "sample_timing.csv"));
  EXPECT_EQ(lightsim::testing::read_bytes(dir / "sample_timing.csv"),
            "n,time_ms [ms],label\n1,0.5,a\n2,1.25,b\n");
  const StudyResult back = read_result(file);
  EXPECT_EQ(back.title, "A sample study");
  EXPECT_EQ(back.seed, 7u);
}

TEST(Result, ReadResultChecksTheFileName) {
  const auto dir = lightsim::testing::scratch_dir();
  write_result(dir, sample());
  std::filesystem::rename(dir / "sample.json", dir / "other.json");
  EXPECT_THAT(error_of([&] { read_result(dir / "other.json"); }),
              HasSubstr("other.json: study: 'sample' does not match the file name"));
}

TEST(Result, MalformedJsonFileIsADataFormatErrorNamingIt) {
  const auto dir = lightsim::testing::scratch_dir();
  lightsim::testing::write_bytes(dir / "broken.json", "{\"schema_version\": 1,");
  EXPECT_THAT(error_of([&] { read_result(dir / "broken.json"); }), HasSubstr("broken.json"));
}

TEST(Result, InvalidResultIsNotWritten) {
  const auto dir = lightsim::testing::scratch_dir();
  StudyResult r = sample();
  r.charts[0].table = "missing";
  EXPECT_THROW(write_result(dir, r), DataFormatError);
  EXPECT_TRUE(lightsim::testing::list_dir(dir).empty());
}

}  // namespace
}  // namespace lightsim::report
