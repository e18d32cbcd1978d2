#include "core/npy_header.h"

#include <algorithm>
#include <limits>

#include "lightsim/core/error.h"

namespace lightsim::detail {
namespace {

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::filesystem::path& file)
      : text_(text), file_(file) {}

  NpyHeader parse() {
    NpyHeader header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{', "'{'");
    while (true) {
      skip_space();
      if (consume('}')) break;
      std::size_t key_at = pos_;
      std::string key = string_literal();
      expect(':', "':'");
      if (key == "descr" && !seen_descr) {
        seen_descr = true;
        header.descr = string_literal();
      } else if (key == "fortran_order" && !seen_order) {
        seen_order = true;
        header.fortran_order = boolean();
      } else if (key == "shape" && !seen_shape) {
        seen_shape = true;
        header.shape = shape();
      } else {
        pos_ = key_at;
        fail("one of the keys 'descr', 'fortran_order', 'shape' (each once)");
      }
      skip_space();
      if (consume('}')) break;
      expect(',', "',' or '}'");
    }
    skip_space();
    if (pos_ != text_.size()) fail("only padding after the closing '}'");
    if (!seen_descr || !seen_order || !seen_shape) {
      pos_ = 0;
      fail("all of the keys 'descr', 'fortran_order' and 'shape'");
    }
    return header;
  }

 private:
  [[noreturn]] void fail(std::string_view expected) const {
    std::string_view found = text_.substr(pos_, 20);
    std::string_view shown = text_.substr(0, 200);
    shown.remove_suffix(shown.size() - std::min(shown.size(), shown.find_last_not_of(" \n") + 1));
    LIGHTSIM_THROW(DataFormatError,
                   "'{}': malformed .npy header: expected {} at offset {}, found '{}' "
                   "(header: {})",
                   file_.string(), expected, pos_, found, shown);
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c, std::string_view what) {
    skip_space();
    if (!consume(c)) fail(what);
  }

  std::string string_literal() {
    skip_space();
    char quote = pos_ < text_.size() ? text_[pos_] : '\0';
    if (quote != '\'' && quote != '"') fail("a quoted string");
    std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) fail("a closing quote");
    std::string_view body = text_.substr(pos_ + 1, end - pos_ - 1);
    if (body.find('\\') != std::string_view::npos) fail("a string without escapes");
    pos_ = end + 1;
    return std::string(body);
  }

  bool boolean() {
    skip_space();
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("True or False");
  }

  std::size_t extent() {
    skip_space();
    std::size_t start = pos_;
    std::size_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      auto digit = static_cast<std::size_t>(text_[pos_] - '0');
      if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10) {
        pos_ = start;
        fail("an array extent that fits in 64 bits");
      }
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) fail("a non-negative integer extent");
    return value;
  }

  std::vector<std::size_t> shape() {
    std::vector<std::size_t> extents;
    expect('(', "'(' starting the shape tuple");
    skip_space();
    if (consume(')')) return extents;
    while (true) {
      if (extents.size() >= 64) fail("at most 64 dimensions");
      extents.push_back(extent());
      skip_space();
      if (consume(')')) return extents;
      expect(',', "',' or ')' in the shape tuple");
      skip_space();
      if (consume(')')) return extents;
    }
  }

  std::string_view text_;
  const std::filesystem::path& file_;
  std::size_t pos_ = 0;
};

}  // namespace

NpyHeader parse_npy_header(std::string_view text, const std::filesystem::path& file) {
  return HeaderParser(text, file).parse();
}

std::string format_shape(std::span<const std::size_t> shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

std::string format_npy_header(std::string_view descr, std::span<const std::size_t> shape) {
  std::string text = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr,
                                 format_shape(shape));
  if (!shape.empty()) {
    // np.save leaves room to grow the first axis in place: 21 digits in total.
    std::size_t digits = fmt::formatted_size("{}", shape[0]);
    if (digits < 21) text.append(21 - digits, ' ');
  }
  return text;
}

}  // namespace lightsim::detail
