// Strict config reading, part 2: how each supported field type is read, named, printed and
// range-checked (bool, integers, double, string, Quantity, vector, optional, map, nested spec).
#pragma once

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/ranges.h>

#include "lightsim/core/config_reader.h"
#include "lightsim/core/file_name.h"

namespace lightsim::config {

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
  bool file_name = false;            // for strings: a safe file name (core/file_name.h)
  std::size_t min_items = 0;         // for lists and maps
  std::string ref_dir;               // for references: the folder of names ("" = preset_dir)
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
  else if constexpr (detail::is_ref<T>::value)
    return "reference to " + std::string(T::spec_type::kind);
  else if constexpr (Spec<T>)
    return std::string(T::kind) + " spec";
  else
    static_assert(sizeof(T) == 0, "unsupported config field type");
}

// The schema a Ref<S> field (or a list or optional of them) refers to, else nullptr.
template <class T>
const SchemaInfo* referenced_info() {
  if constexpr (detail::is_ref<T>::value)
    return &schema_of<typename T::spec_type>().info();
  else if constexpr (detail::is_vector<T>::value || detail::is_optional<T>::value)
    return referenced_info<typename T::value_type>();
  else
    return nullptr;
}

// Whether a field of type T is a Ref<S> or a list or optional of them.
template <class T>
constexpr bool is_reference_field() {
  if constexpr (detail::is_ref<T>::value)
    return true;
  else if constexpr (detail::is_vector<T>::value || detail::is_optional<T>::value)
    return is_reference_field<typename T::value_type>();
  else
    return false;
}

// The folder a Ref<S> field's names are looked up in by default: S::preset_dir, else "".
template <class T>
std::string reference_dir() {
  if constexpr (detail::is_ref<T>::value) {
    if constexpr (requires { T::spec_type::preset_dir; })
      return std::string(T::spec_type::preset_dir);
    else
      return "";
  } else if constexpr (detail::is_vector<T>::value || detail::is_optional<T>::value) {
    return reference_dir<typename T::value_type>();
  } else {
    return "";
  }
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
  else if constexpr (detail::is_ref<T>::value)
    return v.name();
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
    if (c.file_name) {
      if (const auto problem = file_name_problem(v))
        r.fail(n, fmt::format("'{}' {}: it names a file inside the output folder, so it must be {}",
                              v, *problem, kFileNameRule));
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
  } else if constexpr (detail::is_ref<T>::value) {
    r.read_ref(out, n, c.ref_dir);
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

// Whether a value of type T may hold references (a Ref, a spec, or a container of them).
template <class T>
constexpr bool may_hold_refs() {
  if constexpr (detail::is_ref<T>::value || Spec<T>)
    return true;
  else if constexpr (detail::is_vector<T>::value || detail::is_optional<T>::value)
    return may_hold_refs<typename T::value_type>();
  else if constexpr (detail::is_string_map<T>::value)
    return may_hold_refs<typename T::mapped_type>();
  else
    return false;
}

// Resolves the references of a value that was not written (a field's default): each Ref
// name in it is read as if written at `owner` (the mapping that left the field out).
template <class T>
void resolve_default(T& v, const Node& owner, Reader& r, const Checks<element_t<T>>& c) {
  if constexpr (detail::is_ref<T>::value) {
    if (!v.name().empty()) r.read_ref_name(v, v.name(), owner.location(), c.ref_dir);
  } else if constexpr (detail::is_optional<T>::value) {
    if (v) resolve_default(*v, owner, r, c);
  } else if constexpr (detail::is_vector<T>::value) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      Reader::Scope scope(r, fmt::format("[{}]", i));
      resolve_default(v[i], owner, r, c);
    }
  } else if constexpr (detail::is_string_map<T>::value) {
    for (auto& [key, value] : v) {
      Reader::Scope scope(r, key);
      resolve_default(value, owner, r, c);
    }
  } else if constexpr (Spec<T>) {
    schema_of<T>().resolve_defaults(v, owner, r);
  }
}

}  // namespace lightsim::config
