// The abstract Monte-Carlo and the physical model beside it (montecarlo.h).
#include "lightsim/prism/montecarlo.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "lightsim/core/error.h"
#include "lightsim/core/rng.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/prism/drift_time.h"
#include "lightsim/prism/programming.h"
#include "lightsim/prism/readout.h"

namespace lightsim::prism {
namespace {

constexpr std::uint64_t kSignatureStream = 0x414d4353;  // "AMCS"
constexpr std::uint64_t kNoiseStream = 0x414d4357;      // "AMCW"

// Indices of the k highest scores, ties by lower index.
std::vector<std::size_t> top_k(std::span<const float> s, std::size_t k) {
  std::vector<std::size_t> idx(s.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  k = std::min(k, idx.size());
  std::partial_sort(
      idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
      [&](std::size_t a, std::size_t b) { return s[a] > s[b] || (s[a] == s[b] && a < b); });
  idx.resize(k);
  std::sort(idx.begin(), idx.end());
  return idx;
}

double recall(std::span<const float> scores, std::span<const float> truth, std::size_t k) {
  const auto a = top_k(scores, k), b = top_k(truth, k);
  std::vector<std::size_t> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return static_cast<double>(both.size()) / static_cast<double>(a.size());
}

std::vector<float> exact_scores(std::span<const float> s, std::span<const float> q, int d) {
  const std::size_t n = s.size() / static_cast<std::size_t>(d);
  std::vector<float> out(n);
  for (std::size_t r = 0; r < n; ++r) {
    double acc = 0;
    for (int j = 0; j < d; ++j) acc += static_cast<double>(s[r * d + j]) * q[j];
    out[r] = static_cast<float>(acc);
  }
  return out;
}

RecallEstimate estimate(const std::vector<double>& per_trial) {
  const double n = static_cast<double>(per_trial.size());
  double mean = 0, var = 0;
  for (double v : per_trial) mean += v / n;
  for (double v : per_trial) var += (v - mean) * (v - mean) / std::max(1.0, n - 1);
  return {mean, 1.96 * std::sqrt(var / n)};
}

}  // namespace

double abstract_recall(std::span<const float> sig, std::span<const float> q, int d, int bits,
                       WeightLevels levels, double sigma, std::span<const float> noise, int k) {
  LIGHTSIM_CHECK(d > 0 && sig.size() % static_cast<std::size_t>(d) == 0 &&
                     q.size() == static_cast<std::size_t>(d) &&
                     (noise.empty() || noise.size() == sig.size()),
                 "abstract_recall: signatures [N, d], query [d], noise [N, d] or empty");
  float m = 0.0f;
  for (float v : sig) m = std::max(m, std::abs(v));
  std::vector<float> w(sig.size());
  for (std::size_t i = 0; i < sig.size(); ++i)
    w[i] = static_cast<float>(quantize_weight(m > 0 ? sig[i] / m : 0.0, bits, levels) +
                              (noise.empty() ? 0.0 : sigma * noise[i]));
  return recall(exact_scores(w, q, d), exact_scores(sig, q, d), static_cast<std::size_t>(k));
}

AcceleratorSpec at_dim(const AcceleratorSpec& a, int dim) {
  AcceleratorSpec r = a;
  r.device.grid.channels = dim;
  return r;
}

AcceleratorSpec abstract_equivalent(const AcceleratorSpec& a, int dim) {
  AcceleratorSpec r = at_dim(a, dim);
  r.electronics.query_encoding = QueryEncoding::balanced;
  r.electronics.query_bits = 16;
  const double sigma = a.impairments.weight_noise;
  photonics::ImpairmentSpec& off = r.impairments;
  off = photonics::ImpairmentSpec{};
  off.crosstalk = off.quantization = off.dac_errors = off.heater_crosstalk = off.noise = false;
  off.weight_noise = sigma;
  return r;
}

double physical_recall(const AcceleratorSpec& a, std::span<const float> sig,
                       std::span<const float> queries, int bits, int k, std::uint64_t seed,
                       std::uint64_t trial) {
  const int d = a.device.grid.channels;
  const std::size_t du = static_cast<std::size_t>(d);
  LIGHTSIM_CHECK(sig.size() % du == 0 && queries.size() % du == 0 && !queries.empty(),
                 "physical_recall: signatures [N, {}] and queries [Q, {}]", d, d);
  const BankWeights bank =
      map_signatures(sig, d, a.device.requirements.weight_range, bits, a.programming.weight_levels);
  photonics::MvmKernel kernel(a.device, kernel_impairments(a), bank.weights, seed, trial);
  QueryReadout readout(a, bank);
  std::vector<float> out(sig.size() / du);
  const std::size_t nq = queries.size() / du;
  double sum = 0;
  for (std::size_t i = 0; i < nq; ++i) {
    const std::span<const float> q = queries.subspan(i * du, du);
    RandomStream noise(seed, {kNoiseStream, trial, static_cast<std::uint64_t>(i) + 1});
    readout.read(kernel, q, noise, out);
    sum += recall(out, exact_scores(sig, q, d), static_cast<std::size_t>(k));
  }
  return sum / static_cast<double>(nq);
}

std::vector<MonteCarloPoint> abstract_montecarlo(const AcceleratorSpec& a,
                                                 const MonteCarloOptions& o) {
  LIGHTSIM_CHECK_AS(
      InputError,
      o.dim > 0 && o.rows > 0 && o.top_k > 0 && o.top_k <= o.rows && o.trials > 1 && o.queries > 0,
      "abstract Monte-Carlo: dim, rows, queries > 0, trials > 1, 0 < top_k <= rows");
  const std::size_t d = static_cast<std::size_t>(o.dim), n = static_cast<std::size_t>(o.rows);
  std::vector<MonteCarloPoint> points;
  for (int bits : o.bits)
    for (double sigma : o.weight_noise) {
      AcceleratorSpec noisy = a;
      noisy.impairments.weight_noise = sigma;
      const AcceleratorSpec model = abstract_equivalent(noisy, o.dim);
      const AcceleratorSpec impaired = at_dim(noisy, o.dim);
      MonteCarloPoint p{.bits = bits, .weight_noise = sigma};
      std::vector<double> ra, rm, ri;
      for (int t = 0; t < o.trials; ++t) {
        const auto trial = static_cast<std::uint64_t>(t);
        RandomStream draws(o.seed, {kSignatureStream, trial});
        std::vector<float> sig(n * d), q(d * static_cast<std::size_t>(o.queries));
        draws.fill_normal(std::span<float>(sig));
        draws.fill_normal(std::span<float>(q));
        std::vector<float> z;
        if (sigma > 0) {
          z.resize(sig.size());
          RandomStream(o.seed, {kNoiseStream, trial}).fill_normal(std::span<float>(z));
        }
        double sa = 0;
        for (int k = 0; k < o.queries; ++k)
          sa += abstract_recall(sig, std::span<const float>(q).subspan(k * d, d), o.dim, bits,
                                a.programming.weight_levels, sigma, z, o.top_k);
        ra.push_back(sa / o.queries);
        rm.push_back(physical_recall(model, sig, q, bits, o.top_k, o.seed, trial));
        ri.push_back(physical_recall(impaired, sig, q, bits, o.top_k, o.seed, trial));
      }
      p.abstract = estimate(ra);
      p.model = estimate(rm);
      p.impaired = estimate(ri);
      points.push_back(p);
    }
  return points;
}

}  // namespace lightsim::prism
