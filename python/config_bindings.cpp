// lightsim.load_config, lightsim.config_kinds, lightsim.families and the load helpers
// (bindings.h).
#include <string>
#include <vector>

#include "bindings.h"
#include "lightsim/core/config_files.h"
#include "lightsim/core/config_roots.h"
#include "lightsim/core/data_dir.h"

namespace lightsim::python {

using namespace pybind11::literals;

std::filesystem::path to_path(const py::handle& value) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  const py::module_ os = py::module_::import("os");
  if (py::isinstance(value, os.attr("PathLike")))
    return os.attr("fspath")(value).cast<std::string>();
  LIGHTSIM_THROW(UsageError, "expected a path (str or os.PathLike), got {}",
                 py::str(py::type::of(value).attr("__name__")).cast<std::string>());
}

bool is_existing_path(const py::handle& value) {
  const py::module_ os = py::module_::import("os");
  if (!py::isinstance<py::str>(value) && !py::isinstance(value, os.attr("PathLike"))) return false;
  std::error_code ec;
  return std::filesystem::exists(to_path(value), ec);
}

config::LoadOptions load_options(const py::object& set, const py::object& config_path) {
  config::LoadOptions o;
  if (!config_path.is_none()) {
    if (py::isinstance<py::list>(config_path) || py::isinstance<py::tuple>(config_path)) {
      for (const auto& root : config_path)
        o.config_roots.push_back(config::require_config_root(to_path(root), "config_path"));
    } else {
      o.config_roots.push_back(config::require_config_root(to_path(config_path), "config_path"));
    }
  }
  o.config_roots.push_back(data_configs_dir());
  if (set.is_none()) return o;
  if (py::isinstance<py::dict>(set)) {
    for (const auto& [key, value] : set.cast<py::dict>()) {
      const std::string path = py::str(key).cast<std::string>();
      const std::string text = py::isinstance<py::str>(value)
                                   ? value.cast<std::string>()
                                   : to_json(value, "set." + path).dump();
      o.assignments.push_back(path + "=" + text);
    }
    return o;
  }
  LIGHTSIM_CHECK_AS(UsageError, py::isinstance<py::list>(set) || py::isinstance<py::tuple>(set),
                    "set: expected a dict {{\"key.path\": value}} or a list of \"key.path=value\" "
                    "strings");
  for (const auto& item : set) o.assignments.push_back(py::str(item).cast<std::string>());
  return o;
}

config::Node load_document(const py::object& source, const std::string& kind,
                           const Registry& registry, const config::LoadOptions& load) {
  config::Node doc;
  if (py::isinstance<py::dict>(source)) {
    doc = config::parse_document(to_json(source, "config").dump(), "<dict>");
  } else if (py::isinstance<py::str>(source) &&
             (source.cast<std::string>().find('\n') != std::string::npos ||
              source.cast<std::string>().starts_with('{'))) {
    doc = config::parse_document(source.cast<std::string>(), "<string>");
  } else {
    std::filesystem::path file = to_path(source);
    // A bare NAME of a kind with presets: <root>/<preset_dir>/NAME.yaml, first root that has it.
    if (!kind.empty() && !std::filesystem::exists(file) &&
        !config::looks_like_path(file.string()) && !registry.spec(kind).preset_dir.empty()) {
      file = config::find_named(file.string(), registry.spec(kind).preset_dir, load, kind);
    }
    doc = config::load_document(file);
  }
  if (!kind.empty() && doc.is_map() && doc.find("kind") == nullptr) {
    const config::SchemaInfo& schema = registry.spec(kind);  // UsageError when unknown
    doc.set("kind", config::Node::make_scalar(kind, doc.location()));
    if (doc.find("schema_version") == nullptr)
      doc.set("schema_version",
              config::Node::make_scalar(std::to_string(schema.schema_version), doc.location()));
  }
  return doc;
}

void bind_config(py::module_& m, const RegistryPtr& registry) {
  m.def(
      "load_config",
      [registry](const py::object& source, const std::optional<std::string>& kind,
                 const py::object& set, const py::object& config_path) -> py::object {
        const config::LoadOptions load = load_options(set, config_path);
        config::Node doc = load_document(source, kind.value_or(""), *registry, load);
        if (kind && doc.is_map()) {
          const config::Node* declared = doc.find("kind");
          if (declared != nullptr && declared->is_scalar() && declared->scalar() != *kind)
            LIGHTSIM_THROW(ConfigError, "{}: kind: this is a '{}' config; expected a '{}' config",
                           declared->location().str(), declared->scalar(), *kind);
        }
        registry->check_document(doc, load);  // every rule of the kind, presets resolved
        load.assignments.require_all_used();  // a `set` key no config read has: InputError
        for (const auto& assignment : load.assignments.texts())
          config::apply_assignment(doc, assignment);
        return to_python(doc);
      },
      "source"_a, "kind"_a = py::none(), "set"_a = py::none(), "config_path"_a = py::none(),
      R"doc(Load a config and check it against its kind's schema; return it as a dict.

source: a file path, a preset NAME of `kind` (e.g. load_config("seed", kind="accelerator")),
YAML/JSON text, or a dict. kind: the expected kind (a document without `kind:` gets it).
set: {"key.path": value} overrides, as the CLI's --set. config_path: extra preset roots.
Scalars come back as bool/int/float when they read as such, else str ("20 um").
Raises lightsim.InputError (ValueError) naming the file, line and key on any problem.)doc");

  m.def(
      "data_dir", [] { return data_dir().string(); },
      "The data folder presets and the report's chart libraries are read from: $LIGHTSIM_DATA, "
      "else the package's lightsim/data (docs/install.md). Raises InputError naming "
      "LIGHTSIM_DATA when there is none.");

  m.def(
      "config_kinds", [registry] { return registry->spec_kinds(); },
      "Every registered config kind (as `lightsim list`).");

  m.def(
      "families",
      [registry] {
        py::dict out;
        for (const auto& family : registry->families()) {
          py::dict impls;
          for (const auto& impl : *family.implementations) impls[py::str(impl.name)] = impl.help;
          out[py::str(family.name)] = impls;
        }
        return out;
      },
      "Implementation families: {family: {name: help}} (scorers, projections, studies, ...).");
}

}  // namespace lightsim::python
