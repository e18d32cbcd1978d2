// Retrieval evaluation of many scorer setups (include/lightsim/studies/retrieval.h).
// Metric definitions: docs/metrics.md (the same as kv::evaluate's).
#include "lightsim/studies/retrieval.h"

#include <algorithm>
#include <memory>

#include "lightsim/core/error.h"
#include "lightsim/core/npy.h"
#include "lightsim/core/rng.h"
#include "lightsim/kv/attention.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/projection.h"
#include "lightsim/prism/scorer.h"

namespace lightsim::studies {
namespace {

using Indices = std::vector<std::size_t>;

struct Samples {
  std::vector<double> recall, recall_projected, mass_recall, fetched;
  std::vector<std::vector<double>> needle;  // [needle]
  double selected_bytes = 0, metadata = 0;
};

struct HeadResult {
  std::vector<std::vector<Samples>> samples;                // [setup][k]
  std::vector<std::vector<std::vector<Indices>>> selected;  // [setup][k][step]
};

// The shared projection of every head, [layers, kv_heads, d, D] (the "learned" layout).
NpyArray fit_shared(const kv::KvCache& cache, const RetrievalOptions& o, Context& ctx) {
  LIGHTSIM_CHECK(o.projections != nullptr, "evaluate_retrieval: the projection family is needed");
  NpyArray a = fit_head_projections(cache, o.projections->get(o.shared_projection), o.dim, ctx);
  a.source = "shared " + o.shared_projection + " projection";
  return a;
}

// One head at one layout; mass[step] is the exact attention's block mass at that layout
// (kv::group_block_mass).
HeadResult evaluate_head(const kv::KvCache& cache, std::size_t layer, std::size_t kv_head,
                         const std::vector<RetrievalSetup>& setups, const RetrievalOptions& o,
                         const kv::BlockLayout& layout,
                         const std::vector<std::vector<double>>& mass_by_step,
                         const NpyArray* shared, std::uint64_t seed) {
  const kv::HeadView head = cache.head(layer, kv_head);
  const std::size_t nk = o.ks.size(), ns = setups.size();
  const std::size_t kmax = *std::max_element(o.ks.begin(), o.ks.end());
  const double kv_token_bytes = 2.0 * static_cast<double>(head.head_dim) * o.kv_bytes;
  const std::size_t needles = cache.needles.size();
  HeadResult r;
  r.samples.assign(ns, std::vector<Samples>(nk));
  r.selected.assign(ns, std::vector<std::vector<Indices>>(nk, std::vector<Indices>(head.steps)));
  std::vector<std::unique_ptr<kv::Scorer>> scorers;
  for (std::size_t i = 0; i < ns; ++i) {
    kv::ScorerOptions options = setups[i].options;
    if (shared != nullptr) {
      options.projection = "learned";
      options.learned = shared;
      options.projections = o.projections;
      options.dim = o.dim;
    }
    scorers.push_back(setups[i].factory(options));
    scorers.back()->prepare(head, layout, kv::HeadIndex{layer, kv_head, seed});
    for (auto& s : r.samples[i]) {
      s.metadata = scorers.back()->metadata_bytes();
      s.needle.resize(needles);
    }
  }
  std::vector<float> scores(layout.blocks()), mass_f(layout.blocks());
  std::vector<char> mask(layout.blocks());
  std::vector<Indices> order(ns);
  for (std::size_t step = 0; step < head.steps; ++step) {
    const std::vector<double>& mass = mass_by_step[step];
    for (std::size_t b = 0; b < mass.size(); ++b) mass_f[b] = static_cast<float>(mass[b]);
    const Indices oracle = kv::top_k_blocks(mass_f, layout, kmax);
    for (std::size_t i = 0; i < ns; ++i) {
      scorers[i]->score(step, scores);
      order[i] = kv::top_k_blocks(scores, layout, kmax);
    }
    for (std::size_t i = 0; i < ns; ++i)
      for (std::size_t ki = 0; ki < nk; ++ki) {
        const std::size_t k = std::min(o.ks[ki], order[i].size());
        if (k == 0) continue;
        Samples& s = r.samples[i][ki];
        const std::span<const std::size_t> sel(order[i].data(), k);
        std::fill(mask.begin(), mask.end(), 0);
        double sel_mass = 0, oracle_mass = 0, fetched = 0;
        for (std::size_t j = 0; j < k; ++j) {
          mask[sel[j]] = 1;
          sel_mass += mass[sel[j]];
          oracle_mass += mass[oracle[j]];
          fetched += static_cast<double>(layout.fetch_tokens(sel[j]));
        }
        s.recall.push_back(overlap_fraction(sel, {oracle.data(), k}));
        if (o.reference)
          s.recall_projected.push_back(overlap_fraction(sel, {order[*o.reference].data(), k}));
        s.mass_recall.push_back(oracle_mass > 0 ? sel_mass / oracle_mass : 1.0);
        s.fetched.push_back((static_cast<double>(layout.resident_tokens()) + fetched) /
                            static_cast<double>(head.tokens));
        s.selected_bytes += fetched * kv_token_bytes;
        for (std::size_t n = 0; n < needles; ++n)
          s.needle[n].push_back(kv::needle_hit(cache.needles[n], layout, mask) ? 1.0 : 0.0);
        r.selected[i][ki][step].assign(sel.begin(), sel.end());
      }
  }
  return r;
}

void append(std::vector<double>& to, const std::vector<double>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// The metrics of every setup at every k from the per-head results at one layout.
RetrievalReport summarize(const kv::KvCache& cache, const std::vector<RetrievalSetup>& setups,
                          const RetrievalOptions& o, const kv::BlockLayout& layout,
                          const std::vector<HeadResult>& results) {
  const kv::KvGeometry& g = cache.geometry();
  const std::size_t heads = g.layers * g.kv_heads, nk = o.ks.size();
  RetrievalReport report;
  report.tokens = g.tokens;
  report.blocks = layout.blocks();
  report.candidates = layout.candidates().size();
  report.heads = heads;
  report.steps = g.steps;
  report.needles = cache.needles.size();
  const double kv_token_bytes = 2.0 * static_cast<double>(g.head_dim) * o.kv_bytes;
  const std::size_t needles = cache.needles.size();
  std::vector<char> mask;
  std::vector<std::span<const std::size_t>> selections(g.kv_heads);
  for (std::size_t i = 0; i < setups.size(); ++i) {
    std::vector<RetrievalMetrics> per_k;
    for (std::size_t ki = 0; ki < nk; ++ki) {
      RetrievalMetrics m;
      m.k = o.ks[ki];
      m.k_effective = std::min(m.k, report.candidates);
      Samples all;
      std::vector<std::vector<double>> by_head(g.kv_heads), by_needle(needles),
          union_by_needle(needles);
      std::vector<double> needle_all, union_hit, union_fetched;
      for (std::size_t h = 0; h < heads; ++h) {
        const Samples& s = results[h].samples[i][ki];
        append(all.recall, s.recall);
        append(all.recall_projected, s.recall_projected);
        append(all.mass_recall, s.mass_recall);
        append(all.fetched, s.fetched);
        for (std::size_t n = 0; n < needles; ++n) {
          append(needle_all, s.needle[n]);
          append(by_head[h % g.kv_heads], s.needle[n]);
          append(by_needle[n], s.needle[n]);
        }
        m.metadata_bytes += s.metadata / static_cast<double>(heads);
        m.selected_bytes +=
            s.selected_bytes / static_cast<double>(g.steps) / static_cast<double>(heads);
      }
      // Union over the KV heads of each layer (kv::union_of_heads, as kv::evaluate).
      for (std::size_t layer = 0; layer < g.layers; ++layer)
        for (std::size_t step = 0; step < g.steps; ++step) {
          for (std::size_t h = 0; h < g.kv_heads; ++h)
            selections[h] = results[layer * g.kv_heads + h].selected[i][ki][step];
          union_fetched.push_back(kv::union_of_heads(layout, selections, mask));
          for (std::size_t n = 0; n < needles; ++n) {
            const double hit = kv::needle_hit(cache.needles[n], layout, mask) ? 1.0 : 0.0;
            union_hit.push_back(hit);
            union_by_needle[n].push_back(hit);
          }
        }
      m.recall = kv::estimate(all.recall);
      m.recall_projected = kv::estimate(all.recall_projected);
      m.mass_recall = kv::estimate(all.mass_recall);
      m.fetched_fraction = kv::estimate(all.fetched);
      m.needle_hit = kv::estimate(needle_all);
      m.needle_hit_union = kv::estimate(union_hit);
      m.union_fetched_fraction = kv::estimate(union_fetched);
      for (const auto& v : by_head) m.needle_hit_by_head.push_back(kv::estimate(v));
      for (const auto& v : by_needle) m.needle_hit_by_needle.push_back(kv::estimate(v));
      for (const auto& v : union_by_needle) m.needle_hit_union_by_needle.push_back(kv::estimate(v));
      m.resident_bytes = static_cast<double>(layout.resident_tokens()) * kv_token_bytes;
      m.full_scan_bytes = static_cast<double>(g.tokens) * kv_token_bytes;
      m.bytes_per_step = m.metadata_bytes + m.selected_bytes + m.resident_bytes;
      m.traffic_reduction = m.full_scan_bytes / m.bytes_per_step;
      per_k.push_back(std::move(m));
    }
    report.setups.push_back(std::move(per_k));
  }
  return report;
}

}  // namespace

ScorerCatalog::ScorerCatalog()
    : scorers("kv_scorer", "KV block scorers"), projections("kv_projection", "projections") {
  kv::register_scorers(scorers);
  prism::register_scorer(scorers);
  kv::register_projections(projections);
}

RetrievalSetup ScorerCatalog::setup(std::string name, std::string_view scorer,
                                    std::size_t dim) const {
  RetrievalSetup s{std::move(name), scorers.get(scorer), {}};
  s.options.dim = dim;
  s.options.projections = &projections;
  return s;
}

double overlap_fraction(std::span<const std::size_t> selected, std::span<const std::size_t> truth) {
  LIGHTSIM_CHECK(!truth.empty(), "overlap_fraction: empty truth");
  std::size_t hits = 0;
  for (std::size_t t : truth)
    hits += std::find(selected.begin(), selected.end(), t) != selected.end();
  return static_cast<double>(hits) / static_cast<double>(truth.size());
}

NpyArray fit_head_projections(const kv::KvCache& cache, const kv::ProjectionFitter& fit,
                              std::size_t dim, Context& ctx) {
  const kv::KvGeometry& g = cache.geometry();
  NpyArray a;
  a.shape = {g.layers, g.kv_heads, dim, g.head_dim};
  a.values.resize(g.layers * g.kv_heads * dim * g.head_dim);
  a.source = "per-head projection";
  parallel_for(
      ctx, g.layers * g.kv_heads,
      [&](std::size_t h) {
        const std::size_t layer = h / g.kv_heads, kv_head = h % g.kv_heads;
        const kv::HeadView head = cache.head(layer, kv_head);
        // The stream the scorers use for their own fits (prism and signature scorers).
        RandomStream rng(ctx.seed(), {0x7369670000ull, layer, kv_head});
        const kv::ProjectionMatrix p =
            fit(kv::ProjectionInput{&head, dim, layer, kv_head, &rng, nullptr});
        std::copy(p.rows.begin(), p.rows.end(),
                  a.values.begin() + static_cast<std::ptrdiff_t>(h * dim * g.head_dim));
      },
      1);
  return a;
}

RetrievalReport evaluate_retrieval(const kv::KvCache& cache,
                                   const std::vector<RetrievalSetup>& setups,
                                   const RetrievalOptions& o, Context& ctx) {
  return std::move(
      evaluate_retrieval(cache, setups, o, std::span<const kv::BlockOptions>(&o.blocks, 1), ctx)
          .front());
}

std::vector<RetrievalReport> evaluate_retrieval(const kv::KvCache& cache,
                                                const std::vector<RetrievalSetup>& setups,
                                                const RetrievalOptions& o,
                                                std::span<const kv::BlockOptions> blocks,
                                                Context& ctx) {
  LIGHTSIM_CHECK_AS(InputError, !o.ks.empty(), "at least one k is needed");
  for (std::size_t k : o.ks) LIGHTSIM_CHECK_AS(InputError, k > 0, "k must be positive");
  LIGHTSIM_CHECK(!o.reference || *o.reference < setups.size(),
                 "evaluate_retrieval: reference setup {} of {}", o.reference.value_or(0),
                 setups.size());
  LIGHTSIM_CHECK(!blocks.empty(), "evaluate_retrieval: no block layout");
  const kv::KvGeometry& g = cache.geometry();
  std::vector<kv::BlockLayout> layouts;
  for (const kv::BlockOptions& b : blocks) layouts.emplace_back(g.tokens, b);
  const std::size_t heads = g.layers * g.kv_heads, nl = layouts.size();
  std::optional<NpyArray> shared;
  if (!o.shared_projection.empty()) shared = fit_shared(cache, o, ctx);
  std::vector<std::vector<HeadResult>> results(nl,
                                               std::vector<HeadResult>(heads));  // [layout][head]
  parallel_for(
      ctx, heads,
      [&](std::size_t h) {
        ctx.throw_if_cancelled("retrieval evaluation");
        const std::size_t layer = h / g.kv_heads, kv_head = h % g.kv_heads;
        // The exact attention once per (step, query head) for every layout.
        const kv::HeadView head = cache.head(layer, kv_head);
        std::vector<std::vector<std::vector<double>>> mass(
            nl, std::vector<std::vector<double>>(head.steps));  // [layout][step][block]
        std::vector<double> p;
        std::vector<std::vector<double>> at_step;
        for (std::size_t step = 0; step < head.steps; ++step) {
          kv::group_block_mass(head, layouts, step, p, at_step);
          for (std::size_t l = 0; l < nl; ++l) mass[l][step] = std::move(at_step[l]);
        }
        for (std::size_t l = 0; l < nl; ++l)
          results[l][h] = evaluate_head(cache, layer, kv_head, setups, o, layouts[l], mass[l],
                                        shared ? &*shared : nullptr, ctx.seed());
      },
      1);
  std::vector<RetrievalReport> reports;
  for (std::size_t l = 0; l < nl; ++l)
    reports.push_back(summarize(cache, setups, o, layouts[l], results[l]));
  return reports;
}

}  // namespace lightsim::studies
