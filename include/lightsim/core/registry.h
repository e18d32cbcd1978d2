// What a lightsim build offers: config spec kinds and pluggable implementation families.
//
// There is no global registry. `main` builds one Registry and each module fills it from its
// own `register.cpp` (e.g. `photonics::register_all(Registry&)`), so `lightsim list`,
// `lightsim config explain KIND`, `lightsim config check FILE` and the generated
// docs/config-reference.md all see exactly what was registered, in one place.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "lightsim/core/config.h"

namespace lightsim {

// One named implementation of an interface (e.g. the "quest" scorer).
struct Implementation {
  std::string name;
  std::string help;
};

// A pluggable family: an interface plus its named implementations. `Factory` is whatever
// callable the family's module chooses to build an implementation.
template <class Factory>
class Family {
 public:
  Family(std::string name, std::string help) : name_(std::move(name)), help_(std::move(help)) {}

  // Registers an implementation; a duplicate name is an InternalError.
  void add(std::string impl_name, std::string help, Factory factory) {
    LIGHTSIM_CHECK(!factories_.contains(impl_name), "{} '{}' registered twice", name_, impl_name);
    implementations_.push_back({impl_name, std::move(help)});
    factories_.emplace(std::move(impl_name), std::move(factory));
  }
  // The factory for `impl_name`; an unknown name is a ConfigError listing the valid ones.
  const Factory& get(std::string_view impl_name) const {
    if (auto it = factories_.find(std::string(impl_name)); it != factories_.end())
      return it->second;
    std::vector<std::string> names;
    for (const auto& impl : implementations_) names.push_back(impl.name);

    LIGHTSIM_THROW(ConfigError, "unknown {} '{}'{}", name_, impl_name,
                   config::suggest(impl_name, names, "known"));
  }
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<Implementation>& implementations() const { return implementations_; }

 private:
  std::string name_, help_;
  std::vector<Implementation> implementations_;
  std::map<std::string, Factory, std::less<>> factories_;
};

class Registry {
 public:
  // --- config spec kinds ---------------------------------------------------------------
  template <config::Spec S>
  void add_spec() {
    add_spec<S>([](const config::Node& doc, const config::LoadOptions& o) {
      (void)config::read_spec<S>(doc, o);
    });
  }
  // The same with a custom check of a whole document (e.g. one that also reads each of a
  // study's size overlays); it must throw on any error, like read_spec.
  template <class S>
  void add_spec(std::function<void(const config::Node&, const config::LoadOptions&)> check) {
    const std::string kind(S::kind);
    LIGHTSIM_CHECK(!specs_.contains(kind), "spec kind '{}' registered twice", kind);
    specs_.emplace(kind, SpecEntry{&config::schema_of<S>().info(), std::move(check)});
  }
  std::vector<std::string> spec_kinds() const;
  // The schema of a kind; an unknown kind is a UsageError with a suggestion.
  const config::SchemaInfo& spec(std::string_view kind) const;
  // Reads `file` as the spec kind it declares (its `kind:` key), throwing on any error.
  // Returns that kind.
  std::string check_file(const std::filesystem::path& file, const config::LoadOptions& o) const;
  // The same for an already parsed document (e.g. YAML text from the Python bindings).
  std::string check_document(const config::Node& document, const config::LoadOptions& o) const;

  // --- implementation families -----------------------------------------------------------
  // Creates (or returns) the family `name`; `Factory` must match on every call.
  template <class Factory>
  Family<Factory>& family(const std::string& name, const std::string& help) {
    auto it = families_.find(name);
    if (it == families_.end()) {
      auto holder = std::make_shared<Family<Factory>>(name, help);
      it = families_
               .emplace(name,
                        FamilyEntry{holder, &holder->implementations(), help, &typeid(Factory)})
               .first;
    }
    LIGHTSIM_CHECK(*it->second.factory_type == typeid(Factory),
                   "family '{}' requested with two factory types", name);
    auto typed = std::static_pointer_cast<Family<Factory>>(it->second.holder);
    return *typed;
  }
  // The family `name` if it was created with this `Factory`, else nullptr (no family of that
  // name); a family of another factory type is an InternalError.
  template <class Factory>
  const Family<Factory>* find_family(std::string_view name) const {
    auto it = families_.find(name);
    if (it == families_.end()) return nullptr;
    LIGHTSIM_CHECK(*it->second.factory_type == typeid(Factory),
                   "family '{}' requested with two factory types", name);
    return static_cast<const Family<Factory>*>(it->second.holder.get());
  }
  // Family name -> help and implementations, for `lightsim list`.
  struct FamilyView {
    std::string name, help;
    const std::vector<Implementation>* implementations;
  };
  std::vector<FamilyView> families() const;

 private:
  struct SpecEntry {
    const config::SchemaInfo* info;
    std::function<void(const config::Node&, const config::LoadOptions&)> check;
  };
  struct FamilyEntry {
    std::shared_ptr<void> holder;
    const std::vector<Implementation>* implementations;
    std::string help;
    const std::type_info* factory_type;
  };
  std::map<std::string, SpecEntry, std::less<>> specs_;
  std::map<std::string, FamilyEntry, std::less<>> families_;
};

// Human-readable description of every field of a spec (for `lightsim config explain`).
std::string explain(const config::SchemaInfo& schema);
// Markdown reference of every registered spec kind (docs/config-reference.md).
std::string config_reference_markdown(const Registry& registry);

}  // namespace lightsim
