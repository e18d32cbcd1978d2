#include "lightsim/core/units.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lightsim/core/error.h"

namespace lightsim {
namespace {

using namespace lightsim::literals;

// --- compile-time dimension algebra ---------------------------------------------------------
static_assert(dims::energy == Dim{.m2 = 4, .kg2 = 2, .s2 = -4});
static_assert(dims::power == Dim{.m2 = 4, .kg2 = 2, .s2 = -6});
static_assert(dims::bandwidth == Dim{.s2 = -2, .B2 = 2});
static_assert(dims::current_noise_density == Dim{.s2 = 1, .A2 = 2});
static_assert(sqrt(dims::frequency) == Dim{.s2 = -1});
static_assert(std::is_same_v<decltype(Length{} * Length{}), Area>);
static_assert(std::is_same_v<decltype(Power{} * Time{}), Energy>);
static_assert(std::is_same_v<decltype(Energy{} / DataSize{}), EnergyPerByte>);
static_assert(std::is_same_v<decltype(DataSize{} / Time{}), Bandwidth>);
static_assert(std::is_same_v<decltype(Flops{} / Time{}), FlopRate>);
static_assert(std::is_same_v<decltype(Current{} / Power{}), Responsivity>);
static_assert(std::is_same_v<decltype(Voltage{} / Current{}), Resistance>);
static_assert(std::is_same_v<decltype(Length{} / Length{}), double>);
static_assert(std::is_same_v<decltype(Frequency{} * Time{}), double>);
static_assert(std::is_same_v<decltype(1.0 / Time{}), Frequency>);
static_assert(
    std::is_same_v<decltype(CurrentNoiseDensity{} * Quantity<sqrt(dims::frequency)>{}), Current>);
static_assert((2.0_W * 3.0_s).si() == 6.0);
static_assert((1550.0_nm).si() > 1.5499e-6 && (1550.0_nm).si() < 1.5501e-6);
static_assert((1.0_mW).si() == 1e-3);

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// Message of the UnitError `fn` throws ("" if it does not throw one).
template <class Fn>
std::string unit_error(Fn fn) {
  try {
    fn();
  } catch (const UnitError& e) {
    return e.what();
  }
  return "";
}

std::string parse_error(std::string_view text) {
  return unit_error([&] { parse_quantity(text); });
}

#define EXPECT_CONTAINS(haystack, needle)                          \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) \
      << "\"" << (haystack) << "\" lacks \"" << (needle) << "\""

// --- parsing ------------------------------------------------------------------------------
struct Example {
  const char* text;
  double si;
  Dim dim;
};

TEST(Units, ParsesTheSpecExamplesExactly) {
  const std::vector<Example> examples = {
      {"1550 nm", 1.55e-6, dims::length},
      {"155 pm", 1.55e-10, dims::length},
      {"0.2 dB", 0.2, dims::decibel},
      {"31 pJ/B", 3.1e-11, dims::energy_per_byte},
      {"900 GB/s", 9e11, dims::bandwidth},
      {"112 Gb/s", 1.4e10, dims::bandwidth},
      {"5 pA/sqrt(Hz)", 5e-12, dims::current_noise_density},
      {"14 PFLOP/s", 1.4e16, dims::work_rate},
      {"14 PFLOPS", 1.4e16, dims::work_rate},
      {"0.5 C/W", 0.5, dims::thermal_resistance},
      {"28.5 pm/V", 2.85e-11, dims::tuning_efficiency},
      {"1 W", 1.0, dims::power},
      {"0.05 K", 0.05, dims::temperature},
      {"1.6 nm", 1.6e-9, dims::length},
      {"3 dB/cm", 300.0, dims::loss_per_length},
      {"8 GiB", 8.0 * 1024 * 1024 * 1024, dims::data},
      {"1e4", 1e4, dims::none},
      {"7.9 TB/s", 7.9e12, dims::bandwidth},
      {"10 ns", 1e-8, dims::time},
      {"1 GHz", 1e9, dims::frequency},
      {"5 fJ", 5e-15, dims::energy},
      {"1 uW", 1e-6, dims::power},
      {"0.7 A/W", 0.7, dims::responsivity},
  };
  for (const Example& e : examples) {
    const ParsedQuantity p = parse_quantity(e.text);
    EXPECT_EQ(p.si, e.si) << e.text;
    EXPECT_EQ(p.dim, e.dim) << e.text << " is a " << dimension_name(p.dim);
  }
  EXPECT_DOUBLE_EQ(parse<dims::power>("-15.9 dBm").si(), 1e-3 * std::pow(10.0, -1.59));
}

TEST(Units, ParsesSpellingsAndOperators) {
  const std::vector<Example> examples = {
      {"  1550nm\t", 1.55e-6, dims::length},
      {"+2.5 mm", 2.5e-3, dims::length},
      {"-3 cm", -0.03, dims::length},
      {".5 m", 0.5, dims::length},
      {"1E3 m", 1e3, dims::length},
      {"0x1p3 m", 8.0, dims::length},
      {"2 \u00b5m", 2e-6, dims::length},
      {"2 \u03bcm", 2e-6, dims::length},
      {"3 k\u03a9", 3e3, dims::resistance},
      {"3 kOhm", 3e3, dims::resistance},
      {"10 fF", 1e-14, dims::capacitance},
      {"0.5 \u00b0C/W", 0.5, dims::thermal_resistance},
      {"0.5 degC/W", 0.5, dims::thermal_resistance},
      {"1 kg", 1.0, dims::mass},
      {"1 g", 1e-3, dims::mass},
      {"3 mg", 3e-6, dims::mass},
      {"1 KiB", 1024.0, dims::data},
      {"1 bit", 0.125, dims::data},
      {"8 kb", 1e3, dims::data},
      {"1 MiB/s", 1048576.0, dims::bandwidth},
      {"5 pA/rtHz", 5e-12, dims::current_noise_density},
      {"5 pA/\u221aHz", 5e-12, dims::current_noise_density},
      {"5 pA / sqrt( Hz )", 5e-12, dims::current_noise_density},
      {"1 pW/sqrt(Hz)", 1e-12, dims::power_noise_density},
      {"1 s^-1", 1.0, dims::frequency},
      {"2 m^2", 2.0, dims::area},
      {"2 um^2", 2e-12, dims::area},
      {"2 m\u00b2", 2.0, dims::area},
      {"2 s\u207b\u00b9", 2.0, dims::frequency},
      {"1 kg m^2 s^-2", 1.0, dims::energy},
      {"1 kg.m^2/s^3", 1.0, dims::power},
      {"1 A*s", 1.0, dims::charge},
      {"2 W/(m K)", 2.0, dims::power / (dims::length * dims::temperature)},
      {"1 m/s/s", 1.0, dims::length / (dims::time * dims::time)},
      {"3e-5 1/K", 3e-5, dims::per_temperature},
      {"3 ppm/K", 3e-6, dims::per_temperature},
      {"5 %", 0.05, dims::none},
      {"5%", 0.05, dims::none},
      {"2 ppm", 2e-6, dims::none},
      {"2 mA/mW", 2.0, dims::responsivity},
      {"1 nm/K", 1e-9, dims::thermal_shift},
      {"2 K/mW", 2e3, dims::thermal_resistance},
      {"0.3 pJ/FLOP", 3e-13, dims::energy_per_work},
      {"5 TFLOP", 5e12, dims::work},
      {"1 dB/mm", 1e3, dims::loss_per_length},
      {"-0", -0.0, dims::none},
  };
  for (const Example& e : examples) {
    const ParsedQuantity p = parse_quantity(e.text);
    EXPECT_TRUE(same_bits(p.si, e.si)) << e.text << ": " << p.si << " != " << e.si;
    EXPECT_EQ(p.dim, e.dim) << e.text << " is a " << dimension_name(p.dim);
  }
  EXPECT_NEAR(parse_quantity("1 sqrt(kHz)").si, std::sqrt(1e3), 1e-12);
}

TEST(Units, TypedParseReturnsTheQuantity) {
  const Length lambda = parse<dims::length>("1550 nm");
  EXPECT_EQ(lambda.si(), 1.55e-6);
  EXPECT_EQ(lambda.in("nm"), 1550.0);
  EXPECT_EQ(parse<dims::bandwidth>("112 Gb/s").in("Gb/s"), 112.0);
  EXPECT_NEAR(parse<dims::power>("-15.9 dBm").in("dBm"), -15.9, 1e-12);
  EXPECT_EQ(parse<dims::none>("0.25"), Quantity<dims::none>::si(0.25));
  EXPECT_CONTAINS(unit_error([&] { (void)lambda.in("ns"); }), "cannot express a length in \"ns\"");
}

TEST(Units, ByteSizesTakeNcclTestsSuffixesInPowersOf1024) {
  // nccl-tests' -b/-e sizes: "8G" was refused ("did you mean g?", grams).
  EXPECT_EQ(parse<dims::data>("8G").si(), 8.0 * (1u << 30));
  EXPECT_EQ(parse<dims::data>("512M").si(), 512.0 * (1u << 20));
  EXPECT_EQ(parse<dims::data>("64k").si(), 64.0 * 1024);
  EXPECT_EQ(parse<dims::data>("1.5 T").si(), 1.5 * 1099511627776.0);
  EXPECT_EQ(parse<dims::data>("8 GB").si(), 8e9);  // a unit keeps its meaning
  EXPECT_EQ(parse<dims::data>("8GiB").si(), 8.0 * (1u << 30));
  // Only for sizes: a temperature of "300 K" is kelvin, a bare "8G" elsewhere is an error.
  EXPECT_EQ(parse<dims::temperature>("300 K").si(), 300.0);
  EXPECT_CONTAINS(unit_error([] { (void)parse<dims::time>("8G"); }), "\"G\"");
  EXPECT_CONTAINS(unit_error([] { (void)parse<dims::data>("G"); }), "missing number");
  EXPECT_CONTAINS(unit_error([] { (void)parse<dims::data>("5 m"); }), "expected a data size");
}

// --- errors -------------------------------------------------------------------------------
TEST(Units, ErrorsQuoteTheTextAndSayWhatIsWrong) {
  EXPECT_CONTAINS(parse_error(""), "empty quantity");
  EXPECT_CONTAINS(parse_error("   "), "empty quantity");
  EXPECT_CONTAINS(parse_error("nm"), "missing number in \"nm\"");
  EXPECT_CONTAINS(parse_error("- 5 m"), "missing number");
  EXPECT_CONTAINS(parse_error("5 nM"), "unknown unit \"nM\" in \"5 nM\"; did you mean \"nm\"?");
  EXPECT_CONTAINS(parse_error("1 Mhz"), "did you mean \"MHz\"?");
  EXPECT_CONTAINS(parse_error("1 Gbit/sec"), "unknown unit \"sec\"");
  EXPECT_CONTAINS(parse_error("3 furlong"), "known symbols: dBm, m, g, s");
  EXPECT_CONTAINS(parse_error("nan m"), "is not a finite number");
  EXPECT_CONTAINS(parse_error("inf"), "is not a finite number");
  EXPECT_CONTAINS(parse_error("-Infinity W"), "is not a finite number");
  EXPECT_CONTAINS(parse_error("1e400 m"), "number out of range");
  EXPECT_CONTAINS(parse_error("1e308 km"), "value out of range");
  EXPECT_CONTAINS(parse_error("3 dBm/Hz"), "dBm is an absolute power level and must stand alone");
  EXPECT_CONTAINS(parse_error("3 mdB"), "\"dB\" takes no prefix");
  EXPECT_CONTAINS(parse_error("3 Kim"), "binary prefix \"Ki\" applies to data units");
  EXPECT_CONTAINS(parse_error("3 W/m K"), "use parentheses, e.g. W/(m K)");
  EXPECT_CONTAINS(parse_error("3 m2"), "write exponents as m^2");
  EXPECT_CONTAINS(parse_error("3 m^x"), "integer exponent");
  EXPECT_CONTAINS(parse_error("3 mdB/m"),
                  "bad unit \"mdB/m\" in \"3 mdB/m\": \"mdB\": \"dB\" takes");
  EXPECT_CONTAINS(parse_error("3 GHz^0.5"), "exponents must be integers");
  EXPECT_CONTAINS(parse_error("1,5 m"), "the decimal separator is '.'");
  EXPECT_CONTAINS(parse_error("5 pA/sqrt Hz"), "sqrt must be followed by '('");
  EXPECT_CONTAINS(parse_error("5 pA/sqrt(Hz"), "missing ')'");
  EXPECT_CONTAINS(parse_error("5 sqrt(sqrt(Hz))"), "quarter power");
  EXPECT_CONTAINS(parse_error("5 m/"), "a unit symbol is missing at the end");
  EXPECT_CONTAINS(parse_error("5 m^99"), "out of range");
  EXPECT_CONTAINS(parse_error("5 \"m\""), "bad unit \"\\\"m\\\"\"");
}

TEST(Units, WrongDimensionNamesBothDimensions) {
  EXPECT_EQ(unit_error([] { parse<dims::length>("3 ns"); }),
            "expected a length (e.g. m, nm, um, pm), got \"3 ns\" (a time)");
  EXPECT_EQ(unit_error([] { parse<dims::energy_per_byte>(" 3 W "); }),
            "expected an energy per byte (e.g. J/B, pJ/B, pJ/b), got \"3 W\" (a power)");
  EXPECT_EQ(unit_error([] { parse<dims::none>("3 m"); }),
            "expected a dimensionless number (e.g. 0.5, 5 %, 3 ppm), got \"3 m\" (a length)");
  EXPECT_EQ(unit_error([] { parse<dims::length>("3 m^2 kg"); }),
            "expected a length (e.g. m, nm, um, pm), got \"3 m^2 kg\" (a quantity in m^2 kg)");
  EXPECT_EQ(unit_error([] { parse<dims::power>("3 %"); }),
            "expected a power (e.g. W, mW, uW, dBm), got \"3 %\" (a dimensionless number)");
}

TEST(Units, BareNumberForADimensionSaysTheUnitIsMissing) {
  EXPECT_EQ(unit_error([] { parse<dims::length>("1550"); }),
            "missing unit: expected a length (e.g. m, nm, um, pm), got \"1550\"");
  EXPECT_CONTAINS(unit_error([] { parse<dims::bandwidth>("1e9"); }), "missing unit");
  EXPECT_CONTAINS(unit_error([] { parse<dims::bandwidth>("1e9"); }), "a bandwidth");
}

// --- names and canonical units --------------------------------------------------------------
struct Named {
  Dim dim;
  const char* name;
  const char* unit;
};

const std::vector<Named>& named_dims() {
  static const std::vector<Named> kNamed = {
      {dims::none, "dimensionless number", ""},
      {dims::length, "length", "m"},
      {dims::area, "area", "m^2"},
      {dims::mass, "mass", "kg"},
      {dims::time, "time", "s"},
      {dims::frequency, "frequency", "Hz"},
      {dims::current, "current", "A"},
      {dims::temperature, "temperature difference", "K"},
      {dims::data, "data size", "B"},
      {dims::work, "amount of work", "FLOP"},
      {dims::decibel, "decibel ratio", "dB"},
      {dims::energy, "energy", "J"},
      {dims::power, "power", "W"},
      {dims::charge, "charge", "A s"},
      {dims::voltage, "voltage", "V"},
      {dims::resistance, "resistance", "Ohm"},
      {dims::capacitance, "capacitance", "F"},
      {dims::bandwidth, "bandwidth", "B/s"},
      {dims::energy_per_byte, "energy per byte", "J/B"},
      {dims::energy_per_work, "energy per FLOP", "J/FLOP"},
      {dims::work_rate, "FLOP rate", "FLOP/s"},
      {dims::per_sqrt_hertz, "inverse square-root frequency", "1/sqrt(Hz)"},
      {dims::current_noise_density, "current noise density", "A/sqrt(Hz)"},
      {dims::power_noise_density, "power noise density", "W/sqrt(Hz)"},
      {dims::responsivity, "responsivity", "A/W"},
      {dims::tuning_efficiency, "tuning efficiency", "m/V"},
      {dims::thermal_shift, "thermal shift", "m/K"},
      {dims::thermal_resistance, "thermal resistance", "K/W"},
      {dims::loss_per_length, "loss per length", "dB/m"},
      {dims::per_temperature, "temperature coefficient", "1/K"},
  };
  return kNamed;
}

// Dimensions without a name, including half powers.
const std::vector<Dim>& unnamed_dims() {
  static const std::vector<Dim> kUnnamed = {
      dims::power / dims::area,
      dims::length * dims::area,
      Dim{.m2 = 4, .kg2 = 2, .s2 = -6},
      Dim{.s2 = 3, .A2 = -1},
      Dim{.K2 = 2, .B2 = -2},
      Dim{.flop2 = -2, .dB2 = 2},
      Dim{.m2 = -3},
      Dim{.kg2 = 1, .K2 = 4},
  };
  return kUnnamed;
}

TEST(Units, NamedDimensionsHaveNamesCanonicalUnitsAndExamples) {
  for (const Named& n : named_dims()) {
    EXPECT_EQ(dimension_name(n.dim), n.name);
    EXPECT_EQ(canonical_unit(n.dim), n.unit) << n.name;
    const ParsedQuantity one = parse_quantity(std::string("1 ") + n.unit);
    EXPECT_EQ(one.si, 1.0) << n.name;
    EXPECT_EQ(one.dim, n.dim) << n.name;
    if (n.dim == dims::none) continue;
    const std::string examples = example_units(n.dim);
    std::size_t start = 0;
    while (start < examples.size()) {
      std::size_t end = examples.find(", ", start);
      if (end == std::string::npos) end = examples.size();
      const std::string text = "2 " + examples.substr(start, end - start);
      EXPECT_EQ(parse_quantity(text).dim, n.dim) << text;
      start = end + 2;
    }
  }
}

TEST(Units, UnnamedDimensionsPrintAParseableFormula) {
  EXPECT_EQ(dimension_name(Dim{.m2 = 4, .kg2 = 2, .s2 = -6, .A2 = -6}), "m^2 kg s^-3 A^-3");
  EXPECT_EQ(canonical_unit(Dim{.s2 = 3, .A2 = -1}), "s sqrt(s A^-1)");
  for (const Dim d : unnamed_dims()) {
    const ParsedQuantity p = parse_quantity("1 " + canonical_unit(d));
    EXPECT_EQ(p.dim, d) << canonical_unit(d);
    EXPECT_EQ(p.si, 1.0) << canonical_unit(d);
  }
}

// --- printing and round trip ----------------------------------------------------------------
TEST(Units, FormatsWithAnSIPrefixOnTheFirstAtom) {
  EXPECT_EQ(to_string(parse<dims::length>("1550 nm")), "1.55 um");
  EXPECT_EQ(to_string(parse<dims::length>("155 pm")), "155 pm");
  EXPECT_EQ(to_string(parse<dims::bandwidth>("112 Gb/s")), "14 GB/s");
  EXPECT_EQ(to_string(parse<dims::bandwidth>("7.9 TB/s")), "7.9 TB/s");
  EXPECT_EQ(to_string(parse<dims::current_noise_density>("5 pA/rtHz")), "5 pA/sqrt(Hz)");
  EXPECT_EQ(to_string(parse<dims::work_rate>("14 PFLOPS")), "14 PFLOP/s");
  EXPECT_EQ(to_string(parse<dims::energy_per_byte>("31 pJ/B")), "31 pJ/B");
  EXPECT_EQ(to_string(parse<dims::thermal_resistance>("0.5 C/W")), "500 mK/W");
  EXPECT_EQ(to_string(parse<dims::power>("0 dBm")), "1 mW");
  EXPECT_EQ(to_string(parse<dims::resistance>("1e3 Ohm")), "1 kOhm");
  EXPECT_EQ(to_string(parse<dims::mass>("1 kg")), "1 kg");
  EXPECT_EQ(to_string(parse<dims::mass>("2.5 mg")), "2.5 mg");
  EXPECT_EQ(to_string(parse<dims::time>("-10 ns")), "-10 ns");
  EXPECT_EQ(to_string(parse<dims::length>("123456 m")), "123.456 km");
  EXPECT_EQ(to_string(Length::si(1e30)), "1e+30 m");
  EXPECT_EQ(to_string(Length{}), "0 m");
  EXPECT_EQ(to_string(Length::si(-0.0)), "-0 m");
  EXPECT_EQ(to_string(parse<dims::decibel>("0.2 dB")), "0.2 dB");
  EXPECT_EQ(to_string(parse<dims::loss_per_length>("3 dB/cm")), "300 dB/m");
  EXPECT_EQ(to_string(parse<dims::none>("1e4")), "10000");
  EXPECT_EQ(to_string(parse<dims::per_temperature>("3 ppm/K")), "3e-06 1/K");
  EXPECT_EQ(format_quantity(2.0, dims::power / dims::length), "2 m kg s^-3");
}

// Random doubles: random bit patterns (all magnitudes, subnormals) and short decimals.
std::vector<double> random_doubles(std::mt19937_64& rng, int count) {
  std::vector<double> out;
  std::uniform_int_distribution<int> digits(1, 9999);
  std::uniform_int_distribution<int> exponent(-25, 25);
  while (static_cast<int>(out.size()) < count) {
    const double bits = std::bit_cast<double>(rng());
    if (std::isfinite(bits)) out.push_back(bits);
    const double decimal = digits(rng) * std::pow(10.0, exponent(rng));
    out.push_back(rng() % 2 == 0 ? decimal : -decimal);
  }
  out.push_back(std::numeric_limits<double>::denorm_min());
  out.push_back(std::numeric_limits<double>::max());
  out.push_back(-std::numeric_limits<double>::min());
  return out;
}

TEST(Units, FormatRoundTripsBitExactlyForEveryDimension) {
  std::mt19937_64 rng(20240613);
  std::vector<Dim> all;
  for (const Named& n : named_dims()) all.push_back(n.dim);
  for (const Dim d : unnamed_dims()) all.push_back(d);
  int checked = 0;
  for (const Dim d : all) {
    for (const double v : random_doubles(rng, 2000)) {
      const std::string text = format_quantity(v, d);
      const ParsedQuantity back = parse_quantity(text);
      ASSERT_TRUE(same_bits(back.si, v))
          << text << " -> " << back.si << " != " << v << " (" << dimension_name(d) << ")";
      ASSERT_EQ(back.dim, d) << text;
      ++checked;
    }
  }
  EXPECT_GE(checked, 2000 * static_cast<int>(all.size()));
}

TEST(Units, PrefixedMantissaIsBetweenOneAndAThousand) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log_value(-17.5, 20.5);
  for (int i = 0; i < 5000; ++i) {
    const double v = std::pow(10.0, log_value(rng));
    const std::string text = format_quantity(v, dims::length);
    const double mantissa = std::stod(text.substr(0, text.find(' ')));
    EXPECT_GE(mantissa, 1.0) << text;
    EXPECT_LT(mantissa, 1000.0) << text;
  }
}

// --- logarithmic helpers --------------------------------------------------------------------
TEST(Units, DecibelHelpers) {
  EXPECT_EQ(from_dbm(0.0).si(), 1e-3);
  EXPECT_EQ(to_dbm(Power::si(1e-3)), 0.0);
  EXPECT_DOUBLE_EQ(from_dbm(10.0).si(), 1e-2);
  EXPECT_DOUBLE_EQ(to_dbm(Power::si(1.0)), 30.0);
  EXPECT_NEAR(to_power_ratio(Decibel::si(3.0103)), 2.0, 1e-5);
  EXPECT_NEAR(from_power_ratio(2.0).si(), 3.0103, 1e-4);
  EXPECT_DOUBLE_EQ(from_power_ratio(100.0).si(), 20.0);
  EXPECT_DOUBLE_EQ(to_power_ratio(from_power_ratio(0.37)), 0.37);
  EXPECT_CONTAINS(unit_error([] { to_dbm(Power{}); }), "cannot express 0 W in dBm");
  EXPECT_CONTAINS(unit_error([] { from_power_ratio(-1.0); }), "must be positive");
  EXPECT_CONTAINS(unit_error([] { from_dbm(std::nan("")); }), "not a finite power level");
}

}  // namespace
}  // namespace lightsim
