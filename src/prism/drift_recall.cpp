// Recall under thermal drift (see drift_recall.h, docs/thermal.md "Recall under drift").
#include "lightsim/prism/drift_recall.h"

#include <string>

#include "lightsim/core/error.h"
#include "lightsim/kv/attention.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/projection.h"
#include "lightsim/prism/selection_eval.h"

namespace lightsim::prism {

photonics::ImpairmentSpec with_drift_state(photonics::ImpairmentSpec base,
                                           const photonics::ImpairmentSpec& state) {
  base.fabrication_sigma = state.fabrication_sigma;
  base.calibration_residual = state.calibration_residual;
  base.drift_global_sigma = state.drift_global_sigma;
  base.drift_local_sigma = state.drift_local_sigma;
  return base;
}

std::vector<std::vector<double>> recall_under(const AcceleratorSpec& a,
                                              const std::vector<photonics::ImpairmentSpec>& states,
                                              const DriftRecallOptions& o, Context& ctx) {
  LIGHTSIM_CHECK(o.tokens > 0 && o.steps > 0 && o.kv_heads > 0 && !o.k.empty(),
                 "drift recall: tokens, steps, kv_heads and k must be positive");
  kv::KvGeneratorSpec g;
  g.model = "prism-drift-recall";
  g.model_layers = 1;
  g.kv_heads = o.kv_heads;
  g.q_heads = 7 * o.kv_heads;
  g.head_dim = 128;
  g.tokens = o.tokens;
  g.steps = o.steps;
  g.dtype = "float32";
  const kv::KvCache cache = kv::generate_kv_cache(g, ctx);
  const kv::BlockLayout layout(cache.geometry().tokens, kv::BlockOptions{});
  const auto d = static_cast<std::size_t>(a.device.grid.channels);
  std::vector<std::vector<double>> out(states.size(), std::vector<double>(o.k.size(), 0.0));
  const double samples = static_cast<double>(o.kv_heads * o.steps);
  std::vector<float> scores(layout.blocks());
  for (std::size_t h = 0; h < static_cast<std::size_t>(o.kv_heads); ++h) {
    ctx.throw_if_cancelled("drift recall");
    const kv::HeadView head = cache.head(0, h);
    const kv::ProjectionMatrix p = kv::pca_projection(head.keys, head.tokens, head.head_dim, d);
    const std::vector<float> means = kv::block_mean_keys(head, layout);
    std::vector<std::vector<float>> exact;
    std::vector<std::vector<double>> mass;
    for (std::size_t step = 0; step < static_cast<std::size_t>(o.steps); ++step) {
      exact.push_back(projected_scores(p, head, means, step));
      mass.push_back(kv::group_block_mass(head, layout, step));
    }
    for (std::size_t s = 0; s < states.size(); ++s) {
      AcceleratorSpec impaired = a;
      impaired.impairments = with_drift_state(a.impairments, states[s]);
      const FixedProjectionPrism prism(impaired, p, head, layout, {0, h, ctx.seed()});
      for (std::size_t step = 0; step < static_cast<std::size_t>(o.steps); ++step) {
        prism.score(step, scores);
        for (std::size_t ki = 0; ki < o.k.size(); ++ki)
          out[s][ki] +=
              selection_sample(scores, exact[step], mass[step], layout, o.k[ki]).recall / samples;
      }
    }
  }
  return out;
}

DriftRecall drift_recall(const AcceleratorSpec& a, const DriftRun& run, const DriftRecallOptions& o,
                         Context& ctx) {
  const std::vector<photonics::ImpairmentSpec> states = {{}, run.impairments, run.uncalibrated};
  const auto r = recall_under(a, states, o, ctx);
  DriftRecall out;
  out.tokens = o.tokens;
  out.steps = o.steps;
  out.kv_heads = o.kv_heads;
  out.blocks = static_cast<std::int64_t>(
      kv::BlockLayout(static_cast<std::size_t>(o.tokens), kv::BlockOptions{}).blocks());
  for (std::size_t ki = 0; ki < o.k.size(); ++ki)
    out.recall.push_back({o.k[ki], r[0][ki], r[1][ki], r[2][ki]});
  return out;
}

}  // namespace lightsim::prism
