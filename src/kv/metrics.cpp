// Metrics of docs/metrics.md: per (layer, KV head, step) samples, then aggregation.
#include "lightsim/kv/metrics.h"

#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"
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

namespace {

struct Samples {
  std::vector<double> recall, mass_recall, coverage, error, fetched, needle;
  std::vector<std::vector<double>> recall_k_at_K;  // per larger K
  double metadata = 0, selected_bytes = 0, resident_bytes = 0;
};

struct HeadResult {
  std::vector<std::vector<Samples>> samples;                                 // [scorer][k]
  std::vector<std::vector<std::vector<std::vector<std::size_t>>>> selected;  // [scorer][k][step]
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

HeadResult evaluate_head(const KvCache& cache, std::size_t layer, std::size_t kv_head,
                         const std::vector<EvalSetup>& setups, const EvalOptions& o,
                         const BlockLayout& layout, std::uint64_t seed) {
  const HeadView head = cache.head(layer, kv_head);
  const std::size_t nk = o.ks.size(), kmax = *std::max_element(o.ks.begin(), o.ks.end());
  const double kv_token_bytes = 2.0 * static_cast<double>(head.head_dim) * o.kv_bytes;
  std::vector<std::unique_ptr<Scorer>> scorers;
  HeadResult r;
  r.samples.assign(setups.size(), std::vector<Samples>(nk));
  r.selected.assign(setups.size(), std::vector<std::vector<std::vector<std::size_t>>>(
                                       nk, std::vector<std::vector<std::size_t>>(head.steps)));
  for (std::size_t i = 0; i < setups.size(); ++i) {
    scorers.push_back(setups[i].factory(setups[i].options));
    scorers.back()->prepare(head, layout, HeadIndex{layer, kv_head, seed});
    for (std::size_t ki = 0; ki < nk; ++ki) {
      Samples& s = r.samples[i][ki];
      s.metadata = scorers.back()->metadata_bytes();
      s.resident_bytes = static_cast<double>(layout.resident_tokens()) * kv_token_bytes;
      s.recall_k_at_K.resize(nk);
    }
  }
  const double group = static_cast<double>(head.group);
  std::vector<std::vector<double>> p(head.group), full(head.group);
  std::vector<double> sparse, scores_d;
  std::vector<float> scores(layout.blocks());
  std::vector<char> mask(layout.blocks());
  for (std::size_t step = 0; step < head.steps; ++step) {
    double resident_mass = 0;
    std::vector<double> mass(layout.blocks(), 0.0);
    for (std::size_t g = 0; g < head.group; ++g) {
      attention_weights(head, g, step, p[g]);
      attention_output(
          head, p[g], [](std::size_t) { return true; }, full[g]);
      for (std::size_t t = 0; t < head.tokens; ++t) {
        if (layout.resident(t))
          resident_mass += p[g][t] / group;
        else
          mass[t / layout.block_tokens()] += p[g][t] / group;
      }
    }
    std::vector<float> mass_f(mass.begin(), mass.end());
    const std::vector<std::size_t> oracle = top_k_blocks(mass_f, layout, kmax);
    for (std::size_t i = 0; i < setups.size(); ++i) {
      scorers[i]->score(step, scores);
      const std::vector<std::size_t> order = top_k_blocks(scores, layout, kmax);
      for (std::size_t ki = 0; ki < nk; ++ki) {
        Samples& s = r.samples[i][ki];
        const std::size_t k = std::min(o.ks[ki], order.size());
        if (k == 0) continue;
        std::fill(mask.begin(), mask.end(), 0);
        double sel_mass = 0, oracle_mass = 0, fetched = 0;
        std::size_t hits = 0;
        for (std::size_t j = 0; j < k; ++j) {
          mask[order[j]] = 1;
          sel_mass += mass[order[j]];
          oracle_mass += mass[oracle[j]];
          fetched += static_cast<double>(layout.fetch_tokens(order[j]));
        }
        for (std::size_t j = 0; j < k; ++j) hits += mask[oracle[j]];
        s.recall.push_back(static_cast<double>(hits) / static_cast<double>(k));
        for (std::size_t kj = 0; kj < nk; ++kj) {
          if (o.ks[kj] <= o.ks[ki]) continue;
          const std::size_t big = std::min(o.ks[kj], order.size());
          std::size_t found = 0;
          for (std::size_t j = 0; j < k; ++j)
            found += std::find(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(big),
                               oracle[j]) != order.begin() + static_cast<std::ptrdiff_t>(big);
          s.recall_k_at_K[kj].push_back(static_cast<double>(found) / static_cast<double>(k));
        }
        s.mass_recall.push_back(oracle_mass > 0 ? sel_mass / oracle_mass : 1.0);
        s.coverage.push_back(resident_mass + sel_mass);
        double err = 0;
        const std::span<const std::size_t> sel(order.data(), k);
        for (std::size_t g = 0; g < head.group; ++g) {
          sparse_output(head, layout, p[g], sel, sparse);
          err += rel_l2(sparse, full[g]) / group;
        }
        s.error.push_back(err);
        s.fetched.push_back((static_cast<double>(layout.resident_tokens()) + fetched) /
                            static_cast<double>(head.tokens));
        s.selected_bytes += fetched * kv_token_bytes;
        for (const auto& n : cache.needles) s.needle.push_back(needle_hit(n, layout, mask) ? 1 : 0);
        r.selected[i][ki][step].assign(order.begin(),
                                       order.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
  }
  return r;
}

}  // namespace

EvalReport evaluate(const KvCache& cache, const std::vector<EvalSetup>& setups,
                    const EvalOptions& o, Context& ctx) {
  LIGHTSIM_CHECK_AS(InputError, !o.ks.empty(), "at least one k is needed");
  for (std::size_t k : o.ks) LIGHTSIM_CHECK_AS(InputError, k > 0, "k must be positive");
  const KvGeometry& g = cache.geometry();
  const BlockLayout layout(g.tokens, o.blocks);
  const std::size_t heads = g.layers * g.kv_heads;
  std::vector<HeadResult> results(heads);
  parallel_for(
      ctx, heads,
      [&](std::size_t h) {
        results[h] =
            evaluate_head(cache, h / g.kv_heads, h % g.kv_heads, setups, o, layout, ctx.seed());
      },
      1);

  EvalReport report;
  report.tokens = g.tokens;
  report.blocks = layout.blocks();
  report.candidates = layout.candidates().size();
  report.resident_tokens = layout.resident_tokens();
  report.heads = heads;
  report.steps = g.steps;
  report.needles = cache.needles.size();
  const double kv_token_bytes = 2.0 * static_cast<double>(g.head_dim) * o.kv_bytes;
  const double samples_per_head = static_cast<double>(g.steps);
  for (std::size_t i = 0; i < setups.size(); ++i) {
    ScorerReport sr{setups[i].name, {}};
    for (std::size_t ki = 0; ki < o.ks.size(); ++ki) {
      Samples all;
      all.recall_k_at_K.resize(o.ks.size());
      KMetrics m;
      m.k = o.ks[ki];
      m.k_effective = std::min(m.k, report.candidates);
      for (const HeadResult& hr : results) {
        const Samples& s = hr.samples[i][ki];
        auto append = [](std::vector<double>& to, const std::vector<double>& from) {
          to.insert(to.end(), from.begin(), from.end());
        };
        append(all.recall, s.recall);
        append(all.mass_recall, s.mass_recall);
        append(all.coverage, s.coverage);
        append(all.error, s.error);
        append(all.fetched, s.fetched);
        append(all.needle, s.needle);
        for (std::size_t kj = 0; kj < o.ks.size(); ++kj)
          append(all.recall_k_at_K[kj], s.recall_k_at_K[kj]);
        m.metadata_bytes += s.metadata / static_cast<double>(heads);
        m.selected_bytes += s.selected_bytes / samples_per_head / static_cast<double>(heads);
        m.resident_bytes += s.resident_bytes / static_cast<double>(heads);
      }
      // Union over the KV heads of each layer.
      std::vector<double> union_hit, union_fetched;
      std::vector<char> mask;
      std::vector<std::span<const std::size_t>> selections(g.kv_heads);
      for (std::size_t layer = 0; layer < g.layers; ++layer)
        for (std::size_t step = 0; step < g.steps; ++step) {
          for (std::size_t h = 0; h < g.kv_heads; ++h)
            selections[h] = results[layer * g.kv_heads + h].selected[i][ki][step];
          union_fetched.push_back(union_of_heads(layout, selections, mask));
          for (const auto& n : cache.needles) union_hit.push_back(needle_hit(n, layout, mask));
        }
      m.recall = estimate(all.recall);
      for (std::size_t kj = 0; kj < o.ks.size(); ++kj)
        if (o.ks[kj] > o.ks[ki])
          m.recall_k_at_K.emplace_back(o.ks[kj], estimate(all.recall_k_at_K[kj]));
      m.mass_recall = estimate(all.mass_recall);
      m.mass_coverage = estimate(all.coverage);
      m.output_rel_error = estimate(all.error);
      m.fetched_fraction = estimate(all.fetched);
      m.needle_hit = estimate(all.needle);
      m.needle_hit_union = estimate(union_hit);
      m.union_fetched_fraction = estimate(union_fetched);
      m.full_scan_bytes = static_cast<double>(g.tokens) * kv_token_bytes;
      m.bytes_per_step = m.metadata_bytes + m.selected_bytes + m.resident_bytes;
      m.traffic_reduction = m.full_scan_bytes / m.bytes_per_step;
      sr.per_k.push_back(std::move(m));
    }
    report.scorers.push_back(std::move(sr));
  }
  return report;
}

}  // namespace lightsim::kv
