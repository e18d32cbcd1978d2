#include "lightsim/core/json.h"

#include <cmath>
#include <iterator>
#include <string_view>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/error.h"
#include "lightsim/core/input_file.h"

namespace lightsim {
namespace {

// JSON pointer (RFC 6901) of the value being printed, built as the printer descends.
class PointerPath {
 public:
  void push(std::string_view token) {
    marks_.push_back(text_.size());
    text_ += '/';
    for (char c : token) {
      if (c == '~') {
        text_ += "~0";
      } else if (c == '/') {
        text_ += "~1";
      } else {
        text_ += c;
      }
    }
  }
  void push(std::size_t index) { push(std::string_view(fmt::format("{}", index))); }
  void pop() {
    text_.resize(marks_.back());
    marks_.pop_back();
  }
  std::string shown() const { return text_.empty() ? std::string("(document root)") : text_; }

 private:
  std::string text_;
  std::vector<std::size_t> marks_;
};

class Printer {
 public:
  explicit Printer(std::string& out) : out_(out) {}

  std::back_insert_iterator<std::string> back() { return std::back_inserter(out_); }

  void value(const Json& j, int depth) {
    switch (j.type()) {
      case Json::value_t::null:
        out_ += "null";
        break;
      case Json::value_t::boolean:
        out_ += j.get<bool>() ? "true" : "false";
        break;
      case Json::value_t::number_integer:
        fmt::format_to(back(), "{}", j.get<std::int64_t>());
        break;
      case Json::value_t::number_unsigned:
        fmt::format_to(back(), "{}", j.get<std::uint64_t>());
        break;
      case Json::value_t::number_float:
        number(j.get<double>());
        break;
      case Json::value_t::string:
        string(j.get_ref<const std::string&>());
        break;
      case Json::value_t::array:
        array(j, depth);
        break;
      case Json::value_t::object:
        object(j, depth);
        break;
      case Json::value_t::binary:
        LIGHTSIM_THROW(InputError, "JSON value at '{}' is binary data, which JSON cannot hold",
                       path_.shown());
      case Json::value_t::discarded:
        LIGHTSIM_CHECK(false, "discarded JSON value at '{}'", path_.shown());
    }
  }

 private:
  void newline(int depth) {
    out_ += '\n';
    out_.append(static_cast<std::size_t>(depth) * 2, ' ');
  }

  void number(double x) {
    LIGHTSIM_CHECK_AS(NumericError, std::isfinite(x),
                      "JSON value at '{}' is {}; results must be finite numbers", path_.shown(), x);
    std::size_t start = out_.size();
    fmt::format_to(back(), "{}", x);
    if (out_.find_first_of(".e", start) == std::string::npos) out_ += ".0";
  }

  void string(const std::string& s) {
    try {
      out_ += Json(s).dump();
    } catch (const nlohmann::json::exception& e) {
      LIGHTSIM_THROW(InputError, "JSON string at '{}' is not valid UTF-8: {}", path_.shown(),
                     e.what());
    }
  }

  void array(const Json& j, int depth) {
    if (j.empty()) {
      out_ += "[]";
      return;
    }
    out_ += '[';
    std::size_t index = 0;
    for (const Json& element : j) {
      if (index > 0) out_ += ',';
      newline(depth + 1);
      path_.push(index++);
      value(element, depth + 1);
      path_.pop();
    }
    newline(depth);
    out_ += ']';
  }

  void object(const Json& j, int depth) {
    if (j.empty()) {
      out_ += "{}";
      return;
    }
    out_ += '{';
    bool first = true;
    for (const auto& [key, element] : j.items()) {
      if (!first) out_ += ',';
      first = false;
      newline(depth + 1);
      path_.push(std::string_view(key));
      string(key);
      out_ += ": ";
      value(element, depth + 1);
      path_.pop();
    }
    newline(depth);
    out_ += '}';
  }

  std::string& out_;
  PointerPath path_;
};

}  // namespace

std::string dump_json(const Json& document) {
  std::string out;
  Printer(out).value(document, 0);
  out += '\n';
  return out;
}

void write_json_file(const std::filesystem::path& path, const Json& document) {
  write_file_atomic(path, dump_json(document));
}

Json read_json_file(const std::filesystem::path& path) {
  std::string text = read_input_file(path, "JSON file", kMaxJsonFileBytes);
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t byte = std::min(e.byte, text.size());
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i + 1 < byte; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    LIGHTSIM_THROW(DataFormatError, "malformed JSON in '{}' at line {}, column {} (byte {}): {}",
                   path.string(), line, column, e.byte, e.what());
  } catch (const nlohmann::json::out_of_range& e) {
    // A number too large for a double (found by fuzz.kv_manifest: "2000000000000E000...").
    LIGHTSIM_THROW(DataFormatError, "malformed JSON in '{}': {}", path.string(), e.what());
  }
}

}  // namespace lightsim
