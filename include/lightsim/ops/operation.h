// Operations: every computation that the CLI, the Python module and sweeps expose, defined once.
//
// An operation is a typed request (a config spec, read strictly from a document that an
// adapter builds: CLI flags, Python keyword arguments or a sweep point), evaluated into a
// typed result that has one `to_json` and one text printer. The adapters (apps/lightsim,
// python/, the sweep's `operation` targets) only build the request document, call `run` and
// print or return the outcome, so they give the same answer by construction.
//
//   struct CostRequest {                               // a spec: fields, help, ranges
//     static constexpr std::string_view kind = "prism_cost_request";
//     std::string config;
//     static void describe(config::Schema<CostRequest>& s);
//   };
//   ops::add<CostRequest, CostResult>(registry, {
//       .info = {.name = "prism_cost", .command = {"prism", "cost"}, .help = "...",
//                .positional = {"config"}},
//       .evaluate = [](const CostRequest& r, ops::Env& env) { ... },
//       .to_json = ..., .print = ...});
//
// `--set` assignments (Env::load.assignments) address the configs an operation loads (its
// primary document, e.g. the accelerator of prism_cost), never the request itself: request
// fields are the operation's own options, set by flags or keyword arguments.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/context.h"
#include "lightsim/core/json.h"
#include "lightsim/core/registry.h"

namespace lightsim::ops {

// Thrown by Env::inputs_read when Env::check_only is set: the request and every config the
// operation reads are valid, and nothing was computed. Not an Error: only `check` catches it.
struct InputsChecked {};

// What an operation receives besides its request; built by the adapter.
struct Env {
  const Registry& registry;
  config::LoadOptions load{};  // preset roots, and the --set assignments of loaded configs
  Context& ctx;                // seed, threads, logger, progress, cancellation
  std::filesystem::path out;   // output folder; an operation that writes there calls
                               // prepare_output_dir(out) itself, after its input checks;
                               // empty: write no files (a sweep point keeps only the JSON)

  // Set by `check`: stop at inputs_read, before anything is computed or written.
  bool check_only = false;

  // Called by an operation once it has read every config it needs, before it computes or
  // writes anything: a --set KEY that no config took is a UsageError (exit 2) here. run()
  // calls it again after evaluate, so no assignment is ever ignored. With check_only it
  // throws InputsChecked instead of returning.
  void inputs_read() const {
    load.assignments.require_all_used();
    if (check_only) throw InputsChecked{};
  }
};

// The result of one run: its JSON (the contract of `--json`, Python and sweep stores) and
// its text rendering for a terminal.
struct Outcome {
  Json json{};
  std::function<void(std::ostream&)> print;
};

// A flag that sets one key of a map field of the request: `--nlist 64` is
// scorer_options.nlist = 64 (field "scorer_options", key "nlist"). Derived from the registry
// (e.g. the fields of every scorer's options spec), so an adapter can offer each as a flag.
struct KeyFlag {
  std::string field{}, key{}, help{};
};

struct Info {
  std::string name{};                     // registry, Python and sweep-target name: "prism_cost"
  std::vector<std::string> command{};     // CLI path: {"prism", "cost"}
  std::string help{};                     // one line
  std::vector<std::string> positional{};  // request fields given positionally on the CLI
  std::uint64_t default_seed = 1;         // seed when the caller gives none
  double progress_interval_s = 5.0;       // plain progress line period (non-terminal stderr)
  // Keys of map fields offered as flags of their own (empty for most operations).
  std::function<std::vector<KeyFlag>(const Registry&)> key_flags{};
};

class Operation {
 public:
  virtual ~Operation() = default;
  virtual const Info& info() const = 0;
  // The request's fields (names, types, units, defaults, ranges, help): adapters derive
  // flags and keyword arguments from it.
  virtual const config::SchemaInfo& request_schema() const = 0;
  // Reads `request` (a mapping of request fields, or null for every default) strictly, then
  // evaluates it. Throws InputError subclasses for a bad request or a bad loaded config,
  // Interrupted when env.ctx is cancelled.
  virtual Outcome run(const config::Node& request, Env& env) const = 0;
};

using OperationPtr = std::shared_ptr<const Operation>;
using OperationFamily = Family<OperationPtr>;
inline constexpr std::string_view kOperationFamily = "operation";

// The family in `registry` (created empty when absent).
OperationFamily& operation_family(Registry& registry);
// Every registered operation, in registration order (empty when none is registered).
std::vector<const Operation*> operations(const Registry& registry);
// The operation named `name`; an unknown name is a ConfigError with a suggestion.
const Operation& find_operation(const Registry& registry, std::string_view name);

// True when `kind` is registered (several operations may share one request kind).
bool has_spec_kind(const Registry& registry, std::string_view kind);

// Reads a request document strictly (unknown keys, types, units and ranges checked; errors
// name the key, located where the adapter put it, e.g. "--drift-duration").
template <config::Spec R>
R read_request(const config::Node& request, const config::LoadOptions& load) {
  config::Reader reader(load.roots_only());
  R out{};
  reader.read_spec(out, request);
  return out;
}

template <config::Spec Request, class Result>
struct Definition {
  Info info{};
  std::function<Result(const Request&, Env&)> evaluate;
  std::function<Json(const Result&)> to_json;
  std::function<void(const Result&, std::ostream&)> print;
};

template <config::Spec Request, class Result>
class TypedOperation final : public Operation {
 public:
  explicit TypedOperation(Definition<Request, Result> d) : d_(std::move(d)) {}
  const Info& info() const override { return d_.info; }
  const config::SchemaInfo& request_schema() const override {
    return config::schema_of<Request>().info();
  }
  Outcome run(const config::Node& request, Env& env) const override {
    const Request r = read_request<Request>(request, env.load);
    auto result = std::make_shared<const Result>(d_.evaluate(r, env));
    env.inputs_read();
    Outcome o;
    o.json = d_.to_json(*result);
    o.print = [result, print = d_.print](std::ostream& out) { print(*result, out); };
    return o;
  }

 private:
  Definition<Request, Result> d_;
};

// Registers an operation and its request kind (so `config explain KIND` and the reference
// describe its fields).
template <config::Spec Request, class Result>
void add(Registry& registry, Definition<Request, Result> d) {
  if (!has_spec_kind(registry, Request::kind)) registry.add_spec<Request>();  // shared kinds
  const std::string name = d.info.name, help = d.info.help;
  operation_family(registry).add(
      name, help, std::make_shared<const TypedOperation<Request, Result>>(std::move(d)));
}

// Validates `request` and every config the operation reads (with env.load's --set) without
// computing anything: returns normally when all is valid, throws the InputError otherwise.
// An operation that calls env.inputs_read() only at the end is evaluated in full here.
void check(const Operation& op, const config::Node& request, Env env);

// The values an adapter gives for one request field, as text: one value for a scalar field,
// any number for a list field ("true"/"false" for a boolean), "KEY=VALUE" entries for a map
// field. `name` may also be "FIELD.KEY" for one key of a map field (its one value). `where`
// locates errors (a flag "--gpus", a sweep point "sweep.yaml: point 3").
struct FieldValues {
  std::string name{};
  std::string where{};
  std::vector<std::string> values{};
};

// The request document of `schema` for these values (a field given no value is left out, so
// it takes its default). A name the schema lacks is a UsageError naming `where` with a
// suggestion; a scalar field given several values takes the last.
config::Node request_document(const config::SchemaInfo& schema,
                              const std::vector<FieldValues>& fields, std::string_view origin);

// True when `field` of `schema` is a list ("list of ...") or a map ("map of name to ...").
bool is_list_field(const config::FieldInfo& field);
bool is_map_field(const config::FieldInfo& field);
// True when `name` is a field of `schema`, or "FIELD.KEY" with FIELD a map field.
bool addresses_request(const config::SchemaInfo& schema, std::string_view name);
// The field of `schema` named `name`, or null.
const config::FieldInfo* find_field(const config::SchemaInfo& schema, std::string_view name);

// One line describing a command group ("prism", "photonics", ...) for CLI help; "" if unknown.
std::string_view group_help(std::string_view group);

// Runs `name` on `request` and returns its JSON text (dump_json): what `lightsim ... --json`
// prints, what Python's lightsim.run_json returns and what a sweep stores.
std::string run_json(const Registry& registry, std::string_view name, const config::Node& request,
                     Env& env);

}  // namespace lightsim::ops
