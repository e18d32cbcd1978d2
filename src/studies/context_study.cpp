// The `context` study (include/lightsim/studies/context.h; docs/studies.md).
#include "lightsim/studies/context.h"

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lightsim/core/error.h"
#include "lightsim/core/progress.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/prism/scorer.h"
#include "lightsim/studies/runner.h"
#include "lightsim/studies/sampled.h"
#include "support.h"

namespace lightsim::studies {

void ContextStudySpec::describe(config::Schema<ContextStudySpec>& s) {
  s.help(
      "The context study (SPEC 1.6): Prism block retrieval at 4K-128K contexts and block sizes "
      "128 and 256 on a synthetic cache, beside the seed's table.");
  s.field("workload", &ContextStudySpec::workload,
          "synthetic KV cache (kv_synthetic); `tokens` is replaced by each context");
  s.field("accelerator", &ContextStudySpec::accelerator,
          "the Prism machine, used with its impairments as configured");
  s.field("contexts", &ContextStudySpec::contexts, "context lengths in tokens")
      .range(1024, 1 << 21)
      .min_items(1);
  s.field("block_tokens", &ContextStudySpec::block_tokens, "block sizes in tokens")
      .range(16, 65536)
      .min_items(1);
  s.field("ks", &ContextStudySpec::ks, "blocks selected per KV head per step")
      .range(1, 100000)
      .min_items(1);
  s.field("projection", &ContextStudySpec::projection, "kv_projection fitted once per head")
      .one_of({"pca", "pca_qk", "random", "first"});
  s.field("tolerance", &ContextStudySpec::tolerance, "absolute recall tolerance of a claim")
      .range(0.0, 1.0);
  s.field("traffic_tolerance", &ContextStudySpec::traffic_tolerance,
          "relative tolerance of a traffic-reduction claim")
      .range(0.0, 10.0);
}

void ContextSeedRow::describe(config::Schema<ContextSeedRow>& s) {
  s.help("One row of the seed's block-retrieval table.");
  s.field("tokens", &ContextSeedRow::tokens, "context length").min(1);
  s.field("blocks", &ContextSeedRow::blocks, "blocks as printed").min(1);
  s.field("recall8", &ContextSeedRow::recall8, "R8 (null where the seed prints none)")
      .range(0.0, 1.0);
  s.field("recall32", &ContextSeedRow::recall32, "R32 (null where none)").range(0.0, 1.0);
  s.field("traffic_reduction", &ContextSeedRow::traffic_reduction, "traffic reduction").positive();
}

void ContextSeedReference::describe(config::Schema<ContextSeedReference>& s) {
  s.help("The seed's block-retrieval table (SPEC 1.6); printed beside the context study.");
  s.field("source", &ContextSeedReference::source, "where the figures come from");
  s.field("recall_block_tokens", &ContextSeedReference::recall_block_tokens,
          "block size the recall figures were measured at")
      .min(1);
  s.field("printed_block_tokens", &ContextSeedReference::printed_block_tokens,
          "block size the printed block counts imply")
      .min(1);
  s.field("rows", &ContextSeedReference::rows, "the table").min_items(1);
}

namespace {

using Seed = ContextSeedReference;
using ContextRun = Run<ContextStudySpec, Seed>;

struct Row {
  std::int64_t tokens = 0, block = 0;
  std::size_t candidates = 0;
  kv::KMetrics prism, ideal;  // at one k
};

const Row* find(const std::vector<Row>& rows, std::int64_t tokens, std::int64_t block,
                std::int64_t k) {
  for (const Row& r : rows)
    if (r.tokens == tokens && r.block == block && static_cast<std::int64_t>(r.prism.k) == k)
      return &r;
  return nullptr;
}

// One claim per figure of the seed's table (its rows are the reference's): Recall@8 and
// Recall@32 within the spec's absolute tolerance, the traffic reduction within its relative one.
void add_claims(ContextRun& run, const std::vector<Row>& rows) {
  const ContextStudySpec& spec = run.spec;
  const std::int64_t rb = run.seed.recall_block_tokens, pb = run.seed.printed_block_tokens;
  const std::string cond = fmt::format(
      "Prism ({}), {}-token blocks (the block size the seed's recall was measured at), truth "
      "in the projected space (the ideal signature's top-k) as the seed measured",
      spec.accelerator.description, rb);
  for (const ContextSeedRow& s : run.seed.rows) {
    const std::string tag = fmt::format("{}k", s.tokens / 1024);
    for (auto [k, value] : {std::pair{8, s.recall8}, std::pair{32, s.recall32}}) {
      if (!value) continue;
      const Row* r = find(rows, s.tokens, rb, k);
      const Row* full = find(rows, s.tokens, pb, k);
      std::string why;
      if (r) {
        why = fmt::format(
            "{} candidate blocks at {} tokens per block ({} blocks at {}). Full-attention truth: "
            "R{} = {:.3f} (Prism), {:.3f} (ideal signature).",
            r->candidates, rb, full ? full->candidates : 0, pb, k, r->prism.recall.mean,
            r->ideal.recall.mean);
        if (r->candidates <= static_cast<std::size_t>(k))
          why += fmt::format(
              " Trivial: with {} candidates <= k = {} every block is selected, so recall is 1 "
              "by construction.",
              r->candidates, k);
      }
      report::Claim& c =
          run.judged(fmt::format("recall{}_{}", k, tag),
                     fmt::format("R{} at {} ({} blocks)", k, tag, s.blocks), "",
                     report::SeedValue::point(*value),
                     r ? std::optional<double>(r->prism.recall_projected.mean) : std::nullopt,
                     Comparison::absolute, spec.tolerance, cond);
      if (r) set_ours(c, sampled(r->prism.recall_projected));
      c.explanation = r ? why : "the study's config has no such point";
    }
    const std::int64_t kmin = spec.ks.front();
    const Row* r = find(rows, s.tokens, pb, kmin);
    const std::string conditions =
        fmt::format("k = {} blocks of {} tokens plus 4 sink and 512 recent tokens", kmin, pb);
    report::Claim& c =
        run.judged(fmt::format("traffic_{}", tag), fmt::format("traffic reduction at {}", tag), "x",
                   report::SeedValue::point(s.traffic_reduction),
                   r ? std::optional<double>(r->prism.traffic_reduction) : std::nullopt,
                   Comparison::relative, spec.traffic_tolerance, conditions);
    if (!r) {
      c.explanation = "context not in this run's config (see --full)";
      continue;
    }
    c.conditions = conditions;
    c.explanation = fmt::format(
        "Full K+V bytes of the context over the bytes read per step: {} selected blocks, the "
        "resident sink and recent window, and metadata ({:.0f} B; Prism keeps signatures in "
        "its rings). The seed's figures fit ~N/4, i.e. about 4 blocks fetched.",
        kmin, r->prism.metadata_bytes);
  }
}

void evaluate(ContextRun& run) {
  const ContextStudySpec& spec = run.spec;
  Context& ctx = run.ctx;
  const auto d = static_cast<std::size_t>(spec.accelerator.device.grid.channels);
  std::vector<Row> rows;
  ProgressTask progress = ctx.progress().start("context: contexts", spec.contexts.size());
  for (std::int64_t tokens : spec.contexts) {
    ctx.throw_if_cancelled("context");
    kv::KvGeneratorSpec w = spec.workload;
    w.tokens = tokens;
    ctx.log().info("context: {} tokens", tokens);
    const kv::KvCache cache =
        kv::generate_kv_cache(w, ctx, fmt::format("context {}: generate", tokens));
    // Every block size in one evaluation: the PCA and the exact attention once per context.
    std::vector<kv::BlockOptions> blocks;
    for (std::int64_t block : spec.block_tokens)
      blocks.push_back(support::retrieval_options(spec.ks, block, spec.projection, d).blocks);
    const std::vector<kv::ScorerSetup> setups{support::signature_setup("signature_ideal", d),
                                              support::prism_setup("prism", spec.accelerator, d)};
    kv::EvalOptions o =
        support::retrieval_options(spec.ks, spec.block_tokens.front(), spec.projection, d);
    o.reference = 0;
    o.progress_label = fmt::format("context {}: layer x KV head", tokens);
    const std::vector<kv::EvalReport> reps = kv::evaluate(cache, setups, o, blocks, ctx);
    for (std::size_t bi = 0; bi < blocks.size(); ++bi)
      for (std::size_t ki = 0; ki < spec.ks.size(); ++ki)
        rows.push_back({tokens, spec.block_tokens[bi], reps[bi].candidates,
                        reps[bi].scorers[1].per_k[ki], reps[bi].scorers[0].per_k[ki]});
    progress.advance();
  }
  progress.finish();

  run.table("contexts", "Retrieval per context, block size, scorer and k",
            {{"tokens", "tokens"},
             {"block_tokens", "tokens"},
             {"candidates", ""},
             {"scorer", ""},
             {"k", ""},
             {"k_effective", ""},
             {"trivial", ""},
             {"recall_full", ""},
             {"recall_full_ci", ""},
             {"recall_projected", ""},
             {"recall_projected_ci", ""},
             {"mass_recall", ""},
             {"mass_recall_ci", ""},
             {"needle_hit", ""},
             {"needle_hit_union", ""},
             {"fetched_fraction", ""},
             {"union_fetched_fraction", ""},
             {"metadata_bytes", "B"},
             {"traffic_reduction", "x"}});
  for (const Row& row : rows)
    for (const auto& [name, m] :
         {std::pair{"prism", &row.prism}, std::pair{"signature_ideal", &row.ideal}})
      run.add_row("contexts", {{"tokens", row.tokens},
                               {"block_tokens", row.block},
                               {"candidates", static_cast<std::int64_t>(row.candidates)},
                               {"scorer", std::string(name)},
                               {"k", static_cast<std::int64_t>(m->k)},
                               {"k_effective", static_cast<std::int64_t>(m->k_effective)},
                               {"trivial", row.candidates <= m->k},
                               {"recall_full", m->recall.mean},
                               {"recall_full_ci", m->recall.ci95},
                               {"recall_projected", m->recall_projected.mean},
                               {"recall_projected_ci", m->recall_projected.ci95},
                               {"mass_recall", m->mass_recall.mean},
                               {"mass_recall_ci", m->mass_recall.ci95},
                               {"needle_hit", m->needle_hit.mean},
                               {"needle_hit_union", m->needle_hit_union.mean},
                               {"fetched_fraction", m->fetched_fraction.mean},
                               {"union_fetched_fraction", m->union_fetched_fraction.mean},
                               {"metadata_bytes", m->metadata_bytes},
                               {"traffic_reduction", m->traffic_reduction}});
  add_claims(run, rows);
  for (std::int64_t k : spec.ks) {
    Chart chart =
        support::line_chart(fmt::format("datum.scorer == 'prism' && datum.k == {}", k), "tokens",
                            "context (tokens)", {"recall_full", "recall_projected"},
                            fmt::format("Recall@{}", k), "truth", "block_tokens", true);
    chart.title = fmt::format("Prism Recall@{} vs context", k);
    chart.table = "contexts";
    // The seed's Recall@k at each of its contexts (the claims recall{k}_{n}k), as markers.
    for (const ContextSeedRow& s : run.seed.rows)
      if ((k == 8 ? s.recall8 : k == 32 ? s.recall32 : std::nullopt).has_value())
        chart.seed_claims.push_back({.id = fmt::format("recall{}_{}k", k, s.tokens / 1024),
                                     .at = static_cast<double>(s.tokens)});
    run.chart(chart);
  }
}

}  // namespace

void add_context_study(Registry& registry) {
  add_study(registry,
            Definition<ContextStudySpec, Seed>{
                .name = "context",
                .help = "Prism retrieval at 4K-128K contexts, blocks of 128 and 256 (seed 4.1)",
                .title = "Prism block retrieval versus context length (seed table 4)",
                .spec_section = "SPEC 1.6",
                .reference = "references/context_seed.yaml",
                .evaluate = evaluate,
                .require_memory = [](const ContextStudySpec& s, std::uint64_t budget,
                                     std::size_t threads, const config::LoadOptions&) {
                  support::require_context_memory(s.workload, s.contexts, budget, threads);
                }});
}

}  // namespace lightsim::studies
