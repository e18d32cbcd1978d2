// Unit-string parsing: "<number> [<unit expression>]" -> SI double + Dim (docs/units.md).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "core/unit_symbols.h"
#include "core/units_internal.h"
#include "lightsim/core/error.h"
#include "lightsim/core/units.h"

namespace lightsim {
namespace units_detail {
namespace {

constexpr std::string_view kSpace = " \t\n\r\f\v";

// Exponents of the base dimensions (doubled, as in Dim) kept in int while parsing so that
// m^100 is reported instead of wrapping around.
using Exps = std::array<int, 8>;

Exps exps_of(Dim d) {
  return {d.m2, d.kg2, d.s2, d.A2, d.K2, d.B2, d.flop2, d.dB2};
}

// 10^e for |e| <= 22 is exact in a double.
constexpr std::array<double, 23> kPow10 = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                           1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                           1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// An intermediate unit: scale * 10^exp10 SI units with exponents `e`.
struct Term {
  double scale = 1.0;
  int exp10 = 0;
  Exps e{};
};

Term multiply(Term a, const Term& b, int sign) {
  a.scale = sign > 0 ? a.scale * b.scale : a.scale / b.scale;
  a.exp10 += sign * b.exp10;
  for (std::size_t i = 0; i < a.e.size(); ++i) a.e[i] += sign * b.e[i];
  return a;
}

// Recursive-descent parser over one unit expression (grammar in docs/units.md).
class UnitParser {
 public:
  UnitParser(std::string_view unit, std::string_view whole) : s_(unit), whole_(whole) {}

  Term parse() {
    Term t = expr();
    skip_space();
    if (pos_ < s_.size())
      fail(fmt::format("unexpected {} at {}", quote_unit_text(s_.substr(pos_, 1)),
                       quote_unit_text(s_.substr(pos_))));
    return t;
  }

 private:
  // expr := term { ('/' | '*' | '.' | '·' | space) term }
  Term expr() {
    Term acc = term();
    bool divided = false;
    while (true) {
      const bool had_space = skip_space();
      if (pos_ >= s_.size() || s_[pos_] == ')') return acc;
      if (s_[pos_] == '/') {
        ++pos_;
        skip_space();
        acc = multiply(acc, term(), -1);
        divided = true;
        continue;
      }
      if (s_[pos_] == '*' || s_[pos_] == '.') {
        ++pos_;
      } else if (s_.substr(pos_).starts_with("\u00b7")) {
        pos_ += 2;
      } else if (!had_space || !starts_factor()) {
        fail(fmt::format("unexpected {} at {}{}", quote_unit_text(s_.substr(pos_, 1)),
                         quote_unit_text(s_.substr(pos_)),
                         is_digit(s_[pos_]) ? " (write exponents as m^2)" : ""));
      }
      if (divided) fail("a product after '/' is ambiguous; use parentheses, e.g. W/(m K)");
      skip_space();
      acc = multiply(acc, term(), +1);
    }
  }

  // term := factor [ '^' integer | superscript integer ]
  Term term() {
    Term t = factor();
    const std::size_t save = pos_;
    skip_space();
    int n = 0;
    if (pos_ < s_.size() && s_[pos_] == '^') {
      ++pos_;
      n = exponent();
    } else if (!superscript(n)) {
      pos_ = save;
      return t;
    }
    if (n < -16 || n > 16) fail(fmt::format("exponent {} is out of range (|n| <= 16)", n));
    t.scale = std::pow(t.scale, n);
    t.exp10 *= n;
    for (int& x : t.e) x *= n;
    return t;
  }

  // factor := '(' expr ')' | 'sqrt' '(' expr ')' | '√' factor | '1' | atom
  Term factor() {
    if (pos_ >= s_.size()) fail("a unit symbol is missing at the end");
    if (s_[pos_] == '(') return group();
    if (s_.substr(pos_).starts_with("\u221a")) {
      pos_ += 3;
      return square_root(pos_ < s_.size() && s_[pos_] == '(' ? group() : atom());
    }
    if (s_[pos_] == '1' && (pos_ + 1 == s_.size() || !is_digit(s_[pos_ + 1]))) {
      ++pos_;
      return {};
    }
    const std::size_t start = pos_;
    if (atom_length() == 0)
      fail(fmt::format("expected a unit symbol at {}{}", quote_unit_text(s_.substr(pos_)),
                       s_[pos_] == ',' ? " (the decimal separator is '.')" : ""));
    if (s_.substr(start, pos_ - start) == "sqrt") {
      if (pos_ >= s_.size() || s_[pos_] != '(')
        fail("sqrt must be followed by '(', e.g. A/sqrt(Hz)");
      return square_root(group());
    }
    pos_ = start;
    return atom();
  }

  Term group() {
    ++pos_;  // '('
    skip_space();
    Term t = expr();
    skip_space();
    if (pos_ >= s_.size() || s_[pos_] != ')') fail("missing ')'");
    ++pos_;
    return t;
  }

  Term atom() {
    const std::size_t start = pos_;
    if (atom_length() == 0)
      fail(fmt::format("expected a unit symbol at {}", quote_unit_text(s_.substr(start))));
    const std::string_view text = s_.substr(start, pos_ - start);
    const std::string name = normalize_symbol(text);
    if (name == "dBm")
      fail("dBm is an absolute power level and must stand alone, e.g. \"-15.9 dBm\"");
    const SymbolMatch m = match_symbol(name);
    if (m.symbol == nullptr) {
      if (!m.problem.empty())
        fail(text == s_ ? m.problem : fmt::format("{}: {}", quote_unit_text(text), m.problem));
      std::string hint = suggest_symbol(name);
      LIGHTSIM_THROW(UnitError, "unknown unit {} in {}; {}", quote_unit_text(text),
                     quote_unit_text(whole_),
                     hint.empty() ? fmt::format("known symbols: {}", known_symbols())
                                  : fmt::format("did you mean {}?", quote_unit_text(hint)));
    }
    Term t;
    t.scale = m.symbol->scale * m.prefix_scale;
    t.exp10 = m.symbol->exp10 + m.prefix_exp10;
    t.e = exps_of(m.symbol->dim);
    return t;
  }

  Term square_root(Term t) {
    for (int& x : t.e) {
      if (x % 2 != 0) fail("sqrt() of this unit would need a quarter power of a base unit");
      x /= 2;
    }
    const int half = t.exp10 >= 0 ? t.exp10 / 2 : -((1 - t.exp10) / 2);  // floor(exp10 / 2)
    t.scale = std::sqrt(t.scale) * (t.exp10 - 2 * half == 1 ? std::sqrt(10.0) : 1.0);
    t.exp10 = half;
    return t;
  }

  int exponent() {
    skip_space();
    const bool paren = pos_ < s_.size() && s_[pos_] == '(';
    if (paren) ++pos_;
    bool negative = false;
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) negative = s_[pos_++] == '-';
    int n = 0;
    const auto [ptr, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), n);
    if (ec != std::errc{}) fail("'^' must be followed by an integer exponent, e.g. m^2 or s^-1");
    pos_ = static_cast<std::size_t>(ptr - s_.data());
    if (pos_ + 1 < s_.size() && s_[pos_] == '.' && is_digit(s_[pos_ + 1]))
      fail("exponents must be integers; use sqrt() for a square root");
    if (paren) {
      if (pos_ >= s_.size() || s_[pos_] != ')') fail("missing ')' after the exponent");
      ++pos_;
    }
    return negative ? -n : n;
  }

  // Unicode superscript exponents: m², s⁻¹. Returns false (pos_ unchanged) if none.
  bool superscript(int& n) {
    static constexpr std::array<std::string_view, 10> kDigits = {
        "\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
        "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
    std::size_t p = pos_;
    const bool negative = s_.substr(p).starts_with("\u207b");
    if (negative) p += 3;
    int value = 0;
    int count = 0;
    for (bool found = true; found && count < 3;) {
      found = false;
      for (std::size_t d = 0; d < kDigits.size(); ++d) {
        if (s_.substr(p).starts_with(kDigits[d])) {
          value = value * 10 + static_cast<int>(d);
          p += kDigits[d].size();
          ++count;
          found = true;
          break;
        }
      }
    }
    if (count == 0) return false;
    pos_ = p;
    n = negative ? -value : value;
    return true;
  }

  // Advances over one atom (letters, %, µ, μ, Ω, °, ℃) and returns its length in bytes.
  std::size_t atom_length() {
    static constexpr std::array<std::string_view, 6> kWide = {"\u00b5", "\u03bc", "\u03a9",
                                                              "\u2126", "\u00b0", "\u2103"};
    const std::size_t start = pos_;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '%') {
        ++pos_;
        continue;
      }
      const auto wide = std::find_if(kWide.begin(), kWide.end(), [&](std::string_view w) {
        return s_.substr(pos_).starts_with(w);
      });
      if (wide == kWide.end()) break;
      pos_ += wide->size();
    }
    return pos_ - start;
  }

  bool starts_factor() {
    const std::size_t save = pos_;
    const bool atom = atom_length() > 0;
    pos_ = save;
    return atom || s_[pos_] == '(' || s_[pos_] == '1' || s_.substr(pos_).starts_with("\u221a");
  }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  bool skip_space() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && kSpace.find(s_[pos_]) != std::string_view::npos) ++pos_;
    return pos_ > start;
  }

  [[noreturn]] void fail(const std::string& what) const {
    if (s_ == whole_) LIGHTSIM_THROW(UnitError, "bad unit {}: {}", quote_unit_text(s_), what);
    LIGHTSIM_THROW(UnitError, "bad unit {} in {}: {}", quote_unit_text(s_), quote_unit_text(whole_),
                   what);
  }

  std::string_view s_;
  std::string_view whole_;
  std::size_t pos_ = 0;
};

// Multiplies v by 10^e (exact steps of at most 10^22).
double apply_exp10(double v, int e) {
  for (; e > 22; e -= 22) v *= kPow10[22];
  for (; e < -22; e += 22) v /= kPow10[22];
  return e >= 0 ? v * kPow10[static_cast<std::size_t>(e)]
                : v / kPow10[static_cast<std::size_t>(-e)];
}

// Reads the unsigned decimal `digits` (already validated by from_chars) times 10^exp10 with a
// single rounding. Returns false on overflow or total underflow.
bool read_scaled_decimal(std::string_view digits, int exp10, double& out) {
  std::string_view mantissa = digits;
  long long e = 0;
  if (const auto epos = digits.find_first_of("eE"); epos != std::string_view::npos) {
    mantissa = digits.substr(0, epos);
    std::string_view exp_text = digits.substr(epos + 1);
    if (exp_text.starts_with('+')) exp_text.remove_prefix(1);
    const auto [ptr, ec] = std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), e);
    if (ec != std::errc{} || ptr != exp_text.data() + exp_text.size() || e > 100000 || e < -100000)
      return false;
  }
  const std::string folded = fmt::format("{}e{}", mantissa, e + exp10);
  const auto [ptr, ec] = std::from_chars(folded.data(), folded.data() + folded.size(), out);
  return ec == std::errc{} && ptr == folded.data() + folded.size();
}

}  // namespace

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(kSpace);
  return s.substr(b, e - b + 1);
}

std::string quote_unit_text(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + '"';
}

UnitFactor parse_unit(std::string_view unit, std::string_view whole) {
  UnitFactor f;
  if (normalize_symbol(trim(unit)) == "dBm") {
    f.dim = dims::power;
    f.dbm = true;
    return f;
  }
  const Term t = UnitParser(unit, whole).parse();
  std::array<std::int8_t, 8> e{};
  for (std::size_t i = 0; i < e.size(); ++i) {
    LIGHTSIM_CHECK_AS(UnitError, t.e[i] >= -126 && t.e[i] <= 126,
                      "bad unit {} in {}: exponent out of range", quote_unit_text(unit),
                      quote_unit_text(whole));
    e[i] = static_cast<std::int8_t>(t.e[i]);
  }
  f.scale = t.scale;
  f.exp10 = t.exp10;
  f.dim = Dim{e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]};
  return f;
}

}  // namespace units_detail

using units_detail::quote_unit_text;

ParsedQuantity parse_quantity(std::string_view text) {
  const std::string_view t = units_detail::trim(text);
  LIGHTSIM_CHECK_AS(UnitError, !t.empty(),
                    "empty quantity {}: expected a number and a unit, e.g. \"1550 nm\"",
                    quote_unit_text(text));
  std::string_view rest = t;
  bool negative = false;
  if (rest.front() == '+' || rest.front() == '-') {
    negative = rest.front() == '-';
    rest.remove_prefix(1);
  }
  const bool hex = rest.starts_with("0x") || rest.starts_with("0X");
  if (hex) rest.remove_prefix(2);
  double number = 0.0;
  const bool signed_again = !rest.empty() && (rest.front() == '+' || rest.front() == '-');
  const auto [ptr, ec] =
      signed_again ? std::from_chars_result{rest.data(), std::errc::invalid_argument}
                   : std::from_chars(rest.data(), rest.data() + rest.size(), number,
                                     hex ? std::chars_format::hex : std::chars_format::general);
  LIGHTSIM_CHECK_AS(UnitError, ec != std::errc::invalid_argument,
                    "missing number in {}: a quantity is a number and a unit, e.g. \"1550 nm\"",
                    quote_unit_text(t));
  LIGHTSIM_CHECK_AS(UnitError, ec != std::errc::result_out_of_range, "number out of range in {}",
                    quote_unit_text(t));
  LIGHTSIM_CHECK_AS(UnitError, std::isfinite(number), "{} is not a finite number (NaN/Inf)",
                    quote_unit_text(t));
  const auto used = static_cast<std::size_t>(ptr - rest.data());
  const std::string_view digits = rest.substr(0, used);
  const std::string_view unit = units_detail::trim(rest.substr(used));
  if (unit.empty()) return {negative ? -number : number, dims::none};

  const units_detail::UnitFactor f = units_detail::parse_unit(unit, t);
  double si = 0.0;
  if (f.dbm) {
    si = from_dbm(negative ? -number : number).si();
    negative = false;
  } else if (!hex && f.exp10 != 0) {
    LIGHTSIM_CHECK_AS(UnitError, units_detail::read_scaled_decimal(digits, f.exp10, si),
                      "value out of range in {}", quote_unit_text(t));
    si *= f.scale;
  } else {
    si = units_detail::apply_exp10(number, f.exp10) * f.scale;
  }
  LIGHTSIM_CHECK_AS(UnitError, std::isfinite(si), "value out of range in {}", quote_unit_text(t));
  return {negative ? -si : si, f.dim};
}

ParsedQuantity parse_quantity(std::string_view text, Dim expected) {
  if (expected == dims::data) {
    // nccl-tests' size suffixes (its parsesize: K, M, G, T as powers of 1024). Upper case
    // only, except k: "5 m" stays metres (a dimension error), not mebibytes.
    const std::string_view t = units_detail::trim(text);
    if (t.size() >= 2) {
      const char last = t.back();
      const std::string_view number = units_detail::trim(t.substr(0, t.size() - 1));
      constexpr std::string_view kSuffixes = "KMGT";
      const std::size_t power = kSuffixes.find(last == 'k' ? 'K' : last);
      if (power != std::string_view::npos && !number.empty() && number.back() >= '0' &&
          number.back() <= '9') {
        ParsedQuantity p = parse_quantity(number);
        if (p.dim == dims::none) {
          const double si = p.si * std::ldexp(1.0, 10 * static_cast<int>(power + 1));
          LIGHTSIM_CHECK_AS(UnitError, std::isfinite(si), "value out of range in {}",
                            quote_unit_text(t));
          return {si, dims::data};
        }
      }
    }
  }
  return parse_quantity(text);
}

double convert_to_unit(double si, Dim d, std::string_view unit) {
  const units_detail::UnitFactor f = units_detail::parse_unit(units_detail::trim(unit), unit);
  if (!(f.dim == d))
    LIGHTSIM_THROW(UnitError, "cannot express {} in {} ({})", units_detail::describe_dim(d),
                   quote_unit_text(unit), units_detail::describe_dim(f.dim));
  if (f.dbm) return to_dbm(Power::si(si));
  return units_detail::apply_exp10(si / f.scale, -f.exp10);
}

}  // namespace lightsim
