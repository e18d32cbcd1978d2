#include "lightsim/core/csv.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "lightsim/core/json.h"
#include "scratch_dir.h"

namespace lightsim {
namespace {

using ::lightsim::testing::expect_error;
using ::lightsim::testing::list_dir;
using ::lightsim::testing::read_bytes;
using ::lightsim::testing::scratch_dir;

Table sample() {
  Table t({{"wavelength", "nm"}, {"loss", "dB"}, {"count", ""}, {"label", ""}, {"ok", ""}});
  t.add_row({1550.0, 0.1, 3, "C-band", true});
  t.add_row({1310.5, -2.5e-7, std::int64_t{-9000000000}, "has,comma", false});
  t.add_row({1.0, 1e21, 0, "say \"hi\"\nnext line", true});
  return t;
}

TEST(Csv, HeaderUnitsNumbersAndRfc4180Quoting) {
  EXPECT_EQ(to_csv(sample()),
            "wavelength [nm],loss [dB],count,label,ok\n"
            "1550,0.1,3,C-band,true\n"
            "1310.5,-2.5e-07,-9000000000,\"has,comma\",false\n"
            "1,1e+21,0,\"say \"\"hi\"\"\nnext line\",true\n");
}

TEST(Csv, HeaderCellsAreQuotedToo) {
  Table t({{"a,b", "pJ"}, {"plain", ""}});
  EXPECT_EQ(to_csv(t), "\"a,b [pJ]\",plain\n");
}

TEST(Csv, DoublesRoundTrip) {
  Table t({{"x", ""}});
  for (double x : {0.1, 1.0 / 3.0, 6.02214076e23, 5e-324, -0.0}) t.add_row({x});
  std::string text = to_csv(t);
  std::size_t pos = text.find('\n') + 1;
  for (const auto& row : t.rows()) {
    std::size_t end = text.find('\n', pos);
    EXPECT_EQ(std::strtod(text.substr(pos, end - pos).c_str(), nullptr), std::get<double>(row[0]));
    pos = end + 1;
  }
}

TEST(Csv, NonFiniteThrowsNumericErrorNamingRowAndColumn) {
  Table t({{"a", ""}, {"energy", "pJ"}});
  t.add_row({1.0, 2.0});
  t.add_row({1.0, std::numeric_limits<double>::infinity()});
  expect_error<NumericError>([&] { to_csv(t); }, {"row 1", "'energy'", "inf"});
}

TEST(Csv, RowWidthAndColumnNamesAreChecked) {
  Table t({{"a", ""}, {"b", ""}});
  expect_error<InternalError>([&] { t.add_row({1.0}); }, {"1 cells, expected 2"});
  EXPECT_THROW(Table({{"a", ""}, {"a", "dB"}}), InternalError);
  EXPECT_THROW(Table({{"", ""}}), InternalError);
}

TEST(Csv, WriteCsvIsAtomic) {
  auto dir = scratch_dir();
  write_csv(dir / "t.csv", sample());
  EXPECT_EQ(read_bytes(dir / "t.csv"), to_csv(sample()));
  Table bad({{"x", ""}});
  bad.add_row({std::nan("")});
  EXPECT_THROW(write_csv(dir / "t.csv", bad), NumericError);
  EXPECT_EQ(read_bytes(dir / "t.csv"), to_csv(sample()));
  EXPECT_EQ(list_dir(dir), std::vector<std::string>{"t.csv"});
}

TEST(Table, ToJson) {
  Table t({{"loss", "dB"}, {"name", ""}});
  t.add_row({0.5, "a"});
  t.add_row({1.0, "b"});
  EXPECT_EQ(dump_json(to_json(t)), R"({
  "columns": [
    {
      "name": "loss",
      "unit": "dB"
    },
    {
      "name": "name",
      "unit": ""
    }
  ],
  "rows": [
    [
      0.5,
      "a"
    ],
    [
      1.0,
      "b"
    ]
  ]
}
)");
  Table bad({{"x", ""}});
  bad.add_row({std::nan("")});
  expect_error<NumericError>([&] { dump_json(to_json(bad)); }, {"/rows/0/0"});
}

}  // namespace
}  // namespace lightsim
