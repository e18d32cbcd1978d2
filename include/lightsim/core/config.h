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
// A field of type Ref<S> names another config of kind S; the reader resolves and reads it
// with the owning spec (config_ref.h). `--set` assignments are applied, before a document is
// read, to the one document their key path addresses (config_assignments.h).
// Every failure throws ConfigError (or UnitError) whose message starts with
// "file:line:column: key.path:"; a name that no config has is a ConfigNotFound.
#pragma once

#include <filesystem>

#include "lightsim/core/config_files.h"
#include "lightsim/core/config_node.h"
#include "lightsim/core/config_reader.h"
#include "lightsim/core/config_schema.h"
#include "lightsim/core/config_value.h"
#include "lightsim/core/preset_cache.h"

namespace lightsim::config {

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

template <Spec S>
void Reader::read_document(S& out, const Node& document) {
  int version = 1;
  if constexpr (requires { S::schema_version; }) version = S::schema_version;
  Node doc = document;
  options_.assignments.apply(doc, schema_of<S>().info(), options_.scope);
  read_spec(out, strip_header(doc, S::kind, version));
}

template <Spec S>
void Reader::read_ref(Ref<S>& out, const Node& at, std::string_view dir) {
  if (at.is_map()) {  // an inline spec: read here, addressed at this key path
    LoadOptions inner = options_;
    inner.scope = ref_scope();
    Reader reader(std::move(inner));
    reader.ref_chain_ = ref_chain_;
    Node doc = at;
    reader.options_.assignments.apply(doc, schema_of<S>().info(), reader.options_.scope);
    S spec{};
    reader.read_spec(spec, doc);
    out.bind("", at.location().source, std::move(spec));
    return;
  }
  if (at.is_null())
    fail(at, fmt::format("has no value (expected the name or file of a {} config)", S::kind));
  read_ref_name(out, read_string(at, *this), at.location(), dir);
}

template <Spec S>
void Reader::read_ref_name(Ref<S>& out, const std::string& name, const Location& at,
                           std::string_view dir) {
  const std::filesystem::path file = ref_file(name, at, dir, S::kind);
  LoadOptions inner = options_;
  inner.scope = ref_scope();
  Reader reader(std::move(inner));
  reader.ref_chain_ = ref_chain_;
  reader.ref_chain_.push_back(std::filesystem::weakly_canonical(file).string());
  S spec{};
  try {
    reader.read_document(spec, load_document(file, options_));
  } catch (const ConfigNotFound& e) {
    const std::string key = path();
    LIGHTSIM_THROW(ConfigNotFound, "{}: {}: in {} '{}': {}", at.str(), key, S::kind, name,
                   e.what());
  } catch (const ConfigError& e) {
    // The referenced file's own location follows the place that names it.
    const std::string key = path();
    LIGHTSIM_THROW(ConfigError, "{}: {}: in {} '{}': {}", at.str(), key, S::kind, name, e.what());
  } catch (const UnitError& e) {
    const std::string key = path();
    LIGHTSIM_THROW(UnitError, "{}: {}: in {} '{}': {}", at.str(), key, S::kind, name, e.what());
  }
  out.bind(name, file, std::move(spec));
}

// Reads a spec from an already parsed top-level document (with schema_version and kind),
// resolving its references; the assignments addressed to it are applied first.
template <Spec S>
S read_spec(const Node& document, const LoadOptions& options = {}) {
  Reader reader(options);
  S out{};
  reader.read_document(out, document);
  return out;
}

// Resolves and reads the spec a reference built in code names (as the reader would for a
// reference written at `where`).
template <Spec S>
void resolve(Ref<S>& ref, const LoadOptions& options, const Location& where = {"<code>", 0, 0}) {
  Reader reader(options);
  std::string dir;
  if constexpr (requires { S::preset_dir; }) dir = std::string(S::preset_dir);
  reader.read_ref_name(ref, ref.name(), where, dir);
}

// Loads a top-level config file of kind S::kind. Throws InputError/ConfigError/UnitError.
template <Spec S>
S load_spec(const std::filesystem::path& file, const LoadOptions& options = {}) {
  return read_spec<S>(load_document(file, options), options);
}

}  // namespace lightsim::config
