// Typed physical quantities, unit-string parsing and printing (docs/units.md).
//
// A Quantity<D> stores one double in coherent SI base units (m, kg, s, A, K) plus the
// project's extra base dimensions: bytes (B) for data, FLOP for work, and dB for
// logarithmic ratios. Arithmetic checks dimensions at compile time; parsing checks them at
// run time and names the expected dimension on failure. Inner loops take `.si()` doubles.
//
//   Length lambda = parse<dims::length>("1550 nm");   // lambda.si() == 1.55e-6
//   Bandwidth bw  = parse<dims::bandwidth>("112 Gb/s");  // stored as 1.4e10 B/s
//   to_string(lambda) == "1.55 um"; parse(to_string(q)) == q exactly.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace lightsim {

// Exponents of the base dimensions, stored doubled so that square roots
// (noise densities in A/sqrt(Hz)) stay integral: m2 == 2 means metre^1.
struct Dim {
  std::int8_t m2 = 0;     // length, metre
  std::int8_t kg2 = 0;    // mass, kilogram
  std::int8_t s2 = 0;     // time, second
  std::int8_t A2 = 0;     // electric current, ampere
  std::int8_t K2 = 0;     // temperature difference, kelvin
  std::int8_t B2 = 0;     // data, byte
  std::int8_t flop2 = 0;  // work, floating-point operation
  std::int8_t dB2 = 0;    // logarithmic ratio, decibel

  constexpr bool operator==(const Dim&) const = default;
};

constexpr Dim operator*(Dim a, Dim b) {
  return {static_cast<std::int8_t>(a.m2 + b.m2),       static_cast<std::int8_t>(a.kg2 + b.kg2),
          static_cast<std::int8_t>(a.s2 + b.s2),       static_cast<std::int8_t>(a.A2 + b.A2),
          static_cast<std::int8_t>(a.K2 + b.K2),       static_cast<std::int8_t>(a.B2 + b.B2),
          static_cast<std::int8_t>(a.flop2 + b.flop2), static_cast<std::int8_t>(a.dB2 + b.dB2)};
}
constexpr Dim inverse(Dim a) {
  return {static_cast<std::int8_t>(-a.m2),    static_cast<std::int8_t>(-a.kg2),
          static_cast<std::int8_t>(-a.s2),    static_cast<std::int8_t>(-a.A2),
          static_cast<std::int8_t>(-a.K2),    static_cast<std::int8_t>(-a.B2),
          static_cast<std::int8_t>(-a.flop2), static_cast<std::int8_t>(-a.dB2)};
}
constexpr Dim operator/(Dim a, Dim b) {
  return a * inverse(b);
}
// Square root of a dimension (every doubled exponent must be even).
constexpr Dim sqrt(Dim a) {
  return {static_cast<std::int8_t>(a.m2 / 2),    static_cast<std::int8_t>(a.kg2 / 2),
          static_cast<std::int8_t>(a.s2 / 2),    static_cast<std::int8_t>(a.A2 / 2),
          static_cast<std::int8_t>(a.K2 / 2),    static_cast<std::int8_t>(a.B2 / 2),
          static_cast<std::int8_t>(a.flop2 / 2), static_cast<std::int8_t>(a.dB2 / 2)};
}

namespace dims {
inline constexpr Dim none{};
inline constexpr Dim length{.m2 = 2};
inline constexpr Dim mass{.kg2 = 2};
inline constexpr Dim time{.s2 = 2};
inline constexpr Dim current{.A2 = 2};
inline constexpr Dim temperature{.K2 = 2};  // a temperature difference
inline constexpr Dim data{.B2 = 2};
inline constexpr Dim work{.flop2 = 2};
inline constexpr Dim decibel{.dB2 = 2};

inline constexpr Dim area = length * length;
inline constexpr Dim frequency = inverse(time);
inline constexpr Dim energy = mass * area / (time * time);
inline constexpr Dim power = energy / time;
inline constexpr Dim charge = current * time;
inline constexpr Dim voltage = power / current;
inline constexpr Dim resistance = voltage / current;
inline constexpr Dim capacitance = charge / voltage;
inline constexpr Dim bandwidth = data / time;
inline constexpr Dim energy_per_byte = energy / data;
inline constexpr Dim energy_per_work = energy / work;
inline constexpr Dim work_rate = work / time;
inline constexpr Dim per_sqrt_hertz{.s2 = 1};                           // 1/sqrt(Hz) = s^(1/2)
inline constexpr Dim current_noise_density = current * per_sqrt_hertz;  // A/sqrt(Hz)
inline constexpr Dim power_noise_density = power * per_sqrt_hertz;      // W/sqrt(Hz)
inline constexpr Dim responsivity = current / power;                    // A/W
inline constexpr Dim tuning_efficiency = length / voltage;      // m/V (resonance shift per volt)
inline constexpr Dim thermal_shift = length / temperature;      // m/K
inline constexpr Dim thermal_resistance = temperature / power;  // K/W
inline constexpr Dim loss_per_length = decibel / length;        // dB/m
inline constexpr Dim per_temperature = inverse(temperature);    // 1/K
}  // namespace dims

// Converts `si` (SI base units of dimension d) to a value in `unit`, e.g. 1.55e-6 m in "nm"
// -> 1550; "dBm" is accepted for powers. Throws UnitError if `unit` is unknown or of another
// dimension. Used by Quantity::in.
double convert_to_unit(double si, Dim d, std::string_view unit);

template <Dim D>
class Quantity {
 public:
  static constexpr Dim dim = D;

  constexpr Quantity() = default;  // zero
  // Construct from a value already in coherent SI base units (see file comment).
  static constexpr Quantity si(double value) { return Quantity(value); }
  // The value in coherent SI base units.
  constexpr double si() const { return value_; }
  // The value expressed in `unit` (same dimension, or "dBm" for a power); throws UnitError.
  // Parses the unit string on each call: convert once, outside inner loops.
  double in(std::string_view unit) const { return convert_to_unit(value_, D, unit); }

  constexpr Quantity operator+(Quantity o) const { return Quantity(value_ + o.value_); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value_ - o.value_); }
  constexpr Quantity operator-() const { return Quantity(-value_); }
  constexpr Quantity& operator+=(Quantity o) {
    value_ += o.value_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    value_ -= o.value_;
    return *this;
  }
  constexpr Quantity operator*(double k) const { return Quantity(value_ * k); }
  constexpr Quantity operator/(double k) const { return Quantity(value_ / k); }
  constexpr Quantity& operator*=(double k) {
    value_ *= k;
    return *this;
  }
  friend constexpr Quantity operator*(double k, Quantity q) { return Quantity(k * q.value_); }
  constexpr auto operator<=>(const Quantity&) const = default;

  // Products and quotients carry their dimension; a dimensionless result is a double.
  template <Dim E>
  constexpr auto operator*(Quantity<E> o) const {
    if constexpr (D * E == dims::none)
      return value_ * o.si();
    else
      return Quantity<D * E>::si(value_ * o.si());
  }
  template <Dim E>
  constexpr auto operator/(Quantity<E> o) const {
    if constexpr (D == E)
      return value_ / o.si();
    else
      return Quantity<D / E>::si(value_ / o.si());
  }

 private:
  constexpr explicit Quantity(double v) : value_(v) {}
  double value_ = 0.0;
};

template <Dim D>
constexpr Quantity<inverse(D)> operator/(double k, Quantity<D> q) {
  return Quantity<inverse(D)>::si(k / q.si());
}

using Length = Quantity<dims::length>;
using Area = Quantity<dims::area>;
using Time = Quantity<dims::time>;
using Frequency = Quantity<dims::frequency>;
using Power = Quantity<dims::power>;
using Energy = Quantity<dims::energy>;
using Voltage = Quantity<dims::voltage>;
using Current = Quantity<dims::current>;
using Resistance = Quantity<dims::resistance>;
using Capacitance = Quantity<dims::capacitance>;
using TemperatureDelta = Quantity<dims::temperature>;
using DataSize = Quantity<dims::data>;
using Bandwidth = Quantity<dims::bandwidth>;  // bytes per second (b/s input is divided by 8)
using EnergyPerByte = Quantity<dims::energy_per_byte>;
using EnergyPerFlop = Quantity<dims::energy_per_work>;
using Flops = Quantity<dims::work>;                                 // an amount of work, FLOP
using FlopRate = Quantity<dims::work_rate>;                         // FLOP/s
using CurrentNoiseDensity = Quantity<dims::current_noise_density>;  // A/sqrt(Hz)
using PowerNoiseDensity = Quantity<dims::power_noise_density>;      // W/sqrt(Hz), e.g. NEP
using Responsivity = Quantity<dims::responsivity>;
using TuningEfficiency = Quantity<dims::tuning_efficiency>;
using ThermalShift = Quantity<dims::thermal_shift>;
using ThermalResistance = Quantity<dims::thermal_resistance>;
using LossPerLength = Quantity<dims::loss_per_length>;
using Decibel = Quantity<dims::decibel>;  // a logarithmic power ratio, stored in dB

// --- logarithmic helpers (10 log10 for power ratios) --------------------------------------
double to_power_ratio(Decibel db);       // 3 dB -> 1.995...
Decibel from_power_ratio(double ratio);  // ratio > 0, else UnitError
Power from_dbm(double dbm);              // 0 dBm -> 1 mW
double to_dbm(Power p);                  // p > 0, else UnitError

// --- parsing and printing ----------------------------------------------------------------
// A parsed quantity before its dimension is checked.
struct ParsedQuantity {
  double si = 0.0;  // value in coherent SI base units
  Dim dim;
};

// Parses "<number> [<unit expression>]", e.g. "1550 nm", "-15.9 dBm", "5 pA/sqrt(Hz)",
// "14 PFLOP/s", "0.5 C/W", "3.2e-3". Throws UnitError naming the text on failure.
// With `expected` = dims::data, a bare size suffix as nccl-tests and most tools take it is
// bytes in powers of 1024: "8G" = 8 GiB, "512M", "64K" or "64k", "1T" (docs/units.md).
ParsedQuantity parse_quantity(std::string_view text);
ParsedQuantity parse_quantity(std::string_view text, Dim expected);

// Human name of a dimension ("length", "bandwidth", ...; a base-unit formula when unnamed).
std::string dimension_name(Dim d);
// Canonical unit symbol used for printing ("m", "B/s", "A/sqrt(Hz)", ...).
std::string canonical_unit(Dim d);
// A few accepted units for error messages, e.g. "m, nm, um, pm".
std::string example_units(Dim d);

// Prints `si` (in SI base units of dimension d) with an SI prefix so that the mantissa is in
// [1, 1000), using the fewest digits that parse back to exactly the same double.
std::string format_quantity(double si, Dim d);

// Throws UnitError describing that `text` has dimension `got` where `expected` was required.
[[noreturn]] void throw_dimension_mismatch(std::string_view text, Dim expected, Dim got);

// Parses text as dimension D; throws UnitError "expected a <dimension> (e.g. <units>), got ..."
// when the unit is missing or of another dimension. A dimensionless D accepts a bare number.
template <Dim D>
Quantity<D> parse(std::string_view text) {
  ParsedQuantity p = parse_quantity(text, D);
  if (!(p.dim == D)) [[unlikely]]
    throw_dimension_mismatch(text, D, p.dim);
  return Quantity<D>::si(p.si);
}

template <Dim D>
std::string to_string(Quantity<D> q) {
  return format_quantity(q.si(), D);
}

// User-defined literals for tests and constants: `using namespace lightsim::literals;`
// then 1550.0_nm, 10.0_ns, 1.0_mW. Floating literals only (write 1550.0_nm, not 1550_nm).
// Computed in long double and rounded once, so they may differ from parse() in the last bit.
namespace literals {
namespace detail {
template <Dim D>
constexpr Quantity<D> scaled(long double v, int exp10) {
  long double p = 1.0L;
  for (int i = 0; i < (exp10 < 0 ? -exp10 : exp10); ++i) p *= 10.0L;
  return Quantity<D>::si(static_cast<double>(exp10 < 0 ? v / p : v * p));
}
}  // namespace detail

// clang-format off
constexpr Length operator""_m(long double v) { return detail::scaled<dims::length>(v, 0); }
constexpr Length operator""_mm(long double v) { return detail::scaled<dims::length>(v, -3); }
constexpr Length operator""_um(long double v) { return detail::scaled<dims::length>(v, -6); }
constexpr Length operator""_nm(long double v) { return detail::scaled<dims::length>(v, -9); }
constexpr Length operator""_pm(long double v) { return detail::scaled<dims::length>(v, -12); }
constexpr Time operator""_s(long double v) { return detail::scaled<dims::time>(v, 0); }
constexpr Time operator""_ms(long double v) { return detail::scaled<dims::time>(v, -3); }
constexpr Time operator""_us(long double v) { return detail::scaled<dims::time>(v, -6); }
constexpr Time operator""_ns(long double v) { return detail::scaled<dims::time>(v, -9); }
constexpr Time operator""_ps(long double v) { return detail::scaled<dims::time>(v, -12); }
constexpr Frequency operator""_Hz(long double v) { return detail::scaled<dims::frequency>(v, 0); }
constexpr Frequency operator""_GHz(long double v) { return detail::scaled<dims::frequency>(v, 9); }
constexpr Power operator""_W(long double v) { return detail::scaled<dims::power>(v, 0); }
constexpr Power operator""_mW(long double v) { return detail::scaled<dims::power>(v, -3); }
constexpr Power operator""_uW(long double v) { return detail::scaled<dims::power>(v, -6); }
constexpr Energy operator""_J(long double v) { return detail::scaled<dims::energy>(v, 0); }
constexpr Energy operator""_pJ(long double v) { return detail::scaled<dims::energy>(v, -12); }
constexpr Energy operator""_fJ(long double v) { return detail::scaled<dims::energy>(v, -15); }
constexpr Voltage operator""_V(long double v) { return detail::scaled<dims::voltage>(v, 0); }
constexpr Current operator""_mA(long double v) { return detail::scaled<dims::current>(v, -3); }
constexpr TemperatureDelta operator""_K(long double v) { return detail::scaled<dims::temperature>(v, 0); }
constexpr DataSize operator""_B(long double v) { return detail::scaled<dims::data>(v, 0); }
constexpr Bandwidth operator""_GBps(long double v) { return detail::scaled<dims::bandwidth>(v, 9); }
constexpr Decibel operator""_dB(long double v) { return detail::scaled<dims::decibel>(v, 0); }
// clang-format on
}  // namespace literals

}  // namespace lightsim
