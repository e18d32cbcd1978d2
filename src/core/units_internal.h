// Internals shared by the units parser and printer (not a public header).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "lightsim/core/units.h"

namespace lightsim::units_detail {

// A parsed unit expression: 1 <unit> == scale * 10^exp10 SI base units of dimension `dim`.
// The decimal exponent is kept apart so that "1550 nm" is read as the decimal 1550e-9 and
// rounded once (bit-exact printing round trip).
struct UnitFactor {
  double scale = 1.0;
  int exp10 = 0;
  Dim dim;
  bool dbm = false;  // the expression is exactly "dBm" (an absolute power level)
};

// Parses a unit expression such as "pA/sqrt(Hz)". `whole` is the full quantity text, quoted
// in error messages. Throws UnitError.
UnitFactor parse_unit(std::string_view unit, std::string_view whole);

// "a length", "an energy per byte", "a quantity in m^2 kg" (unit_format.cpp).
std::string describe_dim(Dim d);

// Strips ASCII whitespace from both ends.
std::string_view trim(std::string_view text);

// Quotes text for error messages: "..." with \" \\ and control bytes escaped. Not named `quoted`:
// in a unity batch that also includes <iomanip>, a call with a std::string argument would find
// std::quoted by argument-dependent lookup and prefer it.
std::string quote_unit_text(std::string_view text);

}  // namespace lightsim::units_detail
