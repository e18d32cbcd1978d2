// The retrieval engine of docs/metrics.md (metrics.h): per (layer, KV head, step) samples at
// every layout, then aggregation.
#include "lightsim/kv/metrics.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "lightsim/core/error.h"
#include "lightsim/core/memory_budget.h"
#include "lightsim/core/parallel.h"
#include "lightsim/kv/attention.h"

namespace lightsim::kv {

Estimate estimate(const std::vector<double>& samples) {
  Estimate e;
  e.n = samples.size();
  if (e.n == 0) return e;
  double sum = 0;
  for (double x : samples) sum += x;
  e.mean = sum / static_cast<double>(e.n);
  if (e.n > 1) {
    double ss = 0;
    for (double x : samples) ss += (x - e.mean) * (x - e.mean);
    e.ci95 = 1.96 * std::sqrt(ss / static_cast<double>(e.n - 1) / static_cast<double>(e.n));
  }
  return e;
}

bool needle_hit(const NeedleSpan& n, const BlockLayout& layout, std::span<const char> mask) {
  for (std::size_t t = n.begin; t < n.end; ++t)
    if (!layout.resident(t) && !mask[t / layout.block_tokens()]) return false;
  return true;
}

double union_of_heads(const BlockLayout& layout,
                      std::span<const std::span<const std::size_t>> selections,
                      std::vector<char>& mask) {
  mask.assign(layout.blocks(), 0);
  for (const auto& selection : selections)
    for (std::size_t b : selection) mask[b] = 1;
  double fetched = static_cast<double>(layout.resident_tokens());
  for (std::size_t b = 0; b < layout.blocks(); ++b)
    if (mask[b]) fetched += static_cast<double>(layout.fetch_tokens(b));
  return fetched / static_cast<double>(layout.tokens());
}

double overlap_fraction(std::span<const std::size_t> selected, std::span<const std::size_t> truth) {
  LIGHTSIM_CHECK(!truth.empty(), "overlap_fraction: empty truth");
  std::size_t hits = 0;
  for (std::size_t t : truth)
    hits += std::find(selected.begin(), selected.end(), t) != selected.end();
  return static_cast<double>(hits) / static_cast<double>(truth.size());
}

namespace {

using Indices = std::vector<std::size_t>;

// The samples of one setup at one k on one head.
struct Samples {
  std::vector<double> recall, recall_projected, mass_recall, coverage, error, fetched;
  std::vector<std::vector<double>> recall_k_at_K;  // [index of the larger K]
  std::vector<std::vector<double>> needle;         // [needle], one sample per step
  double metadata = 0, selected_bytes = 0;
};

// One head at one layout.
struct LayoutResult {
  std::vector<std::vector<Samples>> samples;                // [setup][k]
  std::vector<std::vector<std::vector<Indices>>> selected;  // [setup][k][step]
};

// Sum_t p_t v_t / sum_t p_t over resident tokens and the non-resident tokens of `blocks`.
void sparse_output(const HeadView& head, const BlockLayout& layout, std::span<const double> p,
                   std::span<const std::size_t> blocks, std::vector<double>& out) {
  out.assign(head.head_dim, 0.0);
  double z = 0;
  auto add = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t t = lo; t < hi; ++t) {
      z += p[t];
      for (std::size_t d = 0; d < head.head_dim; ++d) out[d] += p[t] * head.value(t)[d];
    }
  };
  add(0, layout.sink_end());
  add(layout.recent_begin(), layout.tokens());
  for (std::size_t b : blocks)
    add(std::max(layout.begin(b), layout.sink_end()),
        std::min(layout.end(b), layout.recent_begin()));
  if (z > 0)
    for (auto& o : out) o /= z;
}

double rel_l2(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// Everything one head's evaluation at one layout holds while it walks the decode steps.
class LayoutPass {
 public:
  LayoutPass(const KvCache& cache, const HeadView& head, const std::vector<ScorerSetup>& setups,
             const EvalOptions& o, const BlockLayout& layout, const HeadIndex& index)
      : cache_(cache), head_(head), o_(o), layout_(layout) {
    const std::size_t nk = o.ks.size(), ns = setups.size();
    kmax_ = *std::max_element(o.ks.begin(), o.ks.end());
    kv_token_bytes_ = 2.0 * static_cast<double>(head.head_dim) * o.kv_bytes;
    r_.samples.assign(ns, std::vector<Samples>(nk));
    r_.selected.assign(ns, std::vector<std::vector<Indices>>(nk, std::vector<Indices>(head.steps)));
    for (std::size_t i = 0; i < ns; ++i) {
      scorers_.push_back(setups[i].make());
      scorers_.back()->prepare(head, layout, index);
      for (auto& s : r_.samples[i]) {
        s.metadata = scorers_.back()->metadata_bytes();
        s.needle.resize(cache.needles.size());
        s.recall_k_at_K.resize(nk);
      }
    }
    scores_.resize(layout.blocks());
    mass_f_.resize(layout.blocks());
    mask_.resize(layout.blocks());
    order_.resize(ns);
  }

  // Decode step `step`: mass = the group's block masses at this layout, resident = the
  // group's resident mass; p and full = each query head's weights and full output (only with
  // output_error).
  void step(std::size_t step, const std::vector<double>& mass, double resident,
            const std::vector<std::vector<double>>& p,
            const std::vector<std::vector<double>>& full) {
    for (std::size_t b = 0; b < mass.size(); ++b) mass_f_[b] = static_cast<float>(mass[b]);
    const Indices oracle = top_k_blocks(mass_f_, layout_, kmax_);
    for (std::size_t i = 0; i < scorers_.size(); ++i) {
      scorers_[i]->score(step, scores_);
      order_[i] = top_k_blocks(scores_, layout_, kmax_);
    }
    const double group = static_cast<double>(head_.group);
    const std::size_t nk = o_.ks.size();
    for (std::size_t i = 0; i < scorers_.size(); ++i)
      for (std::size_t ki = 0; ki < nk; ++ki) {
        const std::size_t k = std::min(o_.ks[ki], order_[i].size());
        if (k == 0) continue;
        Samples& s = r_.samples[i][ki];
        const Indices& order = order_[i];
        const std::span<const std::size_t> sel(order.data(), k);
        std::fill(mask_.begin(), mask_.end(), 0);
        double sel_mass = 0, oracle_mass = 0, fetched = 0;
        for (std::size_t j = 0; j < k; ++j) {
          mask_[sel[j]] = 1;
          sel_mass += mass[sel[j]];
          oracle_mass += mass[oracle[j]];
          fetched += static_cast<double>(layout_.fetch_tokens(sel[j]));
        }
        s.recall.push_back(overlap_fraction(sel, {oracle.data(), k}));
        if (o_.reference)
          s.recall_projected.push_back(overlap_fraction(sel, {order_[*o_.reference].data(), k}));
        for (std::size_t kj = 0; kj < nk; ++kj) {
          if (o_.ks[kj] <= o_.ks[ki]) continue;
          const std::size_t big = std::min(o_.ks[kj], order.size());
          s.recall_k_at_K[kj].push_back(overlap_fraction({order.data(), big}, {oracle.data(), k}));
        }
        s.mass_recall.push_back(oracle_mass > 0 ? sel_mass / oracle_mass : 1.0);
        s.coverage.push_back((resident + sel_mass) / group);
        if (o_.output_error) {
          double err = 0;
          for (std::size_t g = 0; g < head_.group; ++g) {
            sparse_output(head_, layout_, p[g], sel, sparse_);
            err += rel_l2(sparse_, full[g]) / group;
          }
          s.error.push_back(err);
        }
        s.fetched.push_back((static_cast<double>(layout_.resident_tokens()) + fetched) /
                            static_cast<double>(head_.tokens));
        s.selected_bytes += fetched * kv_token_bytes_;
        for (std::size_t n = 0; n < cache_.needles.size(); ++n)
          s.needle[n].push_back(needle_hit(cache_.needles[n], layout_, mask_) ? 1.0 : 0.0);
        r_.selected[i][ki][step].assign(sel.begin(), sel.end());
      }
  }

  LayoutResult take() { return std::move(r_); }

 private:
  const KvCache& cache_;
  const HeadView& head_;
  const EvalOptions& o_;
  const BlockLayout& layout_;
  std::size_t kmax_ = 0;
  double kv_token_bytes_ = 0;
  std::vector<std::unique_ptr<Scorer>> scorers_;
  LayoutResult r_;
  std::vector<float> scores_, mass_f_;
  std::vector<char> mask_;
  std::vector<Indices> order_;
  std::vector<double> sparse_;
};

// One head at every layout; result [layout].
std::vector<LayoutResult> evaluate_head(const KvCache& cache, std::size_t layer,
                                        std::size_t kv_head, const std::vector<ScorerSetup>& setups,
                                        const EvalOptions& o,
                                        const std::vector<BlockLayout>& layouts, std::uint64_t seed,
                                        const std::atomic<bool>* cancel, Progress* progress) {
  const HeadView head = cache.head(layer, kv_head);
  std::optional<ProjectionMatrix> shared;
  if (o.shared_projection) {
    RandomStream rng = projection_stream(seed, layer, kv_head);
    shared = o.shared_projection->fit(
        ProjectionInput{&head, o.shared_projection->dim, layer, kv_head, &rng, nullptr});
  }
  const HeadIndex index{layer, kv_head, seed, shared ? &*shared : nullptr, cancel, progress};
  std::vector<std::unique_ptr<LayoutPass>> passes;
  for (const BlockLayout& layout : layouts)
    passes.push_back(std::make_unique<LayoutPass>(cache, head, setups, o, layout, index));
  std::vector<double> p_one, resident;
  std::vector<std::vector<double>> masses, p, full(head.group);
  for (std::size_t step = o.first_step; step < head.steps; ++step) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) [[unlikely]]
      throw Interrupted("retrieval evaluation: interrupted");
    group_attention(head, layouts, step, p_one, masses, resident, o.output_error ? &p : nullptr);
    if (o.output_error)
      for (std::size_t g = 0; g < head.group; ++g)
        attention_output(
            head, p[g], [](std::size_t) { return true; }, full[g]);
    for (std::size_t l = 0; l < layouts.size(); ++l)
      passes[l]->step(step, masses[l], resident[l], p, full);
  }
  std::vector<LayoutResult> out;
  for (auto& pass : passes) out.push_back(pass->take());
  return out;
}

void append(std::vector<double>& to, const std::vector<double>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// The metrics of setup i at k index ki from the per-head results at one layout.
KMetrics summarize(const KvCache& cache, const EvalOptions& o, const BlockLayout& layout,
                   const std::vector<const LayoutResult*>& heads, std::size_t i, std::size_t ki) {
  const KvGeometry& g = cache.geometry();
  const std::size_t nh = heads.size(), nk = o.ks.size(), needles = cache.needles.size();
  KMetrics m;
  m.k = o.ks[ki];
  m.k_effective = std::min(m.k, layout.candidates().size());
  std::vector<double> recall, recall_projected, mass_recall, coverage, error, fetched;
  std::vector<std::vector<double>> recall_k_at_K(nk), by_head(g.kv_heads), by_needle(needles),
      union_by_needle(needles);
  std::vector<double> needle_all, union_hit, union_fetched;
  for (std::size_t h = 0; h < nh; ++h) {
    const Samples& s = heads[h]->samples[i][ki];
    append(recall, s.recall);
    append(recall_projected, s.recall_projected);
    append(mass_recall, s.mass_recall);
    append(coverage, s.coverage);
    append(error, s.error);
    append(fetched, s.fetched);
    for (std::size_t kj = 0; kj < nk; ++kj) append(recall_k_at_K[kj], s.recall_k_at_K[kj]);
    for (std::size_t n = 0; n < needles; ++n) {
      append(needle_all, s.needle[n]);
      append(by_head[h % g.kv_heads], s.needle[n]);
      append(by_needle[n], s.needle[n]);
    }
    m.metadata_bytes += s.metadata / static_cast<double>(nh);
    m.selected_bytes +=
        s.selected_bytes / static_cast<double>(g.steps - o.first_step) / static_cast<double>(nh);
  }
  // Union over the KV heads of each layer.
  std::vector<char> mask;
  std::vector<std::span<const std::size_t>> selections(g.kv_heads);
  for (std::size_t layer = 0; layer < g.layers; ++layer)
    for (std::size_t step = o.first_step; step < g.steps; ++step) {
      for (std::size_t h = 0; h < g.kv_heads; ++h)
        selections[h] = heads[layer * g.kv_heads + h]->selected[i][ki][step];
      union_fetched.push_back(union_of_heads(layout, selections, mask));
      for (std::size_t n = 0; n < needles; ++n) {
        const double hit = needle_hit(cache.needles[n], layout, mask) ? 1.0 : 0.0;
        union_hit.push_back(hit);
        union_by_needle[n].push_back(hit);
      }
    }
  m.recall = estimate(recall);
  m.recall_projected = estimate(recall_projected);
  for (std::size_t kj = 0; kj < nk; ++kj)
    if (o.ks[kj] > o.ks[ki]) m.recall_k_at_K.emplace_back(o.ks[kj], estimate(recall_k_at_K[kj]));
  m.mass_recall = estimate(mass_recall);
  m.mass_coverage = estimate(coverage);
  m.output_rel_error = estimate(error);
  m.fetched_fraction = estimate(fetched);
  m.needle_hit = estimate(needle_all);
  m.needle_hit_union = estimate(union_hit);
  m.union_fetched_fraction = estimate(union_fetched);
  for (const auto& v : by_head) m.needle_hit_by_head.push_back(estimate(v));
  for (const auto& v : by_needle) m.needle_hit_by_needle.push_back(estimate(v));
  for (const auto& v : union_by_needle) m.needle_hit_union_by_needle.push_back(estimate(v));
  const double kv_token_bytes = 2.0 * static_cast<double>(g.head_dim) * o.kv_bytes;
  m.resident_bytes = static_cast<double>(layout.resident_tokens()) * kv_token_bytes;
  m.full_scan_bytes = static_cast<double>(g.tokens) * kv_token_bytes;
  m.bytes_per_step = m.metadata_bytes + m.selected_bytes + m.resident_bytes;
  m.traffic_reduction = m.full_scan_bytes / m.bytes_per_step;
  return m;
}

}  // namespace

std::uint64_t evaluation_thread_bytes(const KvGeometry& g) {
  const std::uint64_t attention = bytes_of(bytes_of(g.group() + 1, g.tokens), sizeof(double));
  const std::uint64_t scratch =
      bytes_of(bytes_of(g.tokens, g.head_dim), sizeof(double) + sizeof(float));
  return add_bytes(attention, scratch);
}

EvalReport evaluate(const KvCache& cache, const std::vector<ScorerSetup>& setups,
                    const EvalOptions& o, Context& ctx) {
  return std::move(
      evaluate(cache, setups, o, std::span<const BlockOptions>(&o.blocks, 1), ctx).front());
}

std::vector<EvalReport> evaluate(const KvCache& cache, const std::vector<ScorerSetup>& setups,
                                 const EvalOptions& o, std::span<const BlockOptions> blocks,
                                 Context& ctx) {
  LIGHTSIM_CHECK_AS(InputError, !o.ks.empty(), "at least one k is needed");
  for (std::size_t k : o.ks) LIGHTSIM_CHECK_AS(InputError, k > 0, "k must be positive");
  LIGHTSIM_CHECK_AS(InputError, !o.reference || *o.reference < setups.size(),
                    "evaluate: reference setup {} of {}", o.reference.value_or(0), setups.size());
  LIGHTSIM_CHECK(!blocks.empty(), "evaluate: no block layout");
  LIGHTSIM_CHECK(!o.shared_projection || static_cast<bool>(o.shared_projection->fit),
                 "evaluate: the shared projection has no fitter");
  const KvGeometry& g = cache.geometry();
  LIGHTSIM_CHECK_AS(InputError, o.first_step < g.steps,
                    "evaluate: first scored step {} is not below the cache's {} decode steps",
                    o.first_step, g.steps);
  std::vector<BlockLayout> layouts;
  for (const BlockOptions& b : blocks) layouts.emplace_back(g.tokens, b);
  const std::size_t heads = g.layers * g.kv_heads;
  std::vector<std::vector<LayoutResult>> results(heads);  // [head][layout]
  std::optional<ProgressTask> progress;
  if (!o.progress_label.empty()) progress.emplace(ctx.progress().start(o.progress_label, heads));
  parallel_for(
      ctx, heads,
      [&](std::size_t h) {
        ctx.throw_if_cancelled("retrieval evaluation");
        results[h] =
            evaluate_head(cache, h / g.kv_heads, h % g.kv_heads, setups, o, layouts, ctx.seed(),
                          ctx.cancel_flag(), progress ? &ctx.progress() : nullptr);
        if (progress) progress->advance();
      },
      1);
  if (progress) progress->finish();
  std::vector<EvalReport> reports;
  for (std::size_t l = 0; l < layouts.size(); ++l) {
    const BlockLayout& layout = layouts[l];
    EvalReport report;
    report.source = cache.source;
    report.tokens = g.tokens;
    report.block_tokens = layout.block_tokens();
    report.blocks = layout.blocks();
    report.candidates = layout.candidates().size();
    report.resident_tokens = layout.resident_tokens();
    report.heads = heads;
    report.steps = g.steps - o.first_step;
    report.needles = cache.needles.size();
    std::vector<const LayoutResult*> at_layout;
    for (const auto& r : results) at_layout.push_back(&r[l]);
    for (std::size_t i = 0; i < setups.size(); ++i) {
      ScorerReport sr{setups[i].name, {}};
      for (std::size_t ki = 0; ki < o.ks.size(); ++ki)
        sr.per_k.push_back(summarize(cache, o, layout, at_layout, i, ki));
      report.scorers.push_back(std::move(sr));
    }
    reports.push_back(std::move(report));
  }
  return reports;
}

}  // namespace lightsim::kv
