// Like-for-like reproduction of the abstract Prism Monte-Carlo (docs/prism.md, "Abstract
// Monte-Carlo"). The reference is an independent plain C++ computation of the standard abstract
// model, written here from its definition and sharing no code with lightsim:
//   per trial, N = 1024 signatures s_r and Q queries q, every entry a unit Gaussian, d = 64;
//   weights w = Qb(s / max|s|) + sigma z, Qb(x) = round(x L) / L with L = 2^(b-1) - 1
//   (2^b - 1 levels, zero one of them: lightsim's default programming.weight_levels,
//   zero_centred), z unit Gaussian per weight; score w . q; Recall@32 = |top32(w q) &
//   top32(s q)| / 32, ties by lower index.
// lightsim's physical model (prism::physical_recall on abstract_equivalent(seed_fit, 64): the
// bank's rings, balanced query encoding at 16-bit drive, impairments.weight_noise = sigma,
// every physical impairment off) scores the same s and q with its own weight-noise draws; the
// mean Recall@32 must agree within 0.02 at every point of bits 4-8 x sigma {0, 0.02, 0.05}.
// Cost: 10 trials x 8 queries per point, 15 points (~2.5 s of CPU in Release).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "lightsim/prism/montecarlo.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

// splitmix64 + Box-Muller: the reference's own generator.
struct Reference {
  std::uint64_t state;
  double uniform() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (static_cast<double>((z ^ (z >> 31)) >> 11) + 0.5) * 0x1.0p-53;
  }
  double gaussian() {
    return std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * std::numbers::pi * uniform());
  }
};

std::vector<int> top(const std::vector<double>& s, int k) {
  std::vector<int> idx(s.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(),
                    [&](int a, int b) { return s[a] > s[b] || (s[a] == s[b] && a < b); });
  idx.resize(static_cast<std::size_t>(k));
  std::sort(idx.begin(), idx.end());
  return idx;
}

// One trial's programmed weights: Qb(s / max|s|) + sigma z (z drawn once per weight, as a
// programmed bank holds them for every query of the trial).
std::vector<double> reference_weights(const std::vector<float>& s, int bits, double sigma,
                                      Reference& rng) {
  double m = 0;
  for (float v : s) m = std::max(m, std::abs(static_cast<double>(v)));
  const double levels = std::pow(2.0, bits - 1) - 1.0;
  std::vector<double> w(s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    w[i] = std::round(s[i] / m * levels) / levels + (sigma > 0 ? sigma * rng.gaussian() : 0.0);
  return w;
}

double reference_recall(const std::vector<float>& s, const std::vector<double>& w, const float* q,
                        int n, int d, int k) {
  std::vector<double> noisy(static_cast<std::size_t>(n)), exact(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    double a = 0, e = 0;
    for (int j = 0; j < d; ++j) {
      const std::size_t i = static_cast<std::size_t>(r) * d + j;
      a += w[i] * q[j];
      e += static_cast<double>(s[i]) * q[j];
    }
    noisy[static_cast<std::size_t>(r)] = a;
    exact[static_cast<std::size_t>(r)] = e;
  }
  const std::vector<int> got = top(noisy, k), want = top(exact, k);
  int hits = 0;
  for (int b : got) hits += std::binary_search(want.begin(), want.end(), b);
  return static_cast<double>(hits) / k;
}

TEST(AbstractMonteCarlo, ThePhysicalModelWithWeightNoiseReproducesTheAbstractModel) {
  const int n = 1024, d = 64, k = 32, trials = 10, queries = 8;
  AcceleratorSpec seed_fit = load_accelerator("seed_fit", testing::shipped_configs());
  ASSERT_EQ(seed_fit.programming.weight_levels, WeightLevels::zero_centred);
  for (int bits = 4; bits <= 8; ++bits)
    for (double sigma : {0.0, 0.02, 0.05}) {
      seed_fit.impairments.weight_noise = sigma;
      const AcceleratorSpec model = abstract_equivalent(seed_fit, d);
      Reference rng{0x5eedull + static_cast<std::uint64_t>(bits * 100 + sigma * 1000)};
      double ref = 0, phys = 0, ref2 = 0;
      for (int t = 0; t < trials; ++t) {
        std::vector<float> s(static_cast<std::size_t>(n) * d),
            q(static_cast<std::size_t>(d) * queries);
        for (float& v : s) v = static_cast<float>(rng.gaussian());
        for (float& v : q) v = static_cast<float>(rng.gaussian());
        const std::vector<double> w = reference_weights(s, bits, sigma, rng);
        double r = 0;
        for (int i = 0; i < queries; ++i)
          r +=
              reference_recall(s, w, q.data() + static_cast<std::size_t>(i) * d, n, d, k) / queries;
        ref += r / trials;
        ref2 += r * r / trials;
        phys += physical_recall(model, s, q, bits, k, 1, static_cast<std::uint64_t>(t)) / trials;
      }
      const double ci = 1.96 * std::sqrt(std::max(0.0, ref2 - ref * ref) / (trials - 1));
      EXPECT_NEAR(phys, ref, 0.02) << bits << " bits, sigma " << sigma;
      std::printf("bits %d sigma %.2f: reference %.4f +- %.4f (95%% CI), physical model %.4f\n",
                  bits, sigma, ref, ci, phys);
    }
}

}  // namespace
}  // namespace lightsim::prism
