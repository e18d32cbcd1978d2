// Quantization-aware training of the signature projection: on held-out decode queries of a
// synthetic cache, at 4-bit weights through the Prism scorer (noise on), QAT recalls more
// attention mass than a random projection by a margin (the acceptance test) and more
// than its PCA initialisation, the training loss falls, and the result does not depend on the
// thread count. (The default temperature and learning rate were chosen by a sweep on this
// cache: docs/studies.md "## qat"; the study's figures come from another cache.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "lightsim/core/context.h"
#include "lightsim/kv/attention.h"
#include "lightsim/kv/generator.h"
#include "lightsim/prism/qat.h"
#include "lightsim/prism/selection_eval.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

constexpr std::size_t kTrain = 16, kTest = 16;

kv::KvCache make_cache() {
  kv::KvGeneratorSpec s;
  s.model = "qat-test";
  s.model_layers = 1;
  s.kv_heads = 2;
  s.q_heads = 4;
  s.head_dim = 128;
  s.tokens = 8192;
  s.steps = static_cast<std::int64_t>(kTrain + kTest);
  s.dtype = "float32";
  Context ctx(ContextOptions{.seed = 11, .threads = 1});
  return kv::generate_kv_cache(s, ctx);
}

AcceleratorSpec four_bit_accelerator() {
  AcceleratorSpec a = config::load_spec<AcceleratorSpec>(
      std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/accelerators/seed_fit.yaml",
      testing::shipped_configs());
  a.programming.weight_bits = 4;
  a.selection.top_k = 8;
  return a;
}

std::vector<std::size_t> range(std::size_t begin, std::size_t end) {
  std::vector<std::size_t> v;
  for (std::size_t i = begin; i < end; ++i) v.push_back(i);
  return v;
}

// Mean mass recall@8 over the held-out steps through the Prism scorer.
double held_out_mass_recall(const AcceleratorSpec& a, const kv::KvCache& cache,
                            const kv::BlockLayout& layout, const kv::ProjectionMatrix& p,
                            std::size_t kv_head) {
  const kv::HeadView head = cache.head(0, kv_head);
  FixedProjectionPrism prism(a, p, head, layout, {0, kv_head, 5});
  const std::vector<float> means = kv::block_mean_keys(head, layout);
  double sum = 0;
  std::vector<float> scores(layout.blocks());
  for (std::size_t step = kTrain; step < kTrain + kTest; ++step) {
    prism.score(step, scores);
    const std::vector<double> mass = kv::group_block_mass(head, layout, step);
    sum += selection_sample(scores, projected_scores(p, head, means, step), mass, layout, 8)
               .mass_recall;
  }
  return sum / kTest;
}

TEST(Qat, BeatsRandomProjectionOnHeldOutQueriesAtFourBits) {
  const kv::KvCache cache = make_cache();
  const kv::BlockLayout layout(cache.geometry().tokens, kv::BlockOptions{});
  const AcceleratorSpec a = four_bit_accelerator();
  QatOptions o = qat_options_for(a);
  o.score_noise = measure_score_noise(a, 3);
  EXPECT_GT(o.score_noise, 0.0);
  const std::vector<std::size_t> train = range(0, kTrain);
  double qat = 0, random = 0, pca = 0;
  for (std::size_t h = 0; h < 2; ++h) {
    const kv::HeadView head = cache.head(0, h);
    const kv::ProjectionMatrix init = kv::pca_projection(head.keys, head.tokens, 128, 32);
    const QatResult r = train_qat(make_qat_data(head, layout, train), init, o, 9, h);
    kv::ProjectionMatrix rnd{32, 128, std::vector<float>(32 * 128)};
    RandomStream rng(9, {h});
    rng.fill_normal(std::span<float>(rnd.rows), 0.0f, 1.0f / std::sqrt(32.0f));
    qat += held_out_mass_recall(a, cache, layout, r.projection, h) / 2;
    pca += held_out_mass_recall(a, cache, layout, init, h) / 2;
    random += held_out_mass_recall(a, cache, layout, rnd, h) / 2;
  }
  std::printf("held-out mass recall@8, 4 bits: qat %.4f pca %.4f random %.4f\n", qat, pca, random);
  EXPECT_GT(qat, random + 0.1);
  EXPECT_GT(qat, pca);
}

TEST(Qat, TrainingLossFalls) {
  const kv::KvCache cache = make_cache();
  const kv::BlockLayout layout(cache.geometry().tokens, kv::BlockOptions{});
  const kv::HeadView head = cache.head(0, 0);
  QatOptions o = qat_options_for(four_bit_accelerator());
  o.epochs = 30;
  const QatData data = make_qat_data(head, layout, range(0, kTrain));
  kv::ProjectionMatrix rnd{32, 128, std::vector<float>(32 * 128)};
  RandomStream(4, {1}).fill_normal(std::span<float>(rnd.rows), 0.0f, 1.0f / std::sqrt(32.0f));
  const QatResult r = train_qat(data, rnd, o, 1, 0);
  ASSERT_EQ(r.loss.size(), 30u);
  EXPECT_LT(r.loss.back(), 0.8 * r.loss.front());
}

TEST(Qat, SameProjectionsForOneAndTwoThreads) {
  const kv::KvCache cache = make_cache();
  const kv::BlockLayout layout(cache.geometry().tokens, kv::BlockOptions{});
  QatOptions o = qat_options_for(four_bit_accelerator());
  o.epochs = 3;
  o.score_noise = 0.05;
  auto train_all = [&](std::size_t threads) {
    Context ctx(ContextOptions{.seed = 2, .threads = threads});
    std::vector<std::vector<float>> out(2);
    parallel_for(ctx, 2, [&](std::size_t h) {
      const kv::HeadView head = cache.head(0, h);
      const kv::ProjectionMatrix init = kv::pca_projection(head.keys, head.tokens, 128, 32);
      out[h] = train_qat(make_qat_data(head, layout, range(0, kTrain)), init, o, ctx.seed(), h)
                   .projection.rows;
    });
    return out;
  };
  EXPECT_EQ(train_all(1), train_all(2));
}

TEST(Qat, RejectsBadOptions) {
  QatData data;
  data.head_dim = 4;
  kv::ProjectionMatrix p{2, 3, std::vector<float>(6)};
  EXPECT_THROW(train_qat(data, p, QatOptions{}, 0, 0), InputError);
}

}  // namespace
}  // namespace lightsim::prism
