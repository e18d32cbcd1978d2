// Exact chunked prefill through a pipeline (pipeline.h).
#include "lightsim/prefill/pipeline.h"

#include <algorithm>
#include <cmath>

namespace lightsim::prefill {

std::vector<double> chunk_attention_factors(double sequences, std::int64_t microbatches) {
  std::vector<double> f(static_cast<std::size_t>(std::max<std::int64_t>(1, microbatches)), 1.0);
  if (microbatches <= 1 || sequences <= 0) return f;
  const double len = sequences / static_cast<double>(microbatches);  // sequences per batch
  const double mean = sequences * 0.5 / static_cast<double>(microbatches);
  for (std::int64_t j = 0; j < microbatches; ++j) {
    const double lo = static_cast<double>(j) * len, hi = static_cast<double>(j + 1) * len;
    double cost = 0;
    for (double k = std::floor(lo); k < hi; k += 1.0) {
      const double a = std::max(lo, k) - k, e = std::min(hi, k + 1.0) - k;
      cost += (e * e - a * a) / 2;
    }
    f[static_cast<std::size_t>(j)] = cost / mean;
  }
  return f;
}

PipelineTimes pipeline_makespan(std::span<const double> stage, std::span<const double> attention,
                                std::span<const double> factor, std::int64_t count, double send) {
  PipelineTimes out;
  const std::size_t pp = stage.size();
  if (pp == 0 || count <= 0 || factor.empty()) return out;
  const std::size_t wave = factor.size();
  std::vector<double> done(pp, 0.0);  // C(s, j - 1) for every stage s
  for (std::int64_t j = 0; j < count; ++j) {
    const double f = factor[static_cast<std::size_t>(j) % wave] - 1.0;
    double ready = 0;  // C(s - 1, j) + send
    for (std::size_t s = 0; s < pp; ++s) {
      const double t = stage[s] + f * attention[s];
      done[s] = std::max(ready, done[s]) + t;
      ready = done[s] + send;
    }
    if (static_cast<std::size_t>(j) + 1 == wave) out.first_wave = done[pp - 1];
  }
  out.latency = done[pp - 1];
  if (static_cast<std::size_t>(count) < wave) out.first_wave = out.latency;
  return out;
}

}  // namespace lightsim::prefill
