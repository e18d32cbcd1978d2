// Expansion of sweep specs into points.
#include <gtest/gtest.h>

#include <set>

#include "lightsim/core/json.h"
#include "lightsim/sweep/spec.h"

namespace lightsim::sweep {
namespace {

SweepSpec read(const std::string& yaml) {
  return config::read_spec<SweepSpec>(config::parse_document(yaml, "test.yaml"));
}

const char* kHead =
    "schema_version: 1\nkind: sweep\nname: t\ntarget: prism_cost\nrequest: {accelerator: seed}\n";

TEST(SweepSpec, GridIsTheCartesianProductLastAxisFastest) {
  const auto spec = read(std::string(kHead) +
                         "grid:\n  - {key: a.b, values: [1, 2, 3]}\n"
                         "  - {key: c, values: [x, y]}\n");
  const auto points = expand(spec);
  ASSERT_EQ(points.size(), 6u);
  const std::vector<std::string> want{"a.b=1,c=x", "a.b=1,c=y", "a.b=2,c=x",
                                      "a.b=2,c=y", "a.b=3,c=x", "a.b=3,c=y"};
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].index, i);
    EXPECT_EQ(fmt::format("{}", fmt::join(points[i].assignments(), ",")), want[i]);
  }
  EXPECT_EQ(points[0].values_json(), Json::parse(R"({"a.b": 1, "c": "x"})"));
}

TEST(SweepSpec, ListKeepsItsPointsInOrder) {
  const auto spec = read(std::string(kHead) + "points:\n  - {a: 1, b: \"2 pm\"}\n  - {a: 3}\n");
  const auto points = expand(spec);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].assignments(), (std::vector<std::string>{"a=1", "b=2 pm"}));
  EXPECT_EQ(points[1].assignments(), (std::vector<std::string>{"a=3"}));
}

TEST(SweepSpec, ExactlyOneSourceOfPoints) {
  EXPECT_THROW(read(kHead), ConfigError);
  EXPECT_THROW(read(std::string(kHead) + "grid: [{key: a, values: [1]}]\npoints: [{a: 1}]\n"),
               ConfigError);
  EXPECT_THROW(read(std::string(kHead) + "grid: [{key: a, values: [1]}, {key: a, values: [2]}]\n"),
               ConfigError);
}

TEST(SweepSpec, SampleIsSeededAndPerPointIndependent) {
  const std::string body =
      "sample:\n  count: 50\n  seed: 7\n  keys:\n"
      "    - {key: x, min: \"1 pm\", max: \"10 pm\"}\n"
      "    - {key: n, min: \"2\", max: \"5\", integer: true}\n"
      "    - {key: f, min: \"1e-3\", max: \"1e3\", scale: log}\n"
      "    - {key: c, choices: [a, b, c]}\n";
  const auto a = expand(read(std::string(kHead) + body));
  const auto b = expand(read(std::string(kHead) + body));
  ASSERT_EQ(a.size(), 50u);
  std::set<std::string> ints, choices;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].values, b[i].values);  // same seed, same points
    ASSERT_TRUE(a[i].values[0].ends_with(" pm"));
    const double x = std::stod(a[i].values[0]);
    EXPECT_GE(x, 1.0);
    EXPECT_LE(x, 10.0);
    ints.insert(a[i].values[1]);
    const double f = std::stod(a[i].values[2]);
    EXPECT_GE(f, 1e-3);
    EXPECT_LE(f, 1e3);
    choices.insert(a[i].values[3]);
  }
  EXPECT_EQ(ints, (std::set<std::string>{"2", "3", "4", "5"}));
  EXPECT_EQ(choices, (std::set<std::string>{"a", "b", "c"}));
  // A larger count keeps the first points (streams keyed by point index, not by count).
  auto more = read(std::string(kHead) + body);
  more.sample.count = 80;
  const auto c = expand(more);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].values, c[i].values);
  // Another seed, other points.
  more.sample.seed = 8;
  EXPECT_NE(expand(more)[0].values, a[0].values);
}

TEST(SweepSpec, BadSampleRangesAreConfigErrors) {
  const std::string head = std::string(kHead) + "sample:\n  count: 3\n  keys:\n";
  EXPECT_THROW(expand(read(head + "    - {key: x, min: \"1 pm\", max: \"1 nm\"}\n")), ConfigError);
  EXPECT_THROW(expand(read(head + "    - {key: x, min: \"5\", max: \"1\"}\n")), ConfigError);
  EXPECT_THROW(expand(read(head + "    - {key: x, min: \"0\", max: \"1\", scale: log}\n")),
               ConfigError);
  EXPECT_THROW(read(head + "    - {key: x, min: \"0\"}\n"), ConfigError);
}

TEST(SweepSpec, PointIdDependsOnValuesNotOnIndexOrKeyOrder) {
  Point a{3, {"x", "y"}, {"1", "2"}};
  Point b{9, {"y", "x"}, {"2", "1"}};
  Point c{3, {"x", "y"}, {"1", "3"}};
  EXPECT_EQ(a.id(), b.id());
  EXPECT_NE(a.id(), c.id());
  EXPECT_EQ(a.id().size(), 16u);
}

TEST(SweepSpec, ScalarJsonTypesNumbersAndBooleans) {
  EXPECT_EQ(scalar_json("4"), Json(4));
  EXPECT_EQ(scalar_json("2.5"), Json(2.5));
  EXPECT_EQ(scalar_json("true"), Json(true));
  EXPECT_EQ(scalar_json("2 pm"), Json("2 pm"));
  EXPECT_EQ(scalar_json(""), Json(""));
}

}  // namespace
}  // namespace lightsim::sweep
