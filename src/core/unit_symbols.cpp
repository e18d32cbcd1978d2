// Unit symbol and prefix tables, prefix splitting and "did you mean" suggestions.
#include "core/unit_symbols.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace lightsim::units_detail {
namespace {

constexpr Dim kPerSqrtHz = inverse(dims::per_sqrt_hertz);  // sqrt(Hz)

// Exact matches are tried before prefix splits, so "m" is the metre and "mm" a millimetre.
constexpr std::array<Symbol, 23> kSymbols = {{
    {"m", dims::length},
    {"g", dims::mass, -3},
    {"s", dims::time},
    {"Hz", dims::frequency},
    {"A", dims::current},
    {"V", dims::voltage},
    {"W", dims::power},
    {"J", dims::energy},
    {"Ohm", dims::resistance},
    {"ohm", dims::resistance},
    {"F", dims::capacitance},
    {"K", dims::temperature},
    {"degC", dims::temperature, 0, 1.0, Prefixes::none},  // a difference: 1 degC == 1 K
    {"C", dims::temperature, 0, 1.0, Prefixes::none},
    {"B", dims::data, 0, 1.0, Prefixes::si_and_binary},
    {"b", dims::data, 0, 0.125, Prefixes::si_and_binary},  // bit
    {"bit", dims::data, 0, 0.125, Prefixes::si_and_binary},
    {"FLOP", dims::work},
    {"FLOPS", dims::work_rate},  // FLOP/s
    {"dB", dims::decibel, 0, 1.0, Prefixes::none},
    {"%", dims::none, -2, 1.0, Prefixes::none},
    {"ppm", dims::none, -6, 1.0, Prefixes::none},
    {"rtHz", kPerSqrtHz, 0, 1.0, Prefixes::none},  // sqrt(Hz)
}};
// "dBm" is handled by the parser: it is an absolute level, not a factor.

struct Prefix {
  std::string_view name;
  int exp10 = 0;
  double scale = 1.0;  // binary prefixes: 2^(10 n)
  bool binary = false;
};

// Binary prefixes first so "KiB" is not read as kelvin; order also ranks suggestions.
constexpr std::array<Prefix, 18> kPrefixes = {{
    {"Ki", 0, 0x1p10, true},
    {"Mi", 0, 0x1p20, true},
    {"Gi", 0, 0x1p30, true},
    {"Ti", 0, 0x1p40, true},
    {"Pi", 0, 0x1p50, true},
    {"k", 3},
    {"M", 6},
    {"G", 9},
    {"T", 12},
    {"P", 15},
    {"E", 18},
    {"m", -3},
    {"u", -6},
    {"n", -9},
    {"p", -12},
    {"f", -15},
    {"a", -18},
    {"c", -2},
}};

const Symbol* find_exact(std::string_view name) {
  const auto it = std::find_if(kSymbols.begin(), kSymbols.end(),
                               [&](const Symbol& s) { return s.name == name; });
  return it == kSymbols.end() ? nullptr : &*it;
}

bool allows(const Symbol& s, const Prefix& p) {
  return s.prefixes == Prefixes::si_and_binary || (s.prefixes == Prefixes::si && !p.binary);
}

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Optimal-string-alignment edit distance; case-insensitive when `fold` is set.
int edit_distance(std::string_view a, std::string_view b, bool fold) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<int> d((n + 1) * (m + 1));
  const auto at = [&](std::size_t i, std::size_t j) -> int& { return d[i * (m + 1) + j]; };
  const auto same = [&](char x, char y) { return fold ? lower(x) == lower(y) : x == y; };
  for (std::size_t i = 0; i <= n; ++i) at(i, 0) = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) at(0, j) = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      int best = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1,
                           at(i - 1, j - 1) + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        best = std::min(best, at(i - 2, j - 2) + 1);
      at(i, j) = best;
    }
  }
  return at(n, m);
}

}  // namespace

std::string normalize_symbol(std::string_view atom) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kMap = {{
      {"\u00b5", "u"},
      {"\u03bc", "u"},
      {"\u03a9", "Ohm"},
      {"\u2126", "Ohm"},
      {"\u2103", "degC"},
      {"\u00b0", "deg"},
  }};
  std::string out;
  for (std::size_t i = 0; i < atom.size();) {
    const auto it = std::find_if(kMap.begin(), kMap.end(), [&](const auto& kv) {
      return atom.substr(i).starts_with(kv.first);
    });
    if (it == kMap.end()) {
      out += atom[i++];
    } else {
      out += it->second;
      i += it->first.size();
    }
  }
  return out;
}

SymbolMatch match_symbol(std::string_view name) {
  SymbolMatch m;
  if ((m.symbol = find_exact(name)) != nullptr) return m;
  for (const Prefix& p : kPrefixes) {
    if (name.size() <= p.name.size() || !name.starts_with(p.name)) continue;
    const Symbol* s = find_exact(name.substr(p.name.size()));
    if (s == nullptr) continue;
    if (!allows(*s, p)) {
      if (m.problem.empty())
        m.problem = s->prefixes == Prefixes::none
                        ? fmt::format("\"{}\" takes no prefix", s->name)
                        : fmt::format("binary prefix \"{}\" applies to data units (B, b, bit) only",
                                      p.name);
      continue;
    }
    m.symbol = s;
    m.prefix_exp10 = p.exp10;
    m.prefix_scale = p.scale;
    m.problem.clear();
    return m;
  }
  return m;
}

std::string suggest_symbol(std::string_view name) {
  std::vector<std::string> candidates = {"dBm"};
  for (const Symbol& s : kSymbols) candidates.emplace_back(s.name);
  for (const Prefix& p : kPrefixes)
    for (const Symbol& s : kSymbols)
      if (allows(s, p)) candidates.push_back(std::string(p.name) + std::string(s.name));
  std::string best;
  std::pair<int, int> best_score{std::numeric_limits<int>::max(), 0};
  for (const std::string& c : candidates) {
    const std::pair<int, int> score{edit_distance(name, c, true), edit_distance(name, c, false)};
    if (score < best_score) {
      best_score = score;
      best = c;
    }
  }
  const int limit = std::min(2, static_cast<int>(name.size()) - 1);
  return best_score.first <= std::max(limit, 0) && best_score.second > 0 ? best : "";
}

std::string known_symbols() {
  std::string out = "dBm";
  for (const Symbol& s : kSymbols) out += fmt::format(", {}", s.name);
  return out + " with prefixes a f p n u m c k M G T P E (Ki Mi Gi Ti Pi for data)";
}

}  // namespace lightsim::units_detail
