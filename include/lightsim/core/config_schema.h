// Strict config reading, part 3: Schema<S>, the one list of fields a spec declares in
// `describe`, and FieldBuilder for its constraints.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lightsim/core/config_value.h"

namespace lightsim::config {

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
  // A string that becomes a file name in an output folder (core/file_name.h).
  FieldBuilder& file_name() {
    checks_->file_name = true;
    info_.constraint = fmt::format("a file name: {}", kFileNameRule);
    return *this;
  }
  FieldBuilder& min_items(std::size_t n) {
    checks_->min_items = n;
    info_.constraint = fmt::format("at least {} item(s)", n);
    return *this;
  }
  // For a Ref<S> field: the folder under each config root where its names are looked up
  // (default: S::preset_dir).
  FieldBuilder& dir(std::string folder) {
    info_.reference_dir = folder;
    checks_->ref_dir = std::move(folder);
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
    if constexpr (is_reference_field<T>()) info.referenced = &referenced_info<T>;
    info.reference_dir = reference_dir<T>();
    info.listed = detail::is_vector<T>::value;
    info.keyed = detail::is_string_map<T>::value;
    checks->ref_dir = info.reference_dir;
    std::function<void(S&, const Node&, Reader&)> resolve;
    if constexpr (may_hold_refs<T>())
      resolve = [member, checks](S& out, const Node& owner, Reader& r) {
        resolve_default(out.*member, owner, r, *checks);
      };
    fields_.push_back({std::move(name),
                       [member, checks](S& out, const Node& n, Reader& r) {
                         read_value(out.*member, n, r, *checks);
                       },
                       std::move(resolve)});
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
    fields_.push_back({std::move(name),
                       [member, names, words](S& out, const Node& n, Reader& r) {
                         std::string word;
                         Checks<std::string> checks;
                         checks.allowed = words;
                         read_value(word, n, r, checks);
                         for (const auto& [w, value] : names)
                           if (w == word) out.*member = value;
                       },
                       nullptr});
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
      resolve_defaults(out, node, r);
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
    for (const auto& f : fields_)
      if (f.resolve_default && node.find(f.name) == nullptr) {
        Reader::Scope scope(r, f.name);
        f.resolve_default(out, node, r);
      }
    run_rules(out, node, r);
  }

  // Resolves the references among the defaults of every field of `out` (a spec whose
  // mapping was left out of `owner`).
  void resolve_defaults(S& out, const Node& owner, Reader& r) const {
    for (const auto& f : fields_)
      if (f.resolve_default) {
        Reader::Scope scope(r, f.name);
        f.resolve_default(out, owner, r);
      }
  }

 private:
  struct Field {
    std::string name;
    std::function<void(S&, const Node&, Reader&)> read;
    // Resolves references in the field's default when the key is absent (null: none).
    std::function<void(S&, const Node&, Reader&)> resolve_default;
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

    Reader::Scope scope(r, key);
    r.fail(map.key_location(key),
           fmt::format("unknown key in {} spec{}", info_.kind, suggest(key, names, "valid keys")));
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

}  // namespace lightsim::config
