// Named studies: one per seed table or figure (or one of ours), computed from first principles
// and written as a report::StudyResult (docs/results.md, docs/studies.md).
//
// A study is a function registered in the "study" family (studies::register_all and each
// module that contributes one). It reads its own spec kind (`<name>_study`) from its config
// document, configs/studies/<name>.yaml by default, and returns the result; it never writes
// files itself (run_study's caller does, atomically). The studies of this module are
// declarations (definition.h) turned into such functions by the one runner (runner.h).
//
// Problem size. A study config may hold a `sizes:` map with `quick:` and `full:` overlays
// (key paths of the same document); run_study merges the overlay of the requested size onto
// the document before the study reads it, so a study reads one spec and has no size logic:
//
//   kind: context_study
//   contexts: [4096, 8192, 16384, 32768]
//   trials: 64
//   sizes:
//     quick: {contexts: [4096], trials: 4}     # smoke tests (seconds)
//     full:  {contexts: [4096, ..., 131072], trials: 512}
//
// `default` is the document as written (the demo: minutes on 2 cores in all).
//
// Cost. A study config may hold a `cost:` map of sizes to measured wall times,
//   cost: {quick: 1.1 s, default: 12.6 s}
// which `lightsim reproduce` weights its ETA by (docs/studies.md, "Cost"); with_size removes
// it, so a study never reads it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/context.h"
#include "lightsim/core/registry.h"
#include "lightsim/report/result.h"

namespace lightsim::studies {

enum class Size { quick, standard, full };

// "quick", "default", "full".
std::string_view to_string(Size size);
// Inverse of to_string; anything else is a UsageError listing the valid names.
Size parse_size(std::string_view name);

// What a study function receives.
struct StudyInput {
  std::string name;                   // the study's registered name
  config::Node document;              // its config, the size overlay merged, `sizes` removed
  std::filesystem::path config_file;  // where the document came from (for messages)
  config::LoadOptions load;           // preset roots and --set assignments (applied by read_spec)
  Size size = Size::standard;
};

// Computes a study. Throws InputError subclasses for a bad config (through read_spec),
// Interrupted when ctx.cancelled() (poll it between work items of long loops). Draws random
// numbers only from ctx.stream(...) and loops only through parallel_for/parallel_reduce, so
// the result is identical for any thread count.
//
// A study may also declare its memory check: it refuses (InputError naming the config file
// and key, exit 2) an input whose largest arrays and the per-head work buffers of its
// `threads` worker threads (ctx.threads()), estimated from the spec alone, exceed
// `budget_bytes` (ctx.memory_budget(): core/memory_budget.h). check_study_memory runs it
// before a command prepares --out; the runner runs it again before the study computes.
using StudyMemoryCheck =
    std::function<void(const StudyInput&, std::uint64_t budget_bytes, std::size_t threads)>;
struct StudyFunction {
  StudyFunction() = default;
  template <class F>
  requires std::is_invocable_r_v<report::StudyResult, F&, const StudyInput&, Context&>
  StudyFunction(F f, StudyMemoryCheck memory = {})  // NOLINT: a plain function is a study
      : run(std::move(f)), check_memory(std::move(memory)) {}
  report::StudyResult operator()(const StudyInput& in, Context& ctx) const { return run(in, ctx); }

  std::function<report::StudyResult(const StudyInput&, Context&)> run;
  StudyMemoryCheck check_memory;  // empty: the study's memory does not grow with its config
};
using StudyFamily = Family<StudyFunction>;
inline constexpr std::string_view kStudyFamily = "study";
inline constexpr std::string_view kStudyFamilyHelp =
    "named studies (`lightsim study run NAME`, `lightsim reproduce`)";

// The family in `registry` (created empty when absent).
StudyFamily& study_family(Registry& registry);
// Names of the registered studies, in registration order.
std::vector<std::string> study_names(const Registry& registry);

// <root>/studies/<name>.yaml for the first config root that has it (config::find_named);
// ConfigNotFound naming the folders searched when none does.
std::filesystem::path default_config(std::string_view name, const config::LoadOptions& load);

// `document` with its `sizes.<size>` overlay merged and `sizes` and `cost` removed. A `sizes`
// key other than quick/full, or an overlay that is not a mapping, is a ConfigError naming it;
// so is a bad `cost` (declared_cost_s).
config::Node with_size(config::Node document, Size size);

// The wall time in seconds the study's `cost:` map declares for `size`, else for the default
// size (a size without its own figure is weighted as at default), else nullopt. A key other
// than quick/default/full, or a value that is not a positive time, is a ConfigError naming it.
std::optional<double> declared_cost_s(const config::Node& document, Size size);

// Registers a study's spec kind so that `lightsim config check` reads the document at every
// size (default, quick and full), as run_study would.
template <class S>
void add_study_spec(Registry& registry) {
  registry.add_spec<S>([](const config::Node& document, const config::LoadOptions& load) {
    for (Size size : {Size::standard, Size::quick, Size::full})
      (void)config::read_spec<S>(with_size(document, size), load);
  });
}

// The input for a study: loads `config_file` and merges its `sizes.<size>` overlay. A `sizes`
// key other than quick/full, or an overlay that is not a mapping, is a ConfigError naming it.
StudyInput make_input(std::string name, const std::filesystem::path& config_file,
                      const config::LoadOptions& load, Size size);

// make_input + the study's memory check (StudyMemoryCheck; nothing for a study without one)
// against `budget_bytes` with `threads` worker threads (the run's Context::threads()). An
// unknown name is a ConfigError with a suggestion.
void check_study_memory(const Registry& registry, std::string_view name,
                        const std::filesystem::path& config_file, const config::LoadOptions& load,
                        Size size, std::uint64_t budget_bytes, std::size_t threads);

// make_input + the registered function, and the result's shadowed_presets (recorded_shadows).
// An unknown name is a ConfigError with a suggestion.
report::StudyResult run_study(const Registry& registry, std::string_view name,
                              const std::filesystem::path& config_file,
                              const config::LoadOptions& load, Size size, Context& ctx);

// The presets load's config roots shadow (config::shadowed_presets) as a result records them
// (report::StudyResult::shadowed_presets; `reproduce --resume` compares them).
std::vector<report::ShadowedPreset> recorded_shadows(const config::LoadOptions& load);

}  // namespace lightsim::studies
