// Conversions between lightsim's JSON and config trees and Python objects (bindings.h).
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

#include "bindings.h"

namespace lightsim::python {

using namespace pybind11::literals;

py::object to_python(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return py::none();
    case Json::value_t::boolean:
      return py::bool_(value.get<bool>());
    case Json::value_t::number_integer:
      return py::int_(value.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return py::int_(value.get<std::uint64_t>());
    case Json::value_t::number_float:
      return py::float_(value.get<double>());
    case Json::value_t::string:
      return py::str(value.get_ref<const std::string&>());
    case Json::value_t::array: {
      py::list list;
      for (const Json& item : value) list.append(to_python(item));
      return list;
    }
    case Json::value_t::object: {
      py::dict dict;
      for (const auto& [key, item] : value.items()) dict[py::str(key)] = to_python(item);
      return dict;
    }
    case Json::value_t::binary:
    case Json::value_t::discarded:
      break;
  }
  LIGHTSIM_THROW(InternalError, "JSON value of type {} has no Python form", value.type_name());
}

namespace {

// Deeper than any config or request document; a self-containing dict stops here.
constexpr int kMaxDepth = 64;

std::string type_name(py::handle value) {
  return py::str(py::type::of(value).attr("__name__")).cast<std::string>();
}

Json to_json_at(py::handle value, const std::string& what, int depth) {
  LIGHTSIM_CHECK_AS(UsageError, depth <= kMaxDepth,
                    "{}: nested deeper than {} levels (a dict or list that contains itself?)", what,
                    kMaxDepth);
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) {
    try {
      if (value.attr("__lt__")(0).cast<bool>()) return value.cast<std::int64_t>();
      return value.cast<std::uint64_t>();
    } catch (const py::cast_error&) {
      LIGHTSIM_THROW(UsageError, "{}: integer {} is outside [-2^63, 2^64)", what,
                     py::str(value).cast<std::string>());
    }
  }
  if (py::isinstance<py::float_>(value)) {
    const double v = value.cast<double>();
    LIGHTSIM_CHECK_AS(UsageError, std::isfinite(v), "{}: expected a finite number, got {}", what,
                      py::str(value).cast<std::string>());
    return v;
  }
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::dict>(value)) {
    Json object = Json::object();
    for (const auto& [key, item] : value.cast<py::dict>()) {
      LIGHTSIM_CHECK_AS(UsageError, py::isinstance<py::str>(key),
                        "{}: mapping keys must be strings (got {})", what, type_name(key));
      const std::string name = key.cast<std::string>();
      object[name] = to_json_at(item, what + "." + name, depth + 1);
    }
    return object;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    Json array = Json::array();
    std::size_t i = 0;
    for (const auto& item : value)
      array.push_back(to_json_at(item, fmt::format("{}[{}]", what, i++), depth + 1));
    return array;
  }
  // NumPy scalars and arrays.
  if (py::hasattr(value, "tolist")) return to_json_at(value.attr("tolist")(), what, depth + 1);
  LIGHTSIM_THROW(UsageError,
                 "{}: cannot use a value of type {} (expected a number, string, bool, "
                 "list or dict)",
                 what, type_name(value));
}

}  // namespace

Json to_json(py::handle value, const std::string& what) {
  return to_json_at(value, what, 0);
}

namespace {

bool parses_fully_as_integer(const std::string& text) {
  std::int64_t v = 0;
  const char* begin = text.data() + (text.starts_with('+') ? 1 : 0);
  const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() && begin != end;
}

// Decimal numbers only (no "inf"/"nan" words: YAML spells those .inf/.nan).
std::optional<double> parse_float(const std::string& text) {
  if (text == ".inf" || text == "+.inf" || text == ".Inf") return HUGE_VAL;
  if (text == "-.inf" || text == "-.Inf") return -HUGE_VAL;
  if (text == ".nan" || text == ".NaN") return std::nan("");
  if (text.empty() || text.find_first_of("0123456789") == std::string::npos ||
      text.find_first_not_of("0123456789+-.eE") != std::string::npos)
    return std::nullopt;
  double v = 0;
  const char* begin = text.data() + (text.starts_with('+') ? 1 : 0);
  const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

py::object scalar_to_python(const std::string& text) {
  if (text == "true" || text == "True" || text == "TRUE") return py::bool_(true);
  if (text == "false" || text == "False" || text == "FALSE") return py::bool_(false);
  if (text == "null" || text == "Null" || text == "NULL" || text == "~") return py::none();
  if (parses_fully_as_integer(text)) return py::int_(std::stoll(text));
  if (const auto v = parse_float(text)) return py::float_(*v);
  return py::str(text);
}

}  // namespace

py::object to_python(const config::Node& node) {
  switch (node.kind()) {
    case config::Node::Kind::null:
      return py::none();
    case config::Node::Kind::scalar:
      return scalar_to_python(node.scalar());
    case config::Node::Kind::map: {
      py::dict dict;
      for (const auto& [key, item] : node.entries()) dict[py::str(key)] = to_python(item);
      return dict;
    }
    case config::Node::Kind::sequence: {
      py::list list;
      for (const auto& item : node.items()) list.append(to_python(item));
      return list;
    }
  }
  LIGHTSIM_THROW(InternalError, "config node of unknown kind");
}

py::dict table_arrays(const Json& table) {
  const py::module_ numpy = py::module_::import("numpy");
  const Json& columns = table.at("columns");
  const Json& rows = table.at("rows");
  py::dict out;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    bool all_bool = true, all_int = true, all_number = true, all_string = true;
    py::list cells;
    for (const Json& row : rows) {
      const Json& cell = row.at(c);
      all_bool = all_bool && cell.is_boolean();
      all_int = all_int && cell.is_number_integer();
      all_number = all_number && cell.is_number();
      all_string = all_string && cell.is_string();
      cells.append(to_python(cell));
    }
    const char* dtype = all_bool     ? "bool"
                        : all_int    ? "int64"
                        : all_number ? "float64"
                        : all_string ? "str"
                                     : "object";
    if (rows.empty()) dtype = "float64";
    out[py::str(columns[c].at("name").get<std::string>())] =
        numpy.attr("array")(cells, "dtype"_a = dtype);
  }
  return out;
}

ContextOptions context_options(std::uint64_t seed, std::size_t threads, bool progress,
                               const std::atomic<bool>* cancel) {
  ContextOptions o;
  o.seed = seed;
  o.threads = threads;
  o.cancel = cancel;
  o.log_level = progress ? LogLevel::info : LogLevel::warn;
  o.progress.mode = progress ? ProgressMode::automatic : ProgressMode::quiet;
  return o;
}

}  // namespace lightsim::python
