// Strict config reading, part 1: options, field descriptions and the Reader that walks a
// document (key path, error messages, presets). Include "lightsim/core/config.h".
#pragma once

#include <concepts>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lightsim/core/config_assignments.h"
#include "lightsim/core/config_node.h"
#include "lightsim/core/config_ref.h"
#include "lightsim/core/error.h"
#include "lightsim/core/units.h"

namespace lightsim::config {

class PresetCache;  // preset_cache.h

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
  // A Ref<S> (or a list or optional of them): returns the schema of S (a function, so that a
  // spec may refer to its own kind). nullptr for any other field.
  const SchemaInfo* (*referenced)() = nullptr;
  std::string reference_dir;  // where a Ref's names are looked up ("decode")
  bool listed = false;        // a list (of values, specs or refs)
  bool keyed = false;         // a map of name to value or spec
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
  // "key.path=value" assignments (--set); each is applied to the one document its path
  // addresses, before that document is read (config_assignments.h).
  Assignments assignments;
  // The key path at which the top-level document read with these options is addressed by
  // assignments: "" for a command's top document, "scenario" for the document a `scenario`
  // Ref names (set by the reader), "fabric" for one read through scoped("fabric").
  std::string scope;
  // Parsed documents of the configs under the roots, read from memory instead of disk
  // (preset_cache.h; the fuzz targets install one); nullptr: every document from disk.
  // Results are identical either way.
  std::shared_ptr<const PresetCache> preset_cache;

  // These options without assignments: for presets, references and the files a config names
  // by path that --set never reaches (published figures, a model's config.json).
  LoadOptions roots_only() const {
    LoadOptions o;
    o.config_roots = config_roots;
    o.preset_cache = preset_cache;
    return o;
  }

  // These options for a document read beside the top one and addressed as `key`.KEY.PATH.
  LoadOptions scoped(std::string_view key) const {
    LoadOptions o = *this;
    o.scope = scope.empty() ? std::string(key) : scope + "." + std::string(key);
    return o;
  }
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
  // Reads a top-level document (schema_version, kind) of kind S: applies the assignments
  // addressed to it (options().scope), checks the header, reads the spec.
  template <Spec S>
  void read_document(S& out, const Node& document);
  // Resolves a reference written at `at` (a name, a path or an inline mapping) and reads
  // the spec it names; `dir` is the folder of names under each config root.
  template <Spec S>
  void read_ref(Ref<S>& out, const Node& at, std::string_view dir);
  // The same for a name given as a default (nothing written): located at the owning mapping.
  template <Spec S>
  void read_ref_name(Ref<S>& out, const std::string& name, const Location& at,
                     std::string_view dir);

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
  // The scope at which the document the current key path points into is addressed.
  std::string ref_scope() const;
  // Resolves a reference name to its file (ConfigNotFound at `at` when nothing has it) and
  // checks it is not one of the references being read (a cycle).
  std::filesystem::path ref_file(const std::string& name, const Location& at, std::string_view dir,
                                 std::string_view kind);

  LoadOptions options_;
  std::vector<std::string> path_;
  std::vector<std::string> preset_chain_;
  std::vector<std::string> ref_chain_;  // files of the references being read, outermost first
};

// ---- scalar readers (non-template, in config_read.cpp) ---------------------------------
double read_number(const Node& n, const Reader& r);
std::int64_t read_integer(const Node& n, const Reader& r);
bool read_bool(const Node& n, const Reader& r);
std::string read_string(const Node& n, const Reader& r);
ParsedQuantity read_quantity(const Node& n, const Reader& r, Dim expected);
// Closest candidate by edit distance, or "" when none is close enough to suggest.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);
// The tail of an "unknown name" message: " (did you mean 'x'?)" when a candidate is close,
// else " (<label>: a, b, c)", or "" when there are no candidates.
std::string suggest(std::string_view word, const std::vector<std::string>& candidates,
                    std::string_view label = "known");
// A key of mapping `map` that looks like a misspelling of `wanted` (closest_match: "kindx" for
// "kind"), or "" when none does; for "missing 'kind'" errors that can name the culprit.
std::string misspelled_key(const Node& map, std::string_view wanted);
// Checks schema_version and kind of a top-level document and returns it without them.
Node strip_header(const Node& document, std::string_view kind, int schema_version);
std::string format_number(double v);

}  // namespace lightsim::config
