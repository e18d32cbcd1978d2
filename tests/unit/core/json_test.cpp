#include "lightsim/core/json.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "scratch_dir.h"

namespace lightsim {
namespace {

using ::lightsim::testing::expect_error;
using ::lightsim::testing::list_dir;
using ::lightsim::testing::read_bytes;
using ::lightsim::testing::scratch_dir;
using ::lightsim::testing::write_bytes;

TEST(Json, DumpIsIndentedOrderedAndEndsWithNewline) {
  Json j = Json::object();
  j["zeta"] = 1;
  j["alpha"] = Json::array({true, nullptr, "s"});
  j["empty_list"] = Json::array();
  j["empty_obj"] = Json::object();
  j["nested"] = {{"b", -2}, {"a", std::uint64_t{18446744073709551615u}}};
  EXPECT_EQ(dump_json(j), R"({
  "zeta": 1,
  "alpha": [
    true,
    null,
    "s"
  ],
  "empty_list": [],
  "empty_obj": {},
  "nested": {
    "b": -2,
    "a": 18446744073709551615
  }
}
)");
  EXPECT_EQ(dump_json(Json(3)), "3\n");
}

TEST(Json, DoublesAreShortestRoundTripAndStayDoubles) {
  Json j = Json::array({0.1, 1.0, -0.0, 1e-5, 1e300, 1.0 / 3.0, 123456.0, 5e-324, 2.5});
  std::string text = dump_json(j);
  EXPECT_EQ(text, R"([
  0.1,
  1.0,
  -0.0,
  1e-05,
  1e+300,
  0.3333333333333333,
  123456.0,
  5e-324,
  2.5
]
)");
  Json back = Json::parse(text);
  for (std::size_t i = 0; i < j.size(); ++i) {
    EXPECT_TRUE(back[i].is_number_float()) << i;
    EXPECT_EQ(back[i].get<double>(), j[i].get<double>()) << i;
  }
}

TEST(Json, StringsAndKeysAreEscaped) {
  Json j = {{"a\"b/c", "line\nbreak\ttab \u00e9"}};
  EXPECT_EQ(dump_json(j), "{\n  \"a\\\"b/c\": \"line\\nbreak\\ttab \u00e9\"\n}\n");
}

TEST(Json, NanAndInfThrowNumericErrorWithPointerPath) {
  Json j = {{"runs", Json::array({Json{{"ok", 1.0}}, Json{{"energy/pJ", 2.0}, {"x~y", 0.0}}})}};
  j["runs"][1]["x~y"] = std::numeric_limits<double>::quiet_NaN();
  expect_error<NumericError>([&] { dump_json(j); }, {"/runs/1/x~0y", "nan"});
  j["runs"][1]["x~y"] = 0.0;
  j["runs"][1]["energy/pJ"] = -std::numeric_limits<double>::infinity();
  expect_error<NumericError>([&] { dump_json(j); }, {"/runs/1/energy~1pJ", "-inf"});
  expect_error<NumericError>([&] { dump_json(Json(std::nan(""))); }, {"(document root)"});
}

TEST(Json, InvalidUtf8IsInputError) {
  Json j = {{"name", std::string("bad \xff byte")}};
  expect_error<InputError>([&] { dump_json(j); }, {"/name", "UTF-8"});
}

TEST(Json, WriteAndReadRoundTrip) {
  auto dir = scratch_dir();
  Json j = {{"b", 1}, {"a", Json::array({1.5, "x"})}};
  write_json_file(dir / "r.json", j);
  EXPECT_EQ(read_bytes(dir / "r.json"), dump_json(j));
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"r.json"});
  Json back = read_json_file(dir / "r.json");
  EXPECT_EQ(back, j);
  EXPECT_EQ(back.begin().key(), "b");  // insertion order kept on read
}

TEST(Json, NanDocumentLeavesNoFile) {
  auto dir = scratch_dir();
  EXPECT_THROW(write_json_file(dir / "r.json", Json::array({std::nan("")})), NumericError);
  EXPECT_TRUE(list_dir(dir).empty());
}

TEST(Json, ReadMissingFileIsInputError) {
  auto dir = scratch_dir();
  expect_error<InputError>([&] { read_json_file(dir / "absent.json"); },
                           {"absent.json", "No such file"});
}

TEST(Json, ReadMalformedFileIsDataFormatErrorWithPosition) {
  auto dir = scratch_dir();
  write_bytes(dir / "bad.json", "{\n  \"a\": 1,\n  \"b\": tru\n}\n");
  expect_error<DataFormatError>([&] { read_json_file(dir / "bad.json"); },
                                {"bad.json", "line 3", "column", "byte"});
}

TEST(Json, ReadNumberTooLargeForADoubleIsDataFormatError) {
  auto dir = scratch_dir();
  write_bytes(dir / "big.json", "{\"layers\": 2E400}\n");
  expect_error<DataFormatError>([&] { read_json_file(dir / "big.json"); },
                                {"big.json", "number overflow"});
}

// read_json_file(path, cancel) polls the flag inside the parse: a set flag stops a document of
// more than kJsonCancelPollEvents events, a clear one reads the same document as without it,
// and a small document (fewer events than one poll interval) is read whole.
TEST(Json, ReadPollsTheStopFlagInsideTheParse) {
  auto dir = scratch_dir();
  std::string big = "[";
  for (std::uint64_t i = 0; i < 3 * kJsonCancelPollEvents; ++i) big += "1,";
  big += "2]";
  write_bytes(dir / "big.json", big);
  write_bytes(dir / "small.json", "{\"a\": [1, 2]}");
  std::atomic<bool> stop{false};
  const Json whole = read_json_file(dir / "big.json", &stop);
  EXPECT_EQ(whole, read_json_file(dir / "big.json"));
  EXPECT_EQ(whole.size(), 3 * kJsonCancelPollEvents + 1);
  stop = true;
  expect_error<Interrupted>([&] { read_json_file(dir / "big.json", &stop); },
                            {"big.json", "interrupted"});
  EXPECT_EQ(read_json_file(dir / "small.json", &stop), Json({{"a", {1, 2}}}));
}

}  // namespace
}  // namespace lightsim
