// The Prism scorer against the exact projected scores: identical top-k with every impairment
// off and enough bits; the exact re-rank restores it when the hardware is impaired.
#include <gtest/gtest.h>

#include <filesystem>

#include "../kv/kv_test_util.h"
#include "lightsim/core/error.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/register.h"
#include "lightsim/kv/scorer.h"
#include "lightsim/kv/scorer_setup.h"
#include "lightsim/kv/scorer_specs.h"
#include "lightsim/prism/register.h"
#include "lightsim/prism/scorer.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

AcceleratorSpec ideal_accelerator() {
  AcceleratorSpec a = config::load_spec<AcceleratorSpec>(
      std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/accelerators/seed_fit.yaml",
      testing::shipped_configs());
  a.impairments.crosstalk = false;
  a.impairments.quantization = false;
  a.impairments.dac_errors = false;
  a.impairments.noise = false;
  a.programming.weight_bits = 24;
  a.electronics.query_bits = 24;
  return a;
}

struct Fixture {
  kv::KvCache cache;
  kv::BlockLayout layout;
  Fixture()
      : cache(kv::testing::random_cache({1, 1, 2, 64, 256 * 16, 6}, 3)),
        layout(256 * 16, kv::BlockOptions{16, 0, 0}) {}
  // Scores of every step with projection "first" (d = 32): the exact signature scorer, or
  // Prism on `a`.
  std::vector<std::vector<float>> run(const std::string& name, const AcceleratorSpec* a) {
    kv::ProjectionSource first{.dim = 32, .fit = kv::standard_projection("first")};
    auto s = name == "prism" ? make_prism_scorer(*a, first) : kv::signature_scorer(first)();
    const kv::HeadView head = cache.head(0, 0);
    s->prepare(head, layout, {0, 0, 7});
    std::vector<std::vector<float>> out;
    for (std::size_t step = 0; step < head.steps; ++step) {
      out.emplace_back(layout.blocks());
      s->score(step, out.back());
    }
    return out;
  }
};

TEST(PrismScorer, IdealHardwareGivesTheExactProjectedTopK) {
  Fixture f;
  const AcceleratorSpec a = ideal_accelerator();
  const auto exact = f.run("signature", nullptr);
  const auto prism = f.run("prism", &a);
  for (std::size_t s = 0; s < exact.size(); ++s)
    for (std::size_t k : {1, 8, 32})
      EXPECT_EQ(kv::top_k_blocks(prism[s], f.layout, k), kv::top_k_blocks(exact[s], f.layout, k))
          << "step " << s << " k " << k;
}

TEST(PrismScorer, SeedBitsLoseRankingsAndTheExactRerankRestoresThem) {
  Fixture f;
  AcceleratorSpec a = ideal_accelerator();
  a.programming.weight_bits = 3;  // coarse weights must change some rankings
  a.electronics.query_bits = 3;
  const auto exact = f.run("signature", nullptr);
  const auto coarse = f.run("prism", &a);
  int differing = 0;
  for (std::size_t s = 0; s < exact.size(); ++s)
    differing +=
        kv::top_k_blocks(coarse[s], f.layout, 32) != kv::top_k_blocks(exact[s], f.layout, 32);
  EXPECT_GT(differing, 0);
  // Re-ranking every block exactly gives the exact order whatever the optics did.
  a.impairments = photonics::ImpairmentSpec{};  // everything on
  a.selection.rerank_k = 256;
  const auto reranked = f.run("prism", &a);
  for (std::size_t s = 0; s < exact.size(); ++s)
    EXPECT_EQ(kv::top_k_blocks(reranked[s], f.layout, 32),
              kv::top_k_blocks(exact[s], f.layout, 32));
}

TEST(PrismScorer, NeedsAnAcceleratorWithMatchingChannels) {
  const AcceleratorSpec a = ideal_accelerator();
  EXPECT_THROW((void)prism_scorer(a, kv::ProjectionSource{.dim = 16}), InputError);
  EXPECT_NO_THROW((void)prism_scorer(a, kv::ProjectionSource{.dim = 32}));
}

// Scorers and projections resolve from the registry: a projection the prism module registers
// ("qat") is usable by name with the prism scorer, whose options (scorer_prism) name the
// accelerator; dim defaults to the accelerator's channels.
TEST(PrismScorer, ResolvesFromTheRegistryWithEveryRegisteredProjection) {
  Registry registry;
  kv::register_all(registry);
  register_all(registry);
  const kv::ScorerEnvironment env{&kv::projection_family(registry), testing::shipped_configs()};
  const std::vector<std::string> labels{"prism:qat", "signature:qat"};
  const std::vector<kv::ScorerOption> options{{"accelerator", "seed_fit", "--accelerator"}};
  const auto setups = kv::resolve_scorers(labels, options, kv::scorer_family(registry), env);
  ASSERT_EQ(setups.size(), 2u);
  EXPECT_EQ(setups[0].name, "prism:qat:d32");
  EXPECT_EQ(setups[1].name, "signature:qat:d32");
  // Without an accelerator the prism options are incomplete; the message names the flag.
  try {
    (void)kv::resolve_scorers(std::vector<std::string>{"prism"}, {}, kv::scorer_family(registry),
                              env);
    FAIL() << "prism without an accelerator";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--accelerator"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW((void)registry.spec("scorer_prism"));
  EXPECT_NO_THROW((void)registry.spec("scorer_faiss_ivfpq"));
}

}  // namespace
}  // namespace lightsim::prism
