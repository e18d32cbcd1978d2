// Names, canonical units and printing of quantities (docs/units.md).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/units_internal.h"
#include "lightsim/core/error.h"
#include "lightsim/core/units.h"

namespace lightsim {
namespace {

// How format_quantity may prefix the canonical unit.
enum class Prefixing {
  none,   // print the plain number: dB, dB/m, m^2, 1/K, formulas
  first,  // SI prefix on the first atom: "1.55 um", "900 GB/s", "5 pA/sqrt(Hz)"
  gram,   // mass: SI prefix on g ("3 mg", "1 kg")
};

struct NamedDim {
  Dim dim;
  std::string_view name;      // "length"
  std::string_view unit;      // canonical printing unit, parseable: "m"
  std::string_view examples;  // accepted spellings for error messages
  Prefixing prefixing;
};

constexpr std::array<NamedDim, 30> kNamed = {{
    {dims::none, "dimensionless number", "", "0.5, 5 %, 3 ppm", Prefixing::none},
    {dims::length, "length", "m", "m, nm, um, pm", Prefixing::first},
    {dims::area, "area", "m^2", "m^2, um^2, mm^2", Prefixing::none},
    {dims::mass, "mass", "kg", "kg, g, mg", Prefixing::gram},
    {dims::time, "time", "s", "s, ns, ps, us", Prefixing::first},
    {dims::frequency, "frequency", "Hz", "Hz, kHz, MHz, GHz", Prefixing::first},
    {dims::current, "current", "A", "A, mA, uA, nA", Prefixing::first},
    {dims::temperature, "temperature difference", "K", "K, mK, C", Prefixing::first},
    {dims::data, "data size", "B", "B, kB, GB, GiB, Gb", Prefixing::first},
    {dims::work, "amount of work", "FLOP", "FLOP, GFLOP, TFLOP", Prefixing::first},
    {dims::decibel, "decibel ratio", "dB", "dB", Prefixing::none},
    {dims::energy, "energy", "J", "J, nJ, pJ, fJ", Prefixing::first},
    {dims::power, "power", "W", "W, mW, uW, dBm", Prefixing::first},
    {dims::charge, "charge", "A s", "A s, pA s", Prefixing::first},  // "C" is degC here
    {dims::voltage, "voltage", "V", "V, mV, kV", Prefixing::first},
    {dims::resistance, "resistance", "Ohm", "Ohm, kOhm, MOhm", Prefixing::first},
    {dims::capacitance, "capacitance", "F", "F, pF, fF", Prefixing::first},
    {dims::bandwidth, "bandwidth", "B/s", "B/s, GB/s, TB/s, Gb/s", Prefixing::first},
    {dims::energy_per_byte, "energy per byte", "J/B", "J/B, pJ/B, pJ/b", Prefixing::first},
    {dims::energy_per_work, "energy per FLOP", "J/FLOP", "J/FLOP, pJ/FLOP, fJ/FLOP",
     Prefixing::first},
    {dims::work_rate, "FLOP rate", "FLOP/s", "FLOP/s, TFLOP/s, PFLOPS", Prefixing::first},
    {dims::per_sqrt_hertz, "inverse square-root frequency", "1/sqrt(Hz)", "1/sqrt(Hz), 1/rtHz",
     Prefixing::none},
    {dims::current_noise_density, "current noise density", "A/sqrt(Hz)",
     "A/sqrt(Hz), pA/sqrt(Hz), pA/rtHz", Prefixing::first},
    {dims::power_noise_density, "power noise density", "W/sqrt(Hz)", "W/sqrt(Hz), pW/sqrt(Hz)",
     Prefixing::first},
    {dims::responsivity, "responsivity", "A/W", "A/W, mA/mW", Prefixing::first},
    {dims::tuning_efficiency, "tuning efficiency", "m/V", "m/V, pm/V, nm/V", Prefixing::first},
    {dims::thermal_shift, "thermal shift", "m/K", "m/K, pm/K, nm/K", Prefixing::first},
    {dims::thermal_resistance, "thermal resistance", "K/W", "K/W, C/W, K/mW", Prefixing::first},
    {dims::loss_per_length, "loss per length", "dB/m", "dB/m, dB/cm, dB/mm", Prefixing::none},
    {dims::per_temperature, "temperature coefficient", "1/K", "1/K, ppm/K", Prefixing::none},
}};

const NamedDim* find_named(Dim d) {
  const auto it =
      std::find_if(kNamed.begin(), kNamed.end(), [&](const NamedDim& n) { return n.dim == d; });
  return it == kNamed.end() ? nullptr : &*it;
}

// Base-unit formula, e.g. "m^2 kg s^-3"; half powers go into sqrt(): "A sqrt(s)".
std::string formula(Dim d) {
  const std::array<std::pair<std::string_view, int>, 8> base = {{{"m", d.m2},
                                                                 {"kg", d.kg2},
                                                                 {"s", d.s2},
                                                                 {"A", d.A2},
                                                                 {"K", d.K2},
                                                                 {"B", d.B2},
                                                                 {"FLOP", d.flop2},
                                                                 {"dB", d.dB2}}};
  const auto power = [](std::string_view name, int n) {
    return n == 1 ? std::string(name) : fmt::format("{}^{}", name, n);
  };
  const auto append = [](std::string& out, std::string_view atom) {
    if (!out.empty()) out += ' ';
    out += atom;
  };
  std::string whole;
  std::string half;
  for (const auto& [name, doubled] : base) {
    if (doubled / 2 != 0) append(whole, power(name, doubled / 2));
    if (doubled % 2 != 0) append(half, power(name, doubled % 2));
  }
  if (!half.empty()) append(whole, fmt::format("sqrt({})", half));
  return whole;
}

std::string article(std::string_view noun) {
  const bool vowel = !noun.empty() && std::string_view("aeiou").find(noun[0]) != std::string::npos;
  return fmt::format("{} {}", vowel ? "an" : "a", noun);
}

std::string_view prefix_symbol(int exp10) {
  static constexpr std::array<std::string_view, 13> kSymbols = {"a", "f", "p", "n", "u", "m", "",
                                                                "k", "M", "G", "T", "P", "E"};
  return kSymbols[static_cast<std::size_t>(exp10 / 3 + 6)];
}

// Shortest round-trip decimal of |v| > 0 as digits "d0d1..dn" and exponent E so that
// |v| == d0.d1...dn * 10^E.
void shortest_digits(double v, std::string& digits, int& exp10) {
  const std::string s = fmt::format("{}", std::fabs(v));  // shortest round-trip repr
  const auto epos = s.find('e');
  const std::string mantissa = s.substr(0, epos);
  int e = epos == std::string::npos ? 0 : std::stoi(s.substr(epos + 1));
  const auto dot = mantissa.find('.');
  const int int_digits = static_cast<int>(dot == std::string::npos ? mantissa.size() : dot);
  digits = mantissa;
  if (dot != std::string::npos) digits.erase(dot, 1);
  const auto first = digits.find_first_not_of('0');
  e += int_digits - 1 - static_cast<int>(first);
  digits.erase(0, first);
  digits.erase(digits.find_last_not_of('0') + 1);
  exp10 = e;
}

// "d0d1..dn" * 10^shift written as a plain decimal (shift in [0, 2]).
std::string place_point(const std::string& digits, int shift) {
  const auto int_len = static_cast<std::size_t>(shift + 1);
  if (digits.size() <= int_len) return digits + std::string(int_len - digits.size(), '0');
  return digits.substr(0, int_len) + "." + digits.substr(int_len);
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

}  // namespace

std::string units_detail::describe_dim(Dim d) {
  const NamedDim* n = find_named(d);
  return n != nullptr ? article(n->name) : fmt::format("a quantity in {}", formula(d));
}

std::string dimension_name(Dim d) {
  const NamedDim* n = find_named(d);
  return n != nullptr ? std::string(n->name) : formula(d);
}

std::string canonical_unit(Dim d) {
  const NamedDim* n = find_named(d);
  return n != nullptr ? std::string(n->unit) : formula(d);
}

std::string example_units(Dim d) {
  const NamedDim* n = find_named(d);
  return n != nullptr ? std::string(n->examples) : formula(d);
}

std::string format_quantity(double si, Dim d) {
  const NamedDim* n = find_named(d);
  const std::string unit = canonical_unit(d);
  const std::string plain = unit.empty() ? fmt::format("{}", si) : fmt::format("{} {}", si, unit);
  const Prefixing prefixing = n != nullptr ? n->prefixing : Prefixing::none;
  if (prefixing == Prefixing::none || si == 0.0 || !std::isfinite(si)) return plain;

  std::string digits;
  int exp10 = 0;
  shortest_digits(si, digits, exp10);
  if (prefixing == Prefixing::gram) exp10 += 3;                          // in grams
  const int prefix = (exp10 >= 0 ? exp10 / 3 : -((2 - exp10) / 3)) * 3;  // floor to 3
  if (prefix < -18 || prefix > 18) return plain;
  const std::string printed =
      fmt::format("{}{} {}{}", si < 0 ? "-" : "", place_point(digits, exp10 - prefix),
                  prefix_symbol(prefix), prefixing == Prefixing::gram ? "g" : unit);
  // The decimal digits are those of the shortest repr, so re-reading is exact; verify anyway.
  const ParsedQuantity back = parse_quantity(printed);
  return same_bits(back.si, si) && back.dim == d ? printed : plain;
}

void throw_dimension_mismatch(std::string_view text, Dim expected, Dim got) {
  const std::string want =
      fmt::format("{} (e.g. {})", units_detail::describe_dim(expected), example_units(expected));
  const std::string_view trimmed = units_detail::trim(text);
  const bool bare_number =
      got == dims::none && !trimmed.empty() &&
      ((trimmed.back() >= '0' && trimmed.back() <= '9') || trimmed.back() == '.');
  if (bare_number)
    LIGHTSIM_THROW(UnitError, "missing unit: expected {}, got {}", want,
                   units_detail::quote_unit_text(trimmed));
  LIGHTSIM_THROW(UnitError, "expected {}, got {} ({})", want,
                 units_detail::quote_unit_text(trimmed), units_detail::describe_dim(got));
}

}  // namespace lightsim
