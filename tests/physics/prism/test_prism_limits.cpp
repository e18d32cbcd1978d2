// Analytic limits of the Prism scorer and timeline.
//  - Ideal hardware (no impairments, 24-bit weights and queries): the balanced output after the
//    digital offset is sum_j w_j x_j - sum_j w_j / 2 = (w . q) / (2 max|q|) with
//    w = range sig / max|sig|, so score = range / (2 max|sig| max|Pq|) x (Pq . sig): exactly
//    proportional to the exact projected score (Pq . sig).
//  - Optical propagation: a zero-length path and an infinitely fast modulator leave only the
//    row's bus, d x ring_pitch x n_g / c.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "../../unit/kv/kv_test_util.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/register.h"
#include "lightsim/kv/scorer_specs.h"
#include "lightsim/prism/scorer.h"
#include "lightsim/prism/timing.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

TEST(PrismLimits, IdealScoresAreProportionalToTheExactProjectedScores) {
  AcceleratorSpec a = load_accelerator("seed_fit", testing::shipped_configs());
  a.impairments.crosstalk = false;
  a.impairments.quantization = false;
  a.impairments.dac_errors = false;
  a.impairments.noise = false;
  a.programming.weight_bits = 24;
  a.electronics.query_bits = 24;
  const kv::KvCache cache = kv::testing::random_cache({1, 1, 1, 32, 64 * 16, 3}, 8);
  const kv::BlockLayout layout(64 * 16, kv::BlockOptions{16, 0, 0});
  // P = identity on the first 32 of 32 channels.
  const kv::ProjectionSource first{.dim = 32, .fit = kv::standard_projection("first")};
  auto exact = kv::signature_scorer(first)();
  auto prism = make_prism_scorer(a, first);
  const kv::HeadView head = cache.head(0, 0);
  exact->prepare(head, layout, {0, 0, 1});
  prism->prepare(head, layout, {0, 0, 1});
  std::vector<float> e(layout.blocks()), p(layout.blocks());
  for (std::size_t step = 0; step < 3; ++step) {
    exact->score(step, e);
    prism->score(step, p);
    // Fit the ratio on the largest exact score, then check every block against it.
    const std::size_t ref = static_cast<std::size_t>(
        std::max_element(e.begin(), e.end(),
                         [](float x, float y) { return std::abs(x) < std::abs(y); }) -
        e.begin());
    const double ratio = p[ref] / e[ref];
    EXPECT_GT(ratio, 0.0);
    const double scale = std::abs(e[ref]);
    for (std::size_t b = 0; b < e.size(); ++b)
      EXPECT_NEAR(p[b], ratio * e[b], 1e-4 * scale * ratio) << "block " << b;
  }
}

TEST(PrismLimits, OpticalPropagationReducesToTheBusDelay) {
  AcceleratorSpec a = load_accelerator("seed_fit", testing::shipped_configs());
  a.device.path.waveguide_length = Length::si(0.0);
  a.electronics.modulator_bandwidth = Frequency::si(1e30);
  const Timeline t = timeline(a);
  const double bus =
      a.device.grid.channels * a.area.ring_pitch.si() * a.device.ring.n_g / 299792458.0;
  EXPECT_NEAR(t.optical_prop, bus, 1e-12 * bus + 1e-27);
}

}  // namespace
}  // namespace lightsim::prism
