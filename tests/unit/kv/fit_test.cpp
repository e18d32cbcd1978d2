// kv fit (fit.h): fitting a cache generated with known knobs recovers them; a cache the
// generator cannot reach is a DataFormatError naming the statistic. Also the generator knobs
// the calibrated profiles add (needle_norm_matched, rope_ntk_factor).
#include <gtest/gtest.h>

#include <cmath>

#include "kv_test_util.h"
#include "lightsim/core/error.h"
#include "lightsim/kv/fit.h"

namespace lightsim::kv {
namespace {

KvCache fit_generate(const KvGeneratorSpec& spec, std::uint64_t seed) {
  ContextOptions o;
  o.seed = seed;
  o.threads = 2;
  Context ctx(o);
  return generate_kv_cache(spec, ctx);
}

// One layer of 2 KV heads x 8 query heads, D = 64, T = 1024, RoPE 1e6.
KvGeneratorSpec fit_spec() {
  KvGeneratorSpec s = testing::tiny_spec();
  s.model_layers = 1;
  s.q_heads = 8;
  s.head_dim = 64;
  s.key_rank = 16;
  s.tokens = 1024;
  s.steps = 8;
  s.rope_base = 1e6;
  s.semantic_wavelength = 4194304;
  s.outlier_pairs = 2;
  s.segment_tokens = 256;
  s.retrieval_fraction = 0;  // every head diffuse: tokens90_fraction reads diffuse_logit
  s.streaming_fraction = 0;
  return s;
}

KvGeneratorSpec truth_spec() {
  KvGeneratorSpec truth = fit_spec();
  truth.noise_scale = 0.4;
  truth.spectrum_decay = 1.2;
  truth.sink_logit = 10;
  truth.local_correlation = 0.6;
  truth.diffuse_logit = 6;
  return truth;
}

TEST(KvFit, RecoversKnownKnobs) {
  // 4 KV heads x 16 query heads, so two seeds' statistics differ little. The knobs with a statistic
  // of their own: noise_scale (key rank), sink_logit (sink mass), diffuse_logit (tokens for 90% of
  // the mass), from the preset's values, the others at truth.
  KvGeneratorSpec truth = truth_spec();
  truth.kv_heads = 4;
  truth.q_heads = 16;
  const KvCache cache = fit_generate(truth, 7);
  KvGeneratorSpec start = truth;
  start.noise_scale = 0.25;
  start.sink_logit = 4;
  start.diffuse_logit = 3;
  ContextOptions o;
  o.seed = 1;  // candidates from another seed than the cache
  o.threads = 2;
  Context ctx(o);
  FitOptions opts;
  opts.knobs = {"noise_scale", "sink_logit", "diffuse_logit"};
  opts.recent_tokens = 128;
  const FitResult r = fit_kv_cache(cache, start, opts, ctx);
  // Tolerances: 0.1 in noise_scale, 1.5 nats in sink_logit, 1.5 nats in diffuse_logit (the
  // sink mass of two seeds' caches at one sink_logit differs by about a nat's worth here).
  const double want[] = {0.4, 10, 6};
  const double tol[] = {0.1, 1.5, 1.5};
  ASSERT_EQ(r.knobs.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(r.knobs[i].value, want[i], tol[i]) << r.knobs[i].name << "\n" << to_text(r);
  EXPECT_LT(r.loss, 3.0) << to_text(r);
  EXPECT_EQ(r.spec.tokens, 1024);
  EXPECT_EQ(r.spec.head_dim, 64);
  EXPECT_NE(profile_yaml(r.spec, "").find("noise_scale: "), std::string::npos);
  opts.knobs = {"sink_logit", "no_such_knob"};
  EXPECT_THROW(fit_kv_cache(cache, start, opts, ctx), UsageError);
}

TEST(KvFit, IsDeterministicAcrossThreadCounts) {
  KvGeneratorSpec spec = fit_spec();
  spec.tokens = 512;
  const KvCache cache = fit_generate(spec, 3);
  FitOptions opts;
  opts.max_evaluations = 12;
  opts.tolerance = 1e9;  // a short search: judged on its bits, not its quality
  auto fit = [&](std::size_t threads) {
    ContextOptions o;
    o.seed = 1;
    o.threads = threads;
    Context ctx(o);
    return to_text(fit_kv_cache(cache, fit_spec(), opts, ctx));
  };
  EXPECT_EQ(fit(1), fit(2));
}

TEST(KvFit, UnreachableStatisticsAreADataFormatErrorNamingThem) {
  // Random Gaussian keys have a post-RoPE rank near D and no sink: the generator's rank
  // knob (noise_scale) saturates at its bound.
  KvGeometry g;
  g.layers = 1;
  g.kv_heads = 2;
  g.q_heads = 4;
  g.head_dim = 64;
  g.tokens = 512;
  g.steps = 4;
  KvCache cache = testing::random_cache(g, 3);
  cache.rope_base = 1e6;
  FitOptions opts;
  opts.max_evaluations = 40;
  Context ctx;
  try {
    fit_kv_cache(cache, fit_spec(), opts, ctx);
    FAIL() << "expected a DataFormatError";
  } catch (const DataFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot reach the cache's"), std::string::npos)
        << e.what();
  }
  g.tokens = 32;
  EXPECT_THROW(fit_kv_cache(KvCache(g), fit_spec(), opts, ctx), DataFormatError);
}

// Mean value energy |v|^2 over the needle tokens / over the rest, per KV head (values carry
// the latent sigma * z unrotated and without the key offsets).
std::vector<double> needle_energy_ratios(const KvCache& c) {
  std::vector<double> out;
  for (std::size_t h = 0; h < c.geometry().kv_heads; ++h) {
    const HeadView v = c.head(0, h);
    double in = 0, rest = 0;
    std::size_t n_in = 0;
    for (std::size_t t = 1; t < v.tokens; ++t) {
      double e = 0;
      for (std::size_t d = 0; d < v.head_dim; ++d) e += double(v.value(t)[d]) * v.value(t)[d];
      bool needle = false;
      for (const auto& n : c.needles) needle = needle || (t >= n.begin && t < n.end);
      (needle ? in : rest) += e;
      n_in += needle;
    }
    out.push_back((in / double(n_in)) / (rest / double(v.tokens - 1 - n_in)));
  }
  return out;
}

TEST(KvGeneratorNeedles, MatchedNeedleNormIsAnOrdinaryKeyLength) {
  KvGeneratorSpec spec = fit_spec();
  spec.kv_heads = 8;
  spec.q_heads = 8;
  spec.tokens = 2048;
  spec.segment_tokens = 16;  // many topics, so the ordinary tokens' energy is its expectation
  spec.local_correlation = 0.5;
  spec.needle_depths = {0.5};
  spec.needle_tokens = 32;
  double raw = 0, matched = 0;
  for (double r : needle_energy_ratios(fit_generate(spec, 1))) raw = std::max(raw, std::abs(r - 1));
  spec.needle_norm_matched = true;
  for (double r : needle_energy_ratios(fit_generate(spec, 1)))
    matched = std::max(matched, std::abs(r - 1));
  EXPECT_GT(raw, 0.4);      // one chi-square draw per needle: some needles are long keys
  EXPECT_LT(matched, 0.2);  // rescaled to an ordinary token's energy
}

TEST(KvGeneratorRope, DynamicNtkScalesTheBaseBeyondTheOriginalContext) {
  KvGeneratorSpec spec = fit_spec();
  spec.rope_base = 1e4;
  spec.head_dim = 128;
  spec.key_rank = 16;
  spec.tokens = 8192;
  spec.rope_ntk_factor = 10;
  spec.rope_original_context = 4096;
  // transformers' dynamic NTK: base (f T / L0 - (f - 1))^(D / (D - 2)) = 1e4 * 11^(128/126)
  EXPECT_NEAR(effective_rope_base(spec), 1e4 * std::pow(11.0, 128.0 / 126.0), 1e-6);
  spec.tokens = 4096;
  EXPECT_EQ(effective_rope_base(spec), 1e4);
  spec.tokens = 8192;
  spec.rope_ntk_factor = 1;
  EXPECT_EQ(effective_rope_base(spec), 1e4);
  spec.rope_ntk_factor = 10;
  spec.tokens = 1024;
  spec.rope_original_context = 512;
  EXPECT_DOUBLE_EQ(fit_generate(spec, 1).rope_base, 1e4 * std::pow(11.0, 128.0 / 126.0));
}

}  // namespace
}  // namespace lightsim::kv
