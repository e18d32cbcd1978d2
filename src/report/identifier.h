// Names used in result files: study, claim and table names are lower-case identifiers
// [a-z][a-z0-9_]* (they become file names and HTML anchors); column names are identifiers
// [A-Za-z_][A-Za-z0-9_]* (they become Vega-Lite field names, where '.' and '[' would mean
// nested access).
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace lightsim::report {

inline bool is_identifier(std::string_view text, bool column) {
  if (text.empty()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool lower = c >= 'a' && c <= 'z';
    const bool upper = c >= 'A' && c <= 'Z';
    const bool digit = c >= '0' && c <= '9';
    const bool ok = lower || (column && upper) || c == '_' || (i > 0 && digit);
    if (!ok || (!column && i == 0 && c == '_')) return false;
  }
  return true;
}

// The rule `text` breaks, for error messages.
inline std::string identifier_rule(std::string_view text, bool column) {
  return fmt::format("must match {} (got '{}')",
                     column ? "[A-Za-z_][A-Za-z0-9_]*" : "[a-z][a-z0-9_]*", text);
}

}  // namespace lightsim::report
