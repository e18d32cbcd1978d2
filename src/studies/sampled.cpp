// Sampled figures and their intervals (include/lightsim/studies/sampled.h).
#include "lightsim/studies/sampled.h"

#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"

namespace lightsim::studies {
namespace {

double propagated_ci(Sampled a, Sampled b) {
  const double ratio = b.value / a.value;
  return std::sqrt(b.ci95 * b.ci95 + ratio * ratio * a.ci95 * a.ci95) / std::fabs(a.value);
}

}  // namespace

double ci95_from_moments(double mean, double mean_sq, std::size_t n) {
  if (n < 2) return 0.0;
  const double nd = static_cast<double>(n);
  const double variance = std::max(0.0, (mean_sq - mean * mean) * nd / (nd - 1.0));
  return 1.96 * std::sqrt(variance / nd);
}

Sampled relative_drop(Sampled a, Sampled b) {
  LIGHTSIM_CHECK(a.value != 0, "relative_drop from a zero figure");
  return {(a.value - b.value) / a.value, propagated_ci(a, b)};
}

Sampled relative_gain(Sampled a, Sampled b) {
  LIGHTSIM_CHECK(a.value != 0, "relative_gain from a zero figure");
  return {(b.value - a.value) / a.value, propagated_ci(a, b)};
}

void set_ours(report::Claim& claim, const std::optional<Sampled>& figure) {
  if (!figure) return;
  claim.ours = figure->value;
  claim.ours_ci95 = figure->ci95;
}

}  // namespace lightsim::studies
