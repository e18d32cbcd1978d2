#include "lightsim/core/npy.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "lightsim/core/float16.h"
#include "scratch_dir.h"

namespace lightsim {
namespace {

using ::lightsim::testing::expect_error;
using ::lightsim::testing::list_dir;
using ::lightsim::testing::read_bytes;
using ::lightsim::testing::scratch_dir;
using ::lightsim::testing::write_bytes;
using ::testing::ElementsAre;

// A .npy file from a header dict, padded like np.save, followed by `data`.
std::string make_npy(std::string_view dict, std::string_view data, int version = 1) {
  std::size_t prefix = version == 1 ? 10 : 12;
  std::string header(dict);
  header += std::string(64 - (prefix + header.size() + 1) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  for (std::size_t i = 0; i < prefix - 8; ++i) {
    out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  }
  return out + header + std::string(data);
}

template <typename T>
std::string raw(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

const std::vector<float> kValues = {0.0f, 1.0f, -2.5f, 0.15625f, 1024.0f, -0.0f};

TEST(Npy, RoundTripEveryDtypeAndVersion) {
  auto dir = scratch_dir();
  const std::vector<std::size_t> shape = {2, 3};
  for (NpyDtype dtype :
       {NpyDtype::kFloat32, NpyDtype::kFloat16, NpyDtype::kBFloat16, NpyDtype::kFloat64}) {
    for (int version : {0, 1, 2, 3}) {
      SCOPED_TRACE(fmt::format("{} v{}", to_string(dtype), version));
      auto file = dir / fmt::format("{}_v{}.npy", to_string(dtype), version);
      write_npy(file, kValues, shape, dtype, {.version = version});
      std::string bytes = read_bytes(file);
      EXPECT_EQ(bytes[6], version == 0 ? 1 : version);
      std::size_t header_end = bytes.find('\n') + 1;
      EXPECT_EQ(header_end % 64, 0u);  // data aligned like np.save
      NpyArray a = read_npy(file, 2);
      EXPECT_EQ(a.dtype, dtype);
      EXPECT_THAT(a.shape, ElementsAre(2, 3));
      ASSERT_EQ(a.values.size(), kValues.size());
      for (std::size_t i = 0; i < kValues.size(); ++i) {
        EXPECT_EQ(std::bit_cast<std::uint32_t>(a.values[i]),
                  std::bit_cast<std::uint32_t>(kValues[i]));
      }
      EXPECT_EQ(a.source, file);
    }
  }
  EXPECT_EQ(list_dir(dir).size(), 16u);  // no temp files left
}

TEST(Npy, HeaderTextMatchesNpSave) {
  auto dir = scratch_dir();
  std::vector<float> v(12, 1.0f);
  write_npy(dir / "a.npy", v, std::vector<std::size_t>{3, 4}, NpyDtype::kFloat32);
  std::string bytes = read_bytes(dir / "a.npy");
  EXPECT_EQ(bytes.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  EXPECT_EQ(bytes.substr(10, 59), "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }");
  EXPECT_EQ(bytes.size(), 128u + 48u);
}

TEST(Npy, ScalarEmptyAndRank1Shapes) {
  auto dir = scratch_dir();
  write_npy(dir / "s.npy", std::vector<float>{7.0f}, std::vector<std::size_t>{},
            NpyDtype::kFloat32);
  NpyArray s = read_npy(dir / "s.npy", 0);
  EXPECT_TRUE(s.shape.empty());
  EXPECT_THAT(s.values, ElementsAre(7.0f));
  write_npy(dir / "e.npy", std::vector<float>{}, std::vector<std::size_t>{0, 5},
            NpyDtype::kFloat16);
  NpyArray e = read_npy(dir / "e.npy");
  EXPECT_THAT(e.shape, ElementsAre(0, 5));
  EXPECT_TRUE(e.values.empty());
  write_npy(dir / "r.npy", std::vector<float>{1, 2, 3}, std::vector<std::size_t>{3},
            NpyDtype::kFloat32);
  EXPECT_NE(read_bytes(dir / "r.npy").find("'shape': (3,), }"), std::string::npos);
}

TEST(Npy, LargeArrayCrossesChunks) {
  auto dir = scratch_dir();
  std::vector<float> v(200000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 2048) - 1024.0f;
  write_npy(dir / "big.npy", v, std::vector<std::size_t>{400, 500}, NpyDtype::kFloat16);
  EXPECT_EQ(read_npy(dir / "big.npy").values, v);
}

TEST(Npy, NarrowingRoundsAndOverflowThrows) {
  auto dir = scratch_dir();
  std::vector<float> v = {1.0f + std::ldexp(1.0f, -12), 0.1f};
  write_npy(dir / "h.npy", v, std::vector<std::size_t>{2}, NpyDtype::kFloat16);
  EXPECT_THAT(read_npy(dir / "h.npy").values,
              ElementsAre(1.0f, half_to_float(float_to_half(0.1f))));
  expect_error<NumericError>(
      [&] {
        write_npy(dir / "o.npy", std::vector<float>{1.0f, 70000.0f}, std::vector<std::size_t>{2},
                  NpyDtype::kFloat16);
      },
      {"o.npy", "index 1", "overflows float16"});
  EXPECT_FALSE(std::filesystem::exists(dir / "o.npy"));
  // Inf and NaN themselves are stored as they are.
  write_npy(dir / "i.npy", std::vector<float>{INFINITY, NAN}, std::vector<std::size_t>{2},
            NpyDtype::kBFloat16);
  NpyArray i = read_npy(dir / "i.npy");
  EXPECT_EQ(i.values[0], INFINITY);
  EXPECT_TRUE(std::isnan(i.values[1]));
  EXPECT_THROW(write_npy(dir / "w.npy", v, std::vector<std::size_t>{3}, NpyDtype::kFloat32),
               InternalError);
}

TEST(Npy, BFloat16DescrsAndU2Fallback) {
  auto dir = scratch_dir();
  std::vector<std::uint16_t> bits = {0x3F80, 0xC000, 0x4049};
  for (std::string_view descr : {"<V2", "|V2", "bfloat16"}) {
    write_bytes(
        dir / "b.npy",
        make_npy(fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': (3,), }}", descr),
                 raw(bits)));
    NpyArray a = read_npy(dir / "b.npy");
    EXPECT_EQ(a.dtype, NpyDtype::kBFloat16) << descr;
    EXPECT_THAT(a.values, ElementsAre(1.0f, -2.0f, 3.140625f)) << descr;
  }
  write_npy(dir / "b.npy", std::vector<float>{1.0f}, std::vector<std::size_t>{1},
            NpyDtype::kBFloat16);
  EXPECT_NE(read_bytes(dir / "b.npy").find("'descr': '<V2'"), std::string::npos);

  write_npy(dir / "u.npy", std::vector<float>{1.0f, -2.0f}, std::vector<std::size_t>{2},
            NpyDtype::kBFloat16, {.bfloat16_as_u2 = true});
  EXPECT_NE(read_bytes(dir / "u.npy").find("'descr': '<u2'"), std::string::npos);
  expect_error<DataFormatError>([&] { read_npy(dir / "u.npy"); },
                                {"u.npy", "unsupported dtype '<u2'", "caller"});
  NpyArray u = read_npy(dir / "u.npy", {.u2_is_bfloat16 = true});
  EXPECT_EQ(u.dtype, NpyDtype::kBFloat16);
  EXPECT_THAT(u.values, ElementsAre(1.0f, -2.0f));
}

TEST(Npy, Float64IsRoundedAndOverflowIsAnError) {
  auto dir = scratch_dir();
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }";
  write_bytes(dir / "d.npy", make_npy(dict, raw(std::vector<double>{0.1, -1e-300, INFINITY})));
  EXPECT_THAT(read_npy(dir / "d.npy").values, ElementsAre(0.1f, -0.0f, INFINITY));
  write_bytes(dir / "d.npy", make_npy(dict, raw(std::vector<double>{1.0, 2.0, 1e300})));
  expect_error<DataFormatError>([&] { read_npy(dir / "d.npy"); },
                                {"d.npy", "index 2", "overflows float32"});
}

TEST(Npy, RequireShape) {
  NpyArray a;
  a.shape = {4, 3};
  a.source = "w.npy";
  require_npy_shape(a, {4, 3});
  require_npy_shape(a, {kAnyExtent, 3});
  std::vector<std::size_t> expected = {4, kAnyExtent};
  require_npy_shape(a, expected);
  expect_error<DataFormatError>(
      [&] {
        require_npy_shape(a, {4, 5});
      },
      {"w.npy", "expected shape (4, 5), found (4, 3)"});
  expect_error<DataFormatError>([&] { require_npy_shape(a, {kAnyExtent}); },
                                {"expected shape (*,), found (4, 3)"});
}

// --- Hand-crafted bad files: each error names the file and what was expected. ---

class NpyBadFile : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = scratch_dir(); }
  void expect_bad(std::string_view bytes, std::initializer_list<std::string_view> parts,
                  const NpyReadOptions& options = {}) {
    write_bytes(dir_ / "bad.npy", bytes);
    expect_error<DataFormatError>([&] { read_npy(dir_ / "bad.npy", options); }, parts);
    expect_error<DataFormatError>([&] { read_npy(dir_ / "bad.npy", options); }, {"bad.npy"});
  }
  std::string f4(std::string_view shape, std::size_t floats, std::string_view descr = "<f4",
                 std::string_view order = "False") {
    return make_npy(
        fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}", descr, order, shape),
        std::string(floats * 4, '\0'));
  }
  std::filesystem::path dir_;
};

TEST_F(NpyBadFile, MissingFileIsInputError) {
  expect_error<InputError>([&] { read_npy(dir_ / "absent.npy"); }, {"absent.npy", "No such file"});
}

TEST_F(NpyBadFile, BadMagicAndVersion) {
  expect_bad("PK\x03\x04 this is a zip", {"is not a .npy file", "magic", "50 4b 03 04"});
  expect_bad("", {"is not a .npy file"});
  std::string v4 = f4("(2,)", 2);
  v4[6] = 4;
  expect_bad(v4, {"unsupported .npy format version 4.0", "expected 1.0, 2.0 or 3.0"});
}

TEST_F(NpyBadFile, HeaderLengthLimitsAndTruncatedHeader) {
  std::string huge = "\x93NUMPY\x02";
  huge += std::string("\0\xff\xff\xff\x7f", 5);  // declares a 2 GiB header
  expect_bad(huge, {"header length 2147483647 bytes exceeds the limit"});
  std::string cut = f4("(2,)", 0).substr(0, 40);
  expect_bad(cut, {"truncated .npy header"});
  expect_bad(f4("(2,)", 2), {"exceeds the limit of 16 bytes"}, {.max_header_bytes = 16});
}

TEST_F(NpyBadFile, BigEndianFortranAndUnsupportedDtypes) {
  expect_bad(f4("(2,)", 2, ">f4"), {"big-endian dtype '>f4'", "expected little-endian '<f4'"});
  expect_bad(f4("(2, 2)", 4, "<f4", "True"),
             {"Fortran-order", "expected fortran_order False, found True"});
  expect_bad(f4("(2,)", 2, "<i4"), {"unsupported dtype '<i4'", "expected '<f4', '<f2', '<f8'"});
  expect_bad(make_npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
                      std::string(8, '\0')),
             {"malformed .npy header", "a quoted string"});
}

TEST_F(NpyBadFile, MalformedHeaderDicts) {
  auto with = [&](std::string_view dict) { return make_npy(dict, std::string(8, '\0')); };
  expect_bad(with("{'descr': '<f4', 'shape': (2,), }"), {"malformed .npy header", "all of"});
  expect_bad(with("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"),
             {"one of the keys"});
  expect_bad(with("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}"),
             {"one of the keys"});
  expect_bad(with("{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}"), {"True or False"});
  expect_bad(with("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}"),
             {"non-negative integer extent"});
  expect_bad(with("{'descr': '<f4', 'fortran_order': False, 'shape': [2]}"), {"'('"});
  expect_bad(with("{'descr': '<f4', 'fortran_order': False, 'shape': (2,) junk"), {"',' or '}'"});
  expect_bad(with("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk"),
             {"only padding"});
  expect_bad(with("{'descr: '<f4'}"), {"':'"});
  expect_bad(with("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}"),
             {"fits in 64 bits"});
}

TEST_F(NpyBadFile, DataSizeMismatchAndOverflowingShapes) {
  expect_bad(f4("(3, 4)", 11),
             {"shape (3, 4) of <f4 needs 48 data bytes but the file holds 44", "truncated"});
  expect_bad(f4("(2,)", 3), {"needs 8 data bytes but the file holds 12"});
  expect_bad(f4("(4294967296, 4294967296)", 1), {"too many elements"});
  expect_bad(f4("(4611686018427387904,)", 1), {"too many elements"});  // * 4 bytes overflows
  expect_bad(f4("(1000000000000,)", 1), {"needs 4000000000000 data bytes"});
}

TEST_F(NpyBadFile, RankMismatch) {
  expect_bad(f4("(2, 3)", 6), {"expected a rank-1 array, found shape (2, 3)"},
             {.expected_rank = 1});
}

// A file written by the real NumPy, when Debian's python3-numpy is installed.
TEST(Npy, ReadsAndMatchesRealNumpy) {
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "numpy not importable by /usr/bin/python3 (Debian package python3-numpy)";
  }
  auto dir = scratch_dir();
  std::string script = fmt::format(
      "import numpy as np\n"
      "a = (np.arange(12, dtype=np.float64).reshape(3, 4) - 5.5) / 4\n"
      "np.save('{0}/f4.npy', a.astype('<f4'))\n"
      "np.save('{0}/f2.npy', a.astype('<f2'))\n"
      "np.save('{0}/f8.npy', a)\n"
      "np.save('{0}/v2.npy', (a.astype('<f4').view('<u4') >> 16).astype('<u2').view('V2'))\n"
      "np.lib.format.write_array(open('{0}/v3.npy', 'wb'), a.astype('<f4'), version=(3, 0))\n",
      dir.string());
  testing::write_bytes(dir / "make.py", script);
  ASSERT_EQ(std::system(fmt::format("/usr/bin/python3 '{}'", (dir / "make.py").string()).c_str()),
            0);
  std::vector<float> expected(12);
  for (int i = 0; i < 12; ++i) expected[i] = (static_cast<float>(i) - 5.5f) / 4;
  for (std::string name : {"f4", "f2", "f8", "v2", "v3"}) {
    SCOPED_TRACE(name);
    NpyArray a = read_npy(dir / (name + ".npy"), 2);
    EXPECT_THAT(a.shape, ElementsAre(3, 4));
    EXPECT_EQ(a.values, expected);  // all exact in float16 and bfloat16
  }
  EXPECT_EQ(read_npy(dir / "v2.npy").dtype, NpyDtype::kBFloat16);
  // Our writer produces np.save's bytes exactly.
  write_npy(dir / "ours_f4.npy", expected, std::vector<std::size_t>{3, 4}, NpyDtype::kFloat32);
  write_npy(dir / "ours_f2.npy", expected, std::vector<std::size_t>{3, 4}, NpyDtype::kFloat16);
  write_npy(dir / "ours_f8.npy", expected, std::vector<std::size_t>{3, 4}, NpyDtype::kFloat64);
  EXPECT_EQ(read_bytes(dir / "ours_f4.npy"), read_bytes(dir / "f4.npy"));
  EXPECT_EQ(read_bytes(dir / "ours_f2.npy"), read_bytes(dir / "f2.npy"));
  EXPECT_EQ(read_bytes(dir / "ours_f8.npy"), read_bytes(dir / "f8.npy"));
  EXPECT_EQ(read_bytes(dir / "v2.npy").substr(10, 16), "{'descr': '|V2',");
}

}  // namespace
}  // namespace lightsim
