// The table of unit symbols and SI/binary prefixes the parser accepts (docs/units.md).
#pragma once

#include <string>
#include <string_view>

#include "lightsim/core/units.h"

namespace lightsim::units_detail {

enum class Prefixes { none, si, si_and_binary };

// One unit symbol: 1 <name> == scale * 10^exp10 SI units of dimension `dim`.
struct Symbol {
  std::string_view name;
  Dim dim;
  int exp10 = 0;
  double scale = 1.0;
  Prefixes prefixes = Prefixes::si;
};

// Result of splitting an atom into optional prefix + symbol. symbol == nullptr when there is
// no match; then `problem` is non-empty if a split was found but is not allowed (e.g. "mdB").
struct SymbolMatch {
  const Symbol* symbol = nullptr;
  int prefix_exp10 = 0;
  double prefix_scale = 1.0;
  std::string problem;
};

// Maps the Unicode spellings to ASCII: µ/μ -> u, Ω/Ω -> Ohm, °C/℃ -> degC.
std::string normalize_symbol(std::string_view atom);
// Exact symbol match first, then prefix + symbol.
SymbolMatch match_symbol(std::string_view name);
// The closest known (prefixed) symbol to a normalized unknown atom, or "" if none is close.
std::string suggest_symbol(std::string_view name);
// "m, g, s, Hz, ..." for error messages.
std::string known_symbols();

}  // namespace lightsim::units_detail
