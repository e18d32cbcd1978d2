// The compensation axis of the `impairments` study (include/lightsim/studies/impairments.h):
// parsing its values, where each acts, and the QAT projections (held-out training steps, the
// shared initial projection, training per (layer, KV head)).
#include <algorithm>
#include <cstring>
#include <utility>

#include "lightsim/core/error.h"
#include "lightsim/core/parallel.h"
#include "lightsim/core/rng.h"
#include "lightsim/kv/projection.h"
#include "lightsim/studies/impairments.h"

namespace lightsim::studies {

std::optional<Compensation> parse_compensation(std::string_view name) {
  if (name == "none") return Compensation{};
  Compensation c;
  while (true) {
    const std::size_t plus = name.find('+');
    const std::string_view part = name.substr(0, plus);
    bool* flag = part == "calibration" ? &c.calibration
                 : part == "qat"       ? &c.qat
                 : part == "voting"    ? &c.voting
                                       : nullptr;
    if (flag == nullptr || *flag) return std::nullopt;  // unknown or repeated part
    *flag = true;
    if (plus == std::string_view::npos) return c;
    name.remove_prefix(plus + 1);
  }
}

bool compensation_acts(const Compensation& c, const ImpairmentKnobs& k) {
  return (!c.calibration || k.drift.has_value()) && (!c.qat || k.bits.has_value()) &&
         (!c.voting || k.nep.has_value() || k.splitter_excess.has_value());
}

QatTrainingSplit split_qat_training(kv::KvCache&& full, std::size_t eval_steps,
                                    const kv::BlockOptions& blocks, Context& ctx) {
  const kv::KvGeometry g = full.geometry();
  LIGHTSIM_CHECK(eval_steps > 0 && eval_steps < g.steps,
                 "split_qat_training: {} evaluated steps of {}", eval_steps, g.steps);
  const kv::BlockLayout layout(g.tokens, blocks);
  std::vector<std::size_t> train_steps;
  for (std::size_t s = eval_steps; s < g.steps; ++s) train_steps.push_back(s);
  QatTrainingSplit out;
  out.train.resize(g.layers * g.kv_heads);
  parallel_for(
      ctx, out.train.size(),
      [&](std::size_t h) {
        out.train[h] =
            prism::make_qat_data(full.head(h / g.kv_heads, h % g.kv_heads), layout, train_steps);
      },
      1);
  kv::KvGeometry eg = g;
  eg.steps = eval_steps;
  // The keys and values move; only the evaluated queries are copied. (Building the evaluated
  // cache from its geometry and swapping the arrays in allocated a zeroed second set of keys
  // and values, held until `full` died: a whole cache more at the study's peak.)
  std::vector<float> queries(g.layers * g.q_heads * eval_steps * g.head_dim);
  for (std::size_t l = 0; l < g.layers; ++l)
    for (std::size_t q = 0; q < g.q_heads; ++q)
      std::memcpy(queries.data() + (l * g.q_heads + q) * eval_steps * g.head_dim,
                  full.queries(l, q), eval_steps * g.head_dim * sizeof(float));
  out.eval =
      kv::KvCache(eg, std::move(full.key_data()), std::move(full.value_data()), std::move(queries));
  out.eval.layer_ids = full.layer_ids;
  out.eval.rope_base = full.rope_base;
  out.eval.needles = full.needles;
  out.eval.source = full.source;
  out.eval.storage = full.storage;
  return out;
}

NpyArray train_qat_projections(const std::vector<prism::QatData>& train, const NpyArray& init,
                               const prism::QatOptions& options, Context& ctx) {
  LIGHTSIM_CHECK(init.shape.size() == 4 && init.shape[0] * init.shape[1] == train.size(),
                 "train_qat_projections: {} heads of data for an initial projection of {} heads",
                 train.size(), init.shape.size() == 4 ? init.shape[0] * init.shape[1] : 0);
  const std::size_t kv_heads = init.shape[1], dim = init.shape[2], head_dim = init.shape[3];
  const std::size_t size = dim * head_dim;
  NpyArray out = init;
  out.source = "impairments study: QAT projection";
  parallel_for(
      ctx, train.size(),
      [&](std::size_t h) {
        ctx.throw_if_cancelled("QAT training");
        const auto first = init.values.begin() + static_cast<std::ptrdiff_t>(h * size);
        const kv::ProjectionMatrix p0{dim, head_dim, std::vector<float>(first, first + size)};
        const std::uint64_t id = (static_cast<std::uint64_t>(h / kv_heads) << 32) | h % kv_heads;
        const prism::QatResult r = prism::train_qat(train[h], p0, options, ctx.seed(), id);
        std::copy(r.projection.rows.begin(), r.projection.rows.end(),
                  out.values.begin() + static_cast<std::ptrdiff_t>(h * size));
      },
      1);
  return out;
}

}  // namespace lightsim::studies
