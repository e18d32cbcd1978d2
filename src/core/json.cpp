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

namespace {

// nlohmann's own DOM builder (what Json::parse uses) behind SAX events that count themselves
// and poll the stop flag every kJsonCancelPollEvents (a value, a key, the start or end of an
// object or array): a counter and a branch per event. nlohmann's parser callback
// (Json::parse(text, callback)) builds through its slower callback DOM parser: 12-20% more
// time on a 58 MB document of 2.9e7 numbers (docs/hardening.md, "Interrupts").
class PollingDomParser {
 public:
  PollingDomParser(Json& out, const std::atomic<bool>* cancel, const std::filesystem::path& path)
      : dom_(out), cancel_(cancel), path_(path) {}

  bool null() { return poll() && dom_.null(); }
  bool boolean(bool v) { return poll() && dom_.boolean(v); }
  bool number_integer(Json::number_integer_t v) { return poll() && dom_.number_integer(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return poll() && dom_.number_unsigned(v); }
  bool number_float(Json::number_float_t v, const Json::string_t& s) {
    return poll() && dom_.number_float(v, s);
  }
  bool string(Json::string_t& v) { return poll() && dom_.string(v); }
  bool binary(Json::binary_t& v) { return poll() && dom_.binary(v); }
  bool start_object(std::size_t n) { return poll() && dom_.start_object(n); }
  bool key(Json::string_t& v) { return poll() && dom_.key(v); }
  bool end_object() { return poll() && dom_.end_object(); }
  bool start_array(std::size_t n) { return poll() && dom_.start_array(n); }
  bool end_array() { return poll() && dom_.end_array(); }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    return dom_.parse_error(position, token, e);  // throws e, as Json::parse does
  }

 private:
  bool poll() {
    if (++events_ % kJsonCancelPollEvents == 0 && cancel_->load(std::memory_order_relaxed))
        [[unlikely]]
      LIGHTSIM_THROW(Interrupted, "reading '{}': interrupted", path_.string());
    return true;
  }

  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  const std::atomic<bool>* cancel_;
  const std::filesystem::path& path_;
  std::uint64_t events_ = 0;
};

}  // namespace

Json read_json_file(const std::filesystem::path& path) {
  return read_json_file(path, nullptr);
}

Json read_json_file(const std::filesystem::path& path, const std::atomic<bool>* cancel) {
  std::string text = read_input_file(path, "JSON file", kMaxJsonFileBytes);
  try {
    if (cancel == nullptr) return Json::parse(text);
    Json out;
    PollingDomParser sax(out, cancel, path);
    Json::sax_parse(text, &sax);  // strict, no comments: as Json::parse
    return out;
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
