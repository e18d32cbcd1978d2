// Shared pieces of the compensation studies (compensation_common.h) and their spec kinds.
#include "studies/compensation_common.h"

#include <filesystem>

#include "lightsim/core/config_files.h"
#include "lightsim/core/error.h"

namespace lightsim::studies {

void CompensationSeedReference::describe(config::Schema<CompensationSeedReference>& s) {
  s.help("The seed's compensation figures (SPEC 1.3, 1.5), printed beside ours; never inputs.");
  s.field("source", &CompensationSeedReference::source, "where the figures come from");
  s.field("votes", &CompensationSeedReference::votes, "Monte-Carlo runs per query").range(1, 4096);
  s.field("weight_bits", &CompensationSeedReference::weight_bits, "weight bits of that figure")
      .range(1, 24);
  s.field("recall32_single", &CompensationSeedReference::recall32_single,
          "Recall@32 of one evaluation")
      .range(0.0, 1.0);
  s.field("recall32_voted", &CompensationSeedReference::recall32_voted, "Recall@32 after voting")
      .range(0.0, 1.0);
  s.field("balanced_recall8_gain", &CompensationSeedReference::balanced_recall8_gain,
          "relative Recall@8 gain of balanced over single-ended detection (0.87 = +87%)")
      .range(-1.0, 100.0);
  s.field("balanced_k", &CompensationSeedReference::balanced_k,
          "the k of the Recall@k of balanced_recall8_gain")
      .range(1, 1 << 20);
}

void QatStudySpec::describe(config::Schema<QatStudySpec>& s) {
  s.help("Quantization-aware training of the projection (docs/prism.md, qat.h).");
  s.field("epochs", &QatStudySpec::epochs, "passes over the training queries").range(0, 100000);
  s.field("batch", &QatStudySpec::batch, "decode queries per Adam step").range(1, 1 << 20);
  s.field("learning_rate", &QatStudySpec::learning_rate,
          "Adam step size relative to the RMS entry of the projection")
      .range(1e-8, 1.0);
  s.field("temperature", &QatStudySpec::temperature,
          "softmax temperature of the ranking loss, in weight units (sum_j w x_j)")
      .range(1e-6, 100.0);
  s.field("train_with_noise", &QatStudySpec::train_with_noise,
          "add the accelerator's score noise (measured on its detection chain) in training");
}

kv::BlockOptions block_options(std::int64_t block, std::int64_t sink, std::int64_t recent) {
  return kv::BlockOptions{static_cast<std::size_t>(block), static_cast<std::size_t>(sink),
                          static_cast<std::size_t>(recent)};
}

CompensationSetup::CompensationSetup(const kv::KvGeneratorSpec& workload,
                                     const kv::BlockOptions& blocks, std::int64_t top_k,
                                     const std::filesystem::path& config_file, Context& ctx)
    : cache(kv::generate_kv_cache(workload, ctx)),
      layout(cache.geometry().tokens, blocks),
      k(static_cast<std::size_t>(top_k)) {
  LIGHTSIM_CHECK_AS(ConfigError, layout.candidates().size() >= k,
                    "{}: top_k = {} but the workload has only {} candidate blocks",
                    config_file.string(), k, layout.candidates().size());
}

prism::AcceleratorSpec selection_accelerator(prism::AcceleratorSpec a, std::size_t k) {
  a.selection.top_k = static_cast<int>(k);
  a.selection.rerank_k = 0;
  a.selection.votes = 1;
  return a;
}

HeadSetup head_setup(const CompensationSetup& setup, std::size_t h,
                     const std::vector<std::size_t>& steps, int dim, std::uint64_t seed) {
  const std::size_t kv_heads = setup.cache.geometry().kv_heads;
  const kv::HeadView head = setup.cache.head(h / kv_heads, h % kv_heads);
  return HeadSetup{head, kv::HeadIndex{h / kv_heads, h % kv_heads, seed},
                   HeadTruth(head, setup.layout, steps),
                   kv::pca_projection(head.keys, head.tokens, head.head_dim, dim)};
}

HeldOutSplit split_steps(std::size_t steps) {
  HeldOutSplit s;
  for (std::size_t i = 0; i < steps; ++i) (i < steps / 2 ? s.train : s.test).push_back(i);
  return s;
}

prism::QatOptions qat_options(const QatStudySpec& spec, const prism::AcceleratorSpec& acc,
                              std::uint64_t seed) {
  prism::QatOptions o = prism::qat_options_for(acc);
  o.epochs = spec.epochs;
  o.batch = static_cast<std::size_t>(spec.batch);
  o.learning_rate = spec.learning_rate;
  o.temperature = spec.temperature;
  o.score_noise = spec.train_with_noise ? prism::measure_score_noise(acc, seed) : 0.0;
  return o;
}

HeadTruth::HeadTruth(const kv::HeadView& head, const kv::BlockLayout& layout,
                     const std::vector<std::size_t>& steps)
    : head_(head), layout_(layout), steps_(steps), means_(kv::block_mean_keys(head, layout)) {
  for (std::size_t s : steps_) mass_.push_back(kv::group_block_mass(head, layout, s));
}

TrainedProjections train_projections(const kv::HeadView& head, const kv::BlockLayout& layout,
                                     const HeldOutSplit& split, const kv::ProjectionMatrix& pca,
                                     const prism::QatOptions& options, const Context& ctx,
                                     const kv::HeadIndex& index) {
  TrainedProjections t;
  t.random = {pca.dim, pca.head_dim, std::vector<float>(pca.rows.size())};
  RandomStream rng = ctx.stream(index.layer, index.kv_head, std::uint64_t{0x524e44} /* RND */);
  rng.fill_normal(std::span<float>(t.random.rows), 0.0f,
                  static_cast<float>(1.0 / std::sqrt(static_cast<double>(pca.dim))));
  const prism::QatData data = prism::make_qat_data(head, layout, split.train);
  const std::uint64_t id = (static_cast<std::uint64_t>(index.layer) << 32) | index.kv_head;
  const prism::QatResult r = prism::train_qat(data, pca, options, ctx.seed(), id);
  t.qat = r.projection;
  if (!r.loss.empty()) {
    t.loss_first = r.loss.front();
    t.loss_last = r.loss.back();
  }
  return t;
}

}  // namespace lightsim::studies
