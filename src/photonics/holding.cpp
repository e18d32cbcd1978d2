// Heater holding power (see holding.h).
#include "lightsim/photonics/holding.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "lightsim/core/error.h"
#include "lightsim/photonics/weights.h"

namespace lightsim::photonics {
namespace {

// Cholesky factor L (K = L L^T, lower triangle, row-major) of the symmetric positive-definite
// n x n `k` (K = c^|i-j| with |c| < 1 is positive definite). n is a row's channel count: small.
std::vector<double> cholesky(std::vector<double> k, int n) {
  const auto at = [&](int i, int j) -> double& {
    return k[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) +
             static_cast<std::size_t>(j)];
  };
  for (int j = 0; j < n; ++j) {
    double d = at(j, j);
    for (int p = 0; p < j; ++p) d -= at(j, p) * at(j, p);
    LIGHTSIM_CHECK_AS(InputError, d > 0.0,
                      "thermal crosstalk matrix is not positive definite (|thermal_crosstalk| "
                      "must be < 1)");
    at(j, j) = std::sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double s = at(i, j);
      for (int p = 0; p < j; ++p) s -= at(i, p) * at(j, p);
      at(i, j) = s / at(j, j);
    }
  }
  return k;
}

// Solves L L^T x = b.
std::vector<double> solve(const std::vector<double>& l, std::vector<double> b, int n) {
  const auto at = [&](int i, int j) {
    return l[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) +
             static_cast<std::size_t>(j)];
  };
  const auto u = [](int i) { return static_cast<std::size_t>(i); };
  for (int i = 0; i < n; ++i) {  // L y = b
    for (int p = 0; p < i; ++p) b[u(i)] -= at(i, p) * b[u(p)];
    b[u(i)] /= at(i, i);
  }
  for (int i = n - 1; i >= 0; --i) {  // L^T x = y
    for (int p = i + 1; p < n; ++p) b[u(i)] -= at(p, i) * b[u(p)];
    b[u(i)] /= at(i, i);
  }
  return b;
}

}  // namespace

HeaterHolding heater_holding_power(const DeviceSpec& device, double bias_fraction) {
  LIGHTSIM_CHECK_AS(InputError, device.tuning.mechanism == TuningMechanism::thermo_optic,
                    "heater holding power: the device's tuner is {}, not thermo_optic",
                    to_string(device.tuning.mechanism));
  LIGHTSIM_CHECK_AS(InputError, bias_fraction >= -1.0 && bias_fraction <= 1.0,
                    "heater holding power: bias fraction {} is outside [-1, 1]", bias_fraction);
  HeaterHolding h;
  const WeightProgrammer programmer(device);
  const Ring& ring = programmer.ring();
  const double w =
      std::min({device.requirements.weight_range, -ring.weight_min(), ring.weight_max()});
  h.bias_fraction = bias_fraction;
  h.bias_weight = bias_fraction * w;
  h.bias_detuning = *ring.detuning_for_weight(h.bias_weight);
  h.rest = programmer.rest_detuning();
  h.shift = h.bias_detuning - h.rest;
  h.slope = tuning_slope(device.tuning);
  const int n = device.grid.channels;
  const std::vector<double> k = thermal_crosstalk_matrix(device.tuning, n);
  h.share = std::accumulate(k.begin(), k.end(), 0.0) / n;
  const std::vector<double> l = cholesky(k, n);
  h.power = solve(l, std::vector<double>(static_cast<std::size_t>(n), h.shift / h.slope), n);
  // ||K^-1||_inf, the largest absolute row sum of K^-1 (K^-1 is symmetric: its columns' sums).
  for (int j = 0; j < n; ++j) {
    std::vector<double> e(static_cast<std::size_t>(n), 0.0);
    e[static_cast<std::size_t>(j)] = 1.0;
    double sum = 0.0;
    for (double v : solve(l, std::move(e), n)) sum += std::abs(v);
    h.correction_gain = std::max(h.correction_gain, sum);
  }
  const auto [lo, hi] = std::minmax_element(h.power.begin(), h.power.end());
  h.min_power = *lo;
  h.max_power = *hi;
  h.mean_power = std::accumulate(h.power.begin(), h.power.end(), 0.0) / n;
  const double p_max = device.tuning.max_heater_power.si();
  if (h.min_power < 0.0 || h.max_power > p_max) {
    h.holds = false;
    h.reason = fmt::format(
        "holding weight {:+.3g} takes {:.4g} to {:.4g} mW per heater, outside [0, {:.4g}] mW",
        h.bias_weight, h.min_power * 1e3, h.max_power * 1e3, p_max * 1e3);
  }
  return h;
}

}  // namespace lightsim::photonics
