// Strict config reading: YAML/JSON files into plain, validated spec structs.
//
// A spec is a plain struct with default member values, a `kind`, and a static `describe`
// that lists its fields once. That one list drives reading (unknown keys rejected with a
// "did you mean"), validation (ranges, allowed values, cross-field rules), `lightsim config
// explain`, and docs/config-reference.md.
//
//   struct RingSpec {
//     static constexpr std::string_view kind = "ring";
//     static constexpr std::string_view preset_dir = "devices";  // optional: `preset: NAME`
//     Length radius = parse<dims::length>("20 um");
//     double q_loaded = 1e4;
//     static void describe(config::Schema<RingSpec>& s) {
//       s.help("Add-drop micro-ring resonator.");
//       s.field("radius", &RingSpec::radius, "ring radius").range("1 um", "1 mm");
//       s.field("q_loaded", &RingSpec::q_loaded, "loaded quality factor").range(100, 1e8);
//     }
//   };
//   RingSpec ring = config::load_spec<RingSpec>("configs/devices/tfln_q1e4.yaml", options);
//
// Top-level files carry `schema_version: <int>` and `kind: <spec kind>`. Any mapping read as
// a spec with a preset_dir may say `preset: NAME`: the preset file
// `<config root>/<preset_dir>/NAME.yaml` is loaded and the mapping's other keys override it
// key by key (nested mappings merge recursively; lists are replaced).
// Every failure throws ConfigError (or UnitError) whose message starts with
// "file:line:column: key.path:".
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/ranges.h>

#include "lightsim/core/config_node.h"
#include "lightsim/core/error.h"
#include "lightsim/core/units.h"

namespace lightsim::config {

struct SchemaInfo;

// Description of one field, for explain output and the generated reference.
struct FieldInfo {
  std::string name;
  std::string type;          // "length", "number", "integer", "list of power", "ring spec"...
  std::string unit;          // canonical unit of a quantity ("m", "W/sqrt(Hz)"), else ""
  std::string default_text;  // the default as it would be written in a file; "" if required
  std::string constraint;    // "[1 um, 1 mm]", "> 0", "one of: a, b"; "" when unconstrained
  std::string help;
  bool required = false;
  const SchemaInfo* nested = nullptr;  // fields of a nested spec (or list/map of specs)
};

struct SchemaInfo {
  std::string kind;
  std::string help;
  std::string preset_dir;  // "" when this spec takes no presets
  int schema_version = 1;
  std::vector<FieldInfo> fields;
};

struct LoadOptions {
  // Folders searched for `preset: NAME` as <root>/<preset_dir>/NAME.yaml, in order.
  std::vector<std::filesystem::path> config_roots;
  // "key.path=value" assignments applied to a top-level file before it is read.
  std::vector<std::string> assignments;
};

template <class S>
class Schema;

template <class S>
concept Spec = std::default_initializable<S> && requires(Schema<S>& schema) {
  { S::kind } -> std::convertible_to<std::string_view>;
  S::describe(schema);
};

template <class S>
const Schema<S>& schema_of();

// Reading state: options, the key path being read (for messages) and the preset chain.
class Reader {
 public:
  explicit Reader(LoadOptions options) : options_(std::move(options)) {}

  const LoadOptions& options() const { return options_; }
  // The dotted key path being read, e.g. "laser.power" or "channels[3]".
  std::string path() const;
  // Throws ConfigError "<location>: <path>: <message>".
  [[noreturn]] void fail(const Node& at, std::string_view message) const;
  [[noreturn]] void fail(const Location& at, std::string_view message) const;

  // Reads a spec from a mapping (or null for all defaults), resolving `preset:`.
  template <Spec S>
  void read_spec(S& out, const Node& node);

  // RAII: appends a key ("name" or "[3]") to the path for the lifetime of the scope.
  class Scope {
   public:
    Scope(Reader& r, std::string key) : r_(r) { r_.path_.push_back(std::move(key)); }
    ~Scope() { r_.path_.pop_back(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Reader& r_;
  };

  // Loads the preset named by node["preset"] and merges the rest of `node` over it.
  Node expand_preset(const Node& node, const SchemaInfo& schema);

 private:
  LoadOptions options_;
  std::vector<std::string> path_;
  std::vector<std::string> preset_chain_;
};

// ---- scalar readers (non-template, in config_read.cpp) ---------------------------------
double read_number(const Node& n, const Reader& r);
std::int64_t read_integer(const Node& n, const Reader& r);
bool read_bool(const Node& n, const Reader& r);
std::string read_string(const Node& n, const Reader& r);
ParsedQuantity read_quantity(const Node& n, const Reader& r, Dim expected);
// Closest candidate by edit distance, or "" when none is close enough to suggest.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);
// Checks schema_version and kind of a top-level document and returns it without them.
Node strip_header(const Node& document, std::string_view kind, int schema_version);
std::string format_number(double v);

namespace detail {
template <class T>
struct is_quantity : std::false_type {};
template <Dim D>
struct is_quantity<Quantity<D>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_string_map : std::false_type {};
template <class T>
struct is_string_map<std::map<std::string, T>> : std::true_type {};
template <class T>
constexpr bool is_integer = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The scalar type inside lists, optionals and maps: what range checks compare.
template <class T>
struct element {
  using type = T;
};
template <class T>
struct element<std::vector<T>> : element<T> {};
template <class T>
struct element<std::optional<T>> : element<T> {};
template <class T>
struct element<std::map<std::string, T>> : element<T> {};
}  // namespace detail
template <class T>
using element_t = typename detail::element<T>::type;

// Constraints on the scalar elements of a field.
template <class E>
struct Checks {
  std::optional<E> lo, hi;
  bool lo_exclusive = false;
  std::vector<std::string> allowed;  // for strings
  std::size_t min_items = 0;         // for lists and maps
};

// ---- value traits: reading, naming and printing each supported field type -------------
template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, bool>)
    return "boolean";
  else if constexpr (detail::is_integer<T>)
    return "integer";
  else if constexpr (std::is_floating_point_v<T>)
    return "number";
  else if constexpr (std::is_same_v<T, std::string>)
    return "string";
  else if constexpr (detail::is_quantity<T>::value)
    return dimension_name(T::dim);
  else if constexpr (detail::is_vector<T>::value)
    return "list of " + type_name<typename T::value_type>();
  else if constexpr (detail::is_optional<T>::value)
    return type_name<typename T::value_type>() + " (optional)";
  else if constexpr (detail::is_string_map<T>::value)
    return "map of name to " + type_name<typename T::mapped_type>();
  else if constexpr (Spec<T>)
    return std::string(T::kind) + " spec";
  else
    static_assert(sizeof(T) == 0, "unsupported config field type");
}

template <class T>
std::string unit_name() {
  if constexpr (detail::is_quantity<T>::value)
    return T::dim == dims::none ? "" : canonical_unit(T::dim);
  else if constexpr (detail::is_vector<T>::value || detail::is_optional<T>::value)
    return unit_name<typename T::value_type>();
  else if constexpr (detail::is_string_map<T>::value)
    return unit_name<typename T::mapped_type>();
  else
    return "";
}

template <class T>
const SchemaInfo* nested_info() {
  if constexpr (Spec<T>)
    return &schema_of<T>().info();
  else if constexpr (detail::is_vector<T>::value || detail::is_optional<T>::value)
    return nested_info<typename T::value_type>();
  else if constexpr (detail::is_string_map<T>::value)
    return nested_info<typename T::mapped_type>();
  else
    return nullptr;
}

template <class T>
std::string print_value(const T& v) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? "true" : "false";
  else if constexpr (detail::is_integer<T>)
    return fmt::format("{}", v);
  else if constexpr (std::is_floating_point_v<T>)
    return format_number(v);
  else if constexpr (std::is_same_v<T, std::string>)
    return v;
  else if constexpr (detail::is_quantity<T>::value)
    return to_string(v);
  else if constexpr (detail::is_vector<T>::value) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + print_value(v[i]);
    return out + "]";
  } else if constexpr (detail::is_optional<T>::value)
    return v ? print_value(*v) : "unset";
  else if constexpr (detail::is_string_map<T>::value)
    return v.empty() ? "{}" : "(see file)";
  else
    return "";  // nested specs: their fields carry the defaults
}

template <class E>
void check_element(const E& v, const Checks<E>& c, const Node& n, const Reader& r) {
  if constexpr (std::is_arithmetic_v<E> || detail::is_quantity<E>::value) {
    const bool low = c.lo && (c.lo_exclusive ? !(v > *c.lo) : v < *c.lo);
    const bool high = c.hi && v > *c.hi;
    if (low || high) {
      // fmt::format rather than `"[" + std::string`: GCC 12 reports a false -Wrestrict
      // (GCC bug 105329) on the latter when inlined at -O3.
      std::string bound = c.lo_exclusive && !c.hi ? fmt::format("> {}", print_value(*c.lo))
                          : !c.hi                 ? fmt::format(">= {}", print_value(*c.lo))
                          : !c.lo                 ? fmt::format("<= {}", print_value(*c.hi))
                                  : fmt::format("[{}, {}]", print_value(*c.lo), print_value(*c.hi));
      r.fail(n, fmt::format("{} is out of range {}", print_value(v), bound));
    }
  } else if constexpr (std::is_same_v<E, std::string>) {
    if (!c.allowed.empty() && std::find(c.allowed.begin(), c.allowed.end(), v) == c.allowed.end()) {
      const std::string guess = closest_match(v, c.allowed);
      r.fail(n, fmt::format("'{}' is not one of: {}{}", v, fmt::join(c.allowed, ", "),
                            guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess)));
    }
  }
}

template <class T>
void read_value(T& out, const Node& n, Reader& r, const Checks<element_t<T>>& c) {
  if constexpr (detail::is_optional<T>::value) {
    if (n.is_null()) {
      out.reset();
      return;
    }
    typename T::value_type v{};
    read_value(v, n, r, c);
    out = std::move(v);
    return;
  } else if constexpr (Spec<T>) {
    r.read_spec(out, n);
    return;
  } else if constexpr (detail::is_vector<T>::value) {
    if (!n.is_sequence()) r.fail(n, fmt::format("expected a list, got {}", n.kind_name()));
    if (n.items().size() < c.min_items)
      r.fail(n, fmt::format("expected at least {} item(s), got {}", c.min_items, n.items().size()));
    out.clear();
    out.reserve(n.items().size());
    for (std::size_t i = 0; i < n.items().size(); ++i) {
      Reader::Scope scope(r, fmt::format("[{}]", i));
      typename T::value_type v{};
      read_value(v, n.items()[i], r, c);
      out.push_back(std::move(v));
    }
    return;
  } else if constexpr (detail::is_string_map<T>::value) {
    if (!n.is_map()) r.fail(n, fmt::format("expected a mapping, got {}", n.kind_name()));
    if (n.entries().size() < c.min_items)
      r.fail(n, fmt::format("expected at least {} entr(ies)", c.min_items));
    out.clear();
    for (const auto& [key, value] : n.entries()) {
      Reader::Scope scope(r, key);
      read_value(out[key], value, r, c);
    }
    return;
  } else {
    if (n.is_null()) r.fail(n, fmt::format("has no value (expected {})", type_name<T>()));
    if constexpr (std::is_same_v<T, bool>)
      out = read_bool(n, r);
    else if constexpr (detail::is_integer<T>) {
      const std::int64_t v = read_integer(n, r);
      if (std::cmp_less(v, std::numeric_limits<T>::min()) ||
          std::cmp_greater(v, std::numeric_limits<T>::max()))
        r.fail(n, fmt::format("{} does not fit: expected an integer in [{}, {}]", v,
                              std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
      out = static_cast<T>(v);
    } else if constexpr (std::is_floating_point_v<T>)
      out = static_cast<T>(read_number(n, r));
    else if constexpr (std::is_same_v<T, std::string>)
      out = read_string(n, r);
    else if constexpr (detail::is_quantity<T>::value)
      out = T::si(read_quantity(n, r, T::dim).si);
    else
      static_assert(sizeof(T) == 0, "unsupported config field type");
    check_element(out, c, n, r);
  }
}

// Converts a bound given in describe() ("1 um" for a Length, 100 for a double).
template <class E, class B>
E to_bound(const B& b) {
  if constexpr (detail::is_quantity<E>::value && std::is_convertible_v<B, std::string_view>)
    return parse<E::dim>(std::string_view(b));
  else
    return static_cast<E>(b);
}

// Returned by Schema::field() to add constraints fluently.
template <class T>
class FieldBuilder {
 public:
  using E = element_t<T>;
  FieldBuilder(FieldInfo& info, std::shared_ptr<Checks<E>> checks)
      : info_(info), checks_(std::move(checks)) {}

  // Inclusive range for numbers and quantities (applies to each element of a list).
  template <class B1, class B2>
  FieldBuilder& range(const B1& lo, const B2& hi) {
    checks_->lo = to_bound<E>(lo);
    checks_->hi = to_bound<E>(hi);
    info_.constraint =
        fmt::format("[{}, {}]", print_value(*checks_->lo), print_value(*checks_->hi));
    return *this;
  }
  template <class B>
  FieldBuilder& min(const B& lo) {
    checks_->lo = to_bound<E>(lo);
    info_.constraint = fmt::format(">= {}", print_value(*checks_->lo));
    return *this;
  }
  template <class B>
  FieldBuilder& max(const B& hi) {
    checks_->hi = to_bound<E>(hi);
    info_.constraint = fmt::format("<= {}", print_value(*checks_->hi));
    return *this;
  }
  // Strictly greater than zero.
  FieldBuilder& positive() {
    checks_->lo = E{};
    checks_->lo_exclusive = true;
    info_.constraint = "> 0";
    return *this;
  }
  // Allowed values of a string field.
  FieldBuilder& one_of(std::vector<std::string> allowed) {
    info_.constraint = fmt::format("one of: {}", fmt::join(allowed, ", "));
    checks_->allowed = std::move(allowed);
    return *this;
  }
  FieldBuilder& min_items(std::size_t n) {
    checks_->min_items = n;
    info_.constraint = fmt::format("at least {} item(s)", n);
    return *this;
  }
  // The key must be given (its default value is then only a placeholder).
  FieldBuilder& required() {
    info_.required = true;
    info_.default_text.clear();
    return *this;
  }

 private:
  FieldInfo& info_;
  std::shared_ptr<Checks<E>> checks_;
};

template <class S>
class Schema {
 public:
  // Builds the schema by running S::describe on it (see schema_of()).
  Schema() {
    info_.kind = std::string(S::kind);
    if constexpr (requires { S::preset_dir; }) info_.preset_dir = std::string(S::preset_dir);
    if constexpr (requires { S::schema_version; }) info_.schema_version = S::schema_version;
    S::describe(*this);
  }
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  Schema& help(std::string text) {
    info_.help = std::move(text);
    return *this;
  }

  template <class T>
  FieldBuilder<T> field(std::string name, T S::*member, std::string help) {
    auto checks = std::make_shared<Checks<element_t<T>>>();
    FieldInfo& info = add_info(name, std::move(help));
    info.type = type_name<T>();
    info.unit = unit_name<T>();
    info.default_text = print_value(defaults_.*member);
    info.nested = nested_info<T>();
    fields_.push_back({std::move(name), [member, checks](S& out, const Node& n, Reader& r) {
                         read_value(out.*member, n, r, *checks);
                       }});
    return FieldBuilder<T>(info, checks);
  }

  // A C++ enum field written as one of the given names.
  template <class En>
  requires std::is_enum_v<En> FieldInfo& enumeration(std::string name, En S::*member,
                                                     std::vector<std::pair<std::string, En>> names,
                                                     std::string help) {
    std::vector<std::string> words;
    for (const auto& [word, value] : names) words.push_back(word);
    FieldInfo& info = add_info(name, std::move(help));
    info.type = "string";
    info.constraint = fmt::format("one of: {}", fmt::join(words, ", "));
    for (const auto& [word, value] : names)
      if (value == defaults_.*member) info.default_text = word;
    fields_.push_back({std::move(name), [member, names, words](S& out, const Node& n, Reader& r) {
                         std::string word;
                         Checks<std::string> checks;
                         checks.allowed = words;
                         read_value(word, n, r, checks);
                         for (const auto& [w, value] : names)
                           if (w == word) out.*member = value;
                       }});
    return info;
  }

  // A rule across fields, run after all fields are read: returns an error message or nullopt.
  Schema& rule(std::function<std::optional<std::string>(const S&)> check) {
    rules_.push_back(std::move(check));
    return *this;
  }

  const SchemaInfo& info() const { return info_; }

  // Reads a mapping (already preset-expanded) into `out`.
  void read(S& out, const Node& node, Reader& r) const {
    if (node.is_null()) {
      for (const auto& f : info_.fields)
        if (f.required) r.fail(node, fmt::format("missing required key '{}'", f.name));
      out = S{};
      run_rules(out, node, r);
      return;
    }
    if (!node.is_map())
      r.fail(node,
             fmt::format("expected a mapping of {} keys, got {}", info_.kind, node.kind_name()));
    out = S{};
    for (const auto& [key, value] : node.entries()) {
      const Field* f = find(key);
      if (f == nullptr) fail_unknown(key, node, r);
      Reader::Scope scope(r, key);
      f->read(out, value, r);
    }
    for (const auto& f : info_.fields)
      if (f.required && node.find(f.name) == nullptr)
        r.fail(node, fmt::format("missing required key '{}' ({}: {})", f.name, f.type, f.help));
    run_rules(out, node, r);
  }

 private:
  struct Field {
    std::string name;
    std::function<void(S&, const Node&, Reader&)> read;
  };

  FieldInfo& add_info(const std::string& name, std::string help) {
    LIGHTSIM_CHECK(find(name) == nullptr, "{}: field '{}' described twice", info_.kind, name);
    FieldInfo info;
    info.name = name;
    info.help = std::move(help);
    info_.fields.push_back(std::move(info));
    return info_.fields.back();
  }
  const Field* find(std::string_view key) const {
    for (const auto& f : fields_)
      if (f.name == key) return &f;
    return nullptr;
  }
  [[noreturn]] void fail_unknown(const std::string& key, const Node& map, Reader& r) const {
    std::vector<std::string> names;
    for (const auto& f : fields_) names.push_back(f.name);
    if (!info_.preset_dir.empty()) names.push_back("preset");
    const std::string guess = closest_match(key, names);
    Reader::Scope scope(r, key);
    r.fail(map.key_location(key),
           fmt::format("unknown key in {} spec{}", info_.kind,
                       guess.empty() ? fmt::format(" (valid keys: {})", fmt::join(names, ", "))
                                     : fmt::format(" (did you mean '{}'?)", guess)));
  }
  void run_rules(const S& out, const Node& node, const Reader& r) const {
    for (const auto& rule_fn : rules_)
      if (auto message = rule_fn(out)) r.fail(node, *message);
  }

  const S defaults_{};
  SchemaInfo info_;
  std::vector<Field> fields_;
  std::vector<std::function<std::optional<std::string>(const S&)>> rules_;
};

template <class S>
const Schema<S>& schema_of() {
  // Built once, immutable afterwards (thread-safe static initialization).
  static const Schema<S> schema;
  return schema;
}

template <Spec S>
void Reader::read_spec(S& out, const Node& node) {
  const Schema<S>& schema = schema_of<S>();
  if (node.find("preset") != nullptr && !schema.info().preset_dir.empty()) {
    const Node expanded = expand_preset(node, schema.info());
    schema.read(out, expanded, *this);
    return;
  }
  schema.read(out, node, *this);
}

// Reads a spec from an already parsed top-level document (with schema_version and kind).
template <Spec S>
S read_spec(const Node& document, const LoadOptions& options = {}) {
  int version = 1;
  if constexpr (requires { S::schema_version; }) version = S::schema_version;
  Node doc = document;
  for (const auto& assignment : options.assignments) apply_assignment(doc, assignment);
  const Node body = strip_header(doc, S::kind, version);
  Reader reader(options);
  S out{};
  reader.read_spec(out, body);
  return out;
}

// Loads a top-level config file of kind S::kind. Throws InputError/ConfigError/UnitError.
template <Spec S>
S load_spec(const std::filesystem::path& file, const LoadOptions& options = {}) {
  return read_spec<S>(load_document(file), options);
}

}  // namespace lightsim::config
