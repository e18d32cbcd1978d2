// Per-query drift: its spatial statistics and its evolution in time (Ornstein-Uhlenbeck with
// time constant tau, updated every K = max(1, floor(tau / (10 T))) queries, held in between).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"

namespace lightsim::photonics {
namespace {

constexpr int kD = 16, kRows = 64;

DeviceSpec drift_device() {
  DeviceSpec d;
  d.ring.q_loaded = 5e4;
  d.ring.extinction_ratio = Decibel::si(20.0);
  d.grid.channels = kD;
  d.grid.spacing = Length::si(0.2e-9);
  d.tuning.max_voltage = Voltage::si(20.0);
  d.tia.integration_window = Time::si(10e-9);
  return d;
}

ImpairmentSpec drift(double tau, double rings) {
  ImpairmentSpec s;
  s.crosstalk = s.quantization = s.dac_errors = s.noise = false;
  s.drift_local_sigma = Length::si(10e-12);
  s.correlation_rings = rings;
  s.drift_time_constant = Time::si(tau);
  return s;
}

std::vector<float> weights() {
  std::vector<float> w(static_cast<std::size_t>(kRows) * kD);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(0.7 * std::sin(0.37 * i));
  return w;
}

double mean_product(const std::vector<std::vector<double>>& f, int lag_q, int lag_r, int lag_j) {
  double s = 0.0;
  long n = 0;
  for (std::size_t q = 0; q + lag_q < f.size(); ++q)
    for (int r = 0; r + lag_r < kRows; ++r)
      for (int j = 0; j + lag_j < kD; ++j) {
        s += f[q][r * kD + j] * f[q + lag_q][(r + lag_r) * kD + j + lag_j];
        ++n;
      }
  return s / static_cast<double>(n);
}

TEST(Drift, UpdateIntervalFollowsTheTimeConstantAndTheQueryPeriod) {
  const auto w = weights();
  EXPECT_EQ(MvmKernel(drift_device(), drift(0.0, 0), w).drift().refresh_queries(), 1);
  EXPECT_EQ(MvmKernel(drift_device(), drift(1e-6, 0), w).drift().refresh_queries(),
            10);  // 0.1 tau / T
  ImpairmentSpec slow = drift(1e-6, 0);
  slow.query_period = Time::si(50e-9);
  EXPECT_EQ(MvmKernel(drift_device(), slow, w).drift().refresh_queries(), 2);
  EXPECT_TRUE(MvmKernel(drift_device(), drift(0.0, 0), w).drift().field().empty());  // not kept
}

TEST(Drift, RefreshStepSetsTheUpdateInterval) {
  const auto w = weights();
  ImpairmentSpec s = drift(1e-3, 0);  // tau / 10 alone would give K = 10^4
  s.drift_refresh = Time::si(1e-6);
  EXPECT_EQ(MvmKernel(drift_device(), s, w).drift().refresh_queries(), 100);
  s.drift_refresh = Time::si(1e-9);  // shorter than a query: every query
  EXPECT_EQ(MvmKernel(drift_device(), s, w).drift().refresh_queries(), 1);
}

TEST(Drift, ThermalDriftWithoutAThermalModelIsRefused) {
  ImpairmentSpec s = drift(0.0, 0);
  s.thermal_drift = true;  // only prism::with_thermal_drift sets its time constant
  EXPECT_THROW(MvmKernel(drift_device(), s, weights()), UsageError);
  s.drift_time_constant = Time::si(1e-3);  // resolved: accepted
  EXPECT_NO_THROW(MvmKernel(drift_device(), s, weights()));
}

TEST(Drift, FieldIsHeldBetweenUpdatesAndRestartsWithTheState) {
  const auto w = weights();
  MvmKernel k(drift_device(), drift(1e-6, 2.0), w);  // K = 10
  RandomStream noise(5, {1});
  std::vector<float> x(kD, 0.5f), s(kRows);
  std::vector<std::vector<double>> fields;
  for (int q = 0; q < 21; ++q) {
    k.score_with_drift(x, s, noise);
    fields.push_back(k.drift().field());
  }
  for (int q = 1; q < 10; ++q) EXPECT_EQ(fields[q], fields[0]) << q;
  EXPECT_NE(fields[10], fields[9]);
  EXPECT_NE(fields[20], fields[19]);
  k.set_state(1, 2);
  EXPECT_EQ(k.drift().field(), std::vector<double>(w.size(), 0.0));
}

TEST(Drift, OrnsteinUhlenbeckInTimeAndExponentialAlongTheBus) {
  // tau = 10 T: K = 1, consecutive queries correlate exp(-T / tau) = exp(-0.1).
  const auto w = weights();
  const double sigma = 10e-12, rho = std::exp(-1.0 / 2.0);
  MvmKernel k(drift_device(), drift(100e-9, 2.0), w);
  ASSERT_EQ(k.drift().refresh_queries(), 1);
  RandomStream noise(6, {1});
  std::vector<float> x(kD, 0.5f), s(kRows);
  std::vector<std::vector<double>> f;
  for (int q = 0; q < 600; ++q) {
    k.score_with_drift(x, s, noise);
    auto v = k.drift().field();
    for (auto& e : v) e /= sigma;
    f.push_back(std::move(v));
  }
  // Samples are correlated in time (about 20 effective per 10 lags) and along rows, so the
  // bounds are loose but far below the differences they separate.
  EXPECT_NEAR(mean_product(f, 0, 0, 0), 1.0, 0.06);
  EXPECT_NEAR(mean_product(f, 1, 0, 0), std::exp(-0.1), 0.06);
  EXPECT_NEAR(mean_product(f, 10, 0, 0), std::exp(-1.0), 0.08);
  EXPECT_NEAR(mean_product(f, 0, 0, 1), rho, 0.05);
  EXPECT_NEAR(mean_product(f, 0, 0, 3), rho * rho * rho, 0.05);
  // Rows are independent per query (docs/photonics.md, "Per-query drift").
  EXPECT_NEAR(mean_product(f, 0, 1, 0), 0.0, 0.05);
}

}  // namespace
}  // namespace lightsim::photonics
