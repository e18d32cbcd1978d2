// Ref<S>: a spec field that names another config of kind S.
//
// In a file a Ref is written as a preset name (looked up as <root>/<dir>/NAME.yaml|.yml|.json
// over LoadOptions::config_roots, where dir is S::preset_dir or the field's .dir("...")), as
// a path to a file of kind S (relative paths: from the folder of the file that names it, then
// from each config root), or as an inline mapping of S's keys (`preset:` allowed). The reader
// resolves AND reads the referenced spec when it reads the owning spec, so a bad reference is
// a ConfigError at the line that names it (ConfigNotFound when nothing has that name), and a
// spec that was read holds every spec it references, already validated and never changed.
//
//   struct DecodeStudySpec {
//     config::Ref<decode::DecodeScenario> scenario = "qwen2_5_7b";
//     ...  s.field("scenario", &DecodeStudySpec::scenario, "decode scenario");
//   };
//   const decode::DecodeScenario& sc = spec.scenario.get();  // or *spec.scenario
//
// `--set scenario.batches=[4]` addresses the referenced document, `--set scenario=other`
// the reference itself (config_assignments.h).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "lightsim/core/error.h"

namespace lightsim::config {

template <class S>
class Ref {
 public:
  using spec_type = S;

  Ref() = default;
  Ref(std::string name) : name_(std::move(name)) {}  // NOLINT: implicit, a default name
  Ref(const char* name) : name_(name) {}             // NOLINT

  // The name or path as written ("" for an inline mapping).
  const std::string& name() const { return name_; }
  // The file the spec was read from (for an inline mapping: the file that holds it).
  const std::filesystem::path& file() const { return file_; }
  // Whether the reader resolved it (every Ref of a spec read by config::read_spec is).
  bool resolved() const { return spec_ != nullptr; }
  // The referenced spec; an InternalError when it was never resolved (a spec built in code
  // rather than read: read it with config::read_spec, or resolve it with config::resolve).
  const S& get() const {
    LIGHTSIM_CHECK(spec_ != nullptr, "reference '{}' to a {} config was never resolved", name_,
                   S::kind);
    return *spec_;
  }
  const S& operator*() const { return get(); }
  const S* operator->() const { return &get(); }

  // Set by the reader: what `name` resolved to.
  void bind(std::string name, std::filesystem::path file, S spec) {
    name_ = std::move(name);
    file_ = std::move(file);
    spec_ = std::make_shared<const S>(std::move(spec));
  }

 private:
  std::string name_;
  std::filesystem::path file_;
  std::shared_ptr<const S> spec_;  // immutable once read; copies share it
};

namespace detail {
template <class T>
struct is_ref : std::false_type {};
template <class S>
struct is_ref<Ref<S>> : std::true_type {};
}  // namespace detail

}  // namespace lightsim::config
