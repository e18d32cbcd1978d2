// The one study runner (docs/studies.md, "Writing a study"). It owns, for every study:
//   * the header: study, title, spec_section, seed (ctx.seed()), config (the document's YAML);
//   * the spec, read from the study's document with the --set assignments applied;
//   * the references, read from <root>/references/... of the config roots only: --set
//     assignments address the study's own config and never reach a reference or a preset;
//   * the parallel map over a grid (deterministic: results in grid order, identical for any
//     thread count);
//   * the claims, judged in one place (judge.h) from the declared rules;
//   * tables filled by column name (report::StudyResult::add_row) and charts from declarations
//     (chart.h).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/context.h"
#include "lightsim/core/error.h"
#include "lightsim/core/progress.h"
#include "lightsim/report/result.h"
#include "lightsim/studies/chart.h"
#include "lightsim/studies/definition.h"
#include "lightsim/studies/judge.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

// The reference "DIR/NAME.yaml" (e.g. references/prism_seed.yaml) of the first config root
// holding DIR/NAME (config::find_named); ConfigNotFound naming the folders searched.
std::filesystem::path reference_file(std::string_view relative, const config::LoadOptions& load);

// A reference document of kind R read with the config roots only (never the assignments).
template <config::Spec R>
R load_reference(std::string_view relative, const config::LoadOptions& load) {
  const config::LoadOptions roots = load.roots_only();
  return config::load_spec<R>(reference_file(relative, roots), roots);
}

// What evaluate sees of a run, whatever the study's spec and reference kinds.
class RunBase {
 public:
  RunBase(const StudyInput& in, Context& run_ctx, report::StudyResult& result)
      : ctx(run_ctx),
        presets(in.load.roots_only()),
        config_file(in.config_file),
        size(in.size),
        result_(&result) {}

  Context& ctx;
  const config::LoadOptions presets;  // config roots only: for presets the study loads
  const std::filesystem::path config_file;
  const Size size;

  // A further reference of the study (e.g. measurements beside the seed's figures).
  template <config::Spec R>
  R reference(std::string_view relative) const {
    return load_reference<R>(relative, presets);
  }

  // Tables (rows are filled by column name: add_row), module-built tables and charts.
  void table(std::string name, std::string title, std::vector<Column> columns);
  void add_built_table(std::string name, std::string title, Table table);
  void add_row(std::string_view table, std::initializer_list<report::NamedCell> cells);
  void chart(const Chart& chart);

  // A claim judged against the seed: the comparison of ours (a point, or the range
  // [ours_lo, ours_hi]) with `seed` (judge.h). With `conditions`, a claim that holds holds
  // under them. The reference is valid until the next claim.
  report::Claim& judged(std::string id, std::string text, std::string unit, report::SeedValue seed,
                        std::optional<double> ours, Comparison comparison, double tolerance,
                        const std::string& conditions = {});
  report::Claim& judged_range(std::string id, std::string text, std::string unit,
                              report::SeedValue seed, double ours_lo, double ours_hi,
                              Comparison comparison, double tolerance);
  // A qualitative claim (no figure), its verdict given by the study.
  report::Claim& qualitative(std::string id, std::string text, std::string unit = {});

  // f(item) for every item of `grid`, in parallel (one work item each); results in grid
  // order. f must draw random numbers only from ctx.stream(...) keyed by the item, so the
  // results are identical for any thread count. Cancellation is polled before each item, and
  // the progress (labelled with the study's name) advances after each.
  template <class T, class F>
  auto map(const std::vector<T>& grid, F&& f) {
    using R = std::decay_t<std::invoke_result_t<F&, const T&>>;
    std::vector<std::optional<R>> slots(grid.size());
    ProgressTask progress = ctx.progress().start(result_->study, grid.size());
    parallel_for(
        ctx, grid.size(),
        [&](std::size_t i) {
          ctx.throw_if_cancelled(result_->study + " study");
          slots[i].emplace(f(grid[i]));
          progress.advance();
        },
        1);
    progress.finish();
    std::vector<R> out;
    out.reserve(slots.size());
    for (auto& s : slots) out.push_back(std::move(*s));
    return out;
  }

 private:
  report::StudyResult* result_;
};

template <class Spec, class Reference>
class Run : public RunBase {
 public:
  Run(const StudyInput& in, Context& run_ctx, report::StudyResult& result,
      const Definition<Spec, Reference>& definition, const Spec& run_spec,
      const Reference& run_seed)
      : RunBase(in, run_ctx, result), spec(run_spec), seed(run_seed), definition_(&definition) {}

  const Spec& spec;
  const Reference& seed;

  // The declared claim `id` with our figure: its words, the seed's figure and the tolerance
  // from the rule (InternalError for an undeclared id).
  report::Claim& claim(std::string_view id, std::optional<double> ours,
                       const std::string& conditions = {}) {
    for (const auto& rule : definition_->claims)
      if (rule.id == id)
        return judged(rule.id, rule.text(seed), rule.unit, rule.seed(seed), ours, rule.comparison,
                      rule.tolerance ? spec.*rule.tolerance : 0.0, conditions);
    LIGHTSIM_THROW(InternalError, "study '{}': no claim rule '{}'", definition_->name, id);
  }

 private:
  const Definition<Spec, Reference>* definition_;
};

namespace detail {
// The header of a study's result (study, title, spec_section, seed, config).
report::StudyResult header(const StudyInput& in, Context& ctx, std::string title,
                           std::string spec_section);

// The definition's memory check of `spec` (Definition::require_memory), its InputError
// prefixed with the study's config file.
template <class Spec, class Reference>
void require_memory(const Definition<Spec, Reference>& d, const StudyInput& in, const Spec& spec,
                    std::uint64_t budget_bytes, std::size_t threads) {
  if (!d.require_memory) return;
  try {
    d.require_memory(spec, budget_bytes, threads, in.load);
  } catch (const InputError& e) {
    LIGHTSIM_THROW(ConfigError, "{}: {}", in.config_file.string(), e.what());
  }
}
}  // namespace detail

// Runs a definition on a study input: the whole contract of the file comment.
template <class Spec, class Reference>
report::StudyResult run_definition(const Definition<Spec, Reference>& d, const StudyInput& in,
                                   Context& ctx) {
  const auto spec = config::read_spec<Spec>(in.document, in.load);
  detail::require_memory(d, in, spec, ctx.memory_budget(), ctx.threads());
  Reference seed{};
  if constexpr (!std::is_same_v<Reference, NoReference>)
    seed =
        load_reference<Reference>(d.reference_key ? spec.*d.reference_key : d.reference, in.load);
  report::StudyResult result = detail::header(in, ctx, d.title.of(spec, seed), d.spec_section);
  Run<Spec, Reference> run(in, ctx, result, d, spec, seed);
  d.evaluate(run);
  return result;
}

// Registers the study's spec kind (read at every size by `config check`) and the study.
template <class Spec, class Reference>
void add_study(Registry& registry, Definition<Spec, Reference> d) {
  add_study_spec<Spec>(registry);
  std::string name = d.name, help = d.help;
  StudyMemoryCheck memory;
  if (d.require_memory)
    memory = [d](const StudyInput& in, std::uint64_t budget_bytes, std::size_t threads) {
      detail::require_memory(d, in, config::read_spec<Spec>(in.document, in.load), budget_bytes,
                             threads);
    };
  study_family(registry).add(
      std::move(name), std::move(help),
      StudyFunction([d = std::move(d)](const StudyInput& in,
                                       Context& ctx) { return run_definition(d, in, ctx); },
                    std::move(memory)));
}

}  // namespace lightsim::studies
