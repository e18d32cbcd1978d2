// Closed-loop bias calibration by binary search (see calibration.h, docs/thermal.md).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/lock_power.h"
#include "lightsim/prism/operating_point.h"

namespace lightsim::prism {

LockRange lock_range(const photonics::TuningSpec& tuning) {
  LIGHTSIM_CHECK(tuning.mechanism == photonics::TuningMechanism::pockels,
                 "lock_range: a heater's lock range depends on its operating point "
                 "(use prism::operating_point)");
  const double half = 0.5 * photonics::tuning_span(tuning);
  return {-half, half};
}

LockResult lock_ring(const CalibrationSpec& spec, LockRange range, double offset,
                     RandomStream& noise) {
  LockResult out;
  const double target = spec.target.si(), sigma = spec.measurement_noise.si();
  const std::int64_t top = (std::int64_t{1} << spec.bias_dac_bits) - 1;
  const LockSearch search = lock_search(spec, range);
  if (!search.feasible) {
    out.reason = search.reason;
    out.residual = offset;
    return out;
  }
  const double step = search.step, stop_width = search.stop_width;
  const auto correction = [&](std::int64_t code) {
    return range.lo + step * static_cast<double>(code);
  };
  // Each measurement gives the sign of the remaining error; the invariant is
  // error(lo) <= 0 <= error(hi) whenever the offset lies in the range and no sign is misread.
  const auto measure = [&](std::int64_t code) {
    ++out.iterations;
    return offset + correction(code) + sigma * noise.normal();
  };
  std::int64_t lo = 0, hi = top;
  while (correction(hi) - correction(lo) > stop_width && hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (measure(mid) > 0.0)
      hi = mid;
    else
      lo = mid;
  }
  std::int64_t code = lo + (hi - lo) / 2;
  // At an edge of the range, one more reading tells whether the resonance lies beyond it.
  if (lo == 0 && measure(0) > 0.0) code = 0;
  if (hi == top && measure(top) < 0.0) code = top;
  out.correction = correction(code);
  out.residual = offset + out.correction;
  if ((code == 0 || code == top) && std::abs(out.residual) > target) {
    out.reason = fmt::format(
        "resonance error {:+.3g} pm is outside the tuner's correction range [{:.3g}, {:.3g}] pm",
        offset * 1e12, -range.hi * 1e12, -range.lo * 1e12);
    return out;
  }
  out.locked = true;
  return out;
}

RowLock lock_row(const CalibrationSpec& spec, LockRange range, double c,
                 std::span<const double> raw, std::span<double> bias, std::span<LockResult> results,
                 RandomStream& noise) {
  const int n = static_cast<int>(raw.size());
  RowLock row;
  const auto neighbours = [&](int j) {
    double s = 0.0;
    if (c == 0.0) return s;
    for (int k = 0; k < n; ++k)
      if (k != j) s += std::pow(c, std::abs(j - k)) * bias[static_cast<std::size_t>(k)];
    return s;
  };
  for (int sweep = 0; sweep < spec.max_sweeps; ++sweep) {
    ++row.sweeps;
    for (int j = 0; j < n; ++j) {
      const auto u = static_cast<std::size_t>(j);
      LockResult r = lock_ring(spec, range, raw[u] + neighbours(j), noise);
      bias[u] = r.correction;
      row.max_iterations = std::max(row.max_iterations, r.iterations);
      row.iterations += r.iterations;
      row.lock_iterations += r.iterations;
      ++row.locks;
      results[u] = std::move(r);
    }
    if (c == 0.0) break;  // no coupling: one sweep leaves every ring where its lock put it
    bool settled = true;
    for (int j = 0; j < n; ++j) {
      const auto u = static_cast<std::size_t>(j);
      results[u].residual = raw[u] + bias[u] + neighbours(j);
      ++row.iterations;  // the check reads each ring once
      if (std::abs(results[u].residual + spec.measurement_noise.si() * noise.normal()) >
          spec.target.si())
        settled = false;
    }
    if (settled) return row;
  }
  if (c != 0.0)
    for (auto& r : results)
      if (r.locked && std::abs(r.residual) > spec.target.si()) {
        r.locked = false;
        r.reason =
            fmt::format("thermal crosstalk left {:+.3g} pm after {} sweeps (raise max_sweeps)",
                        r.residual * 1e12, row.sweeps);
      }
  return row;
}

CalibrationReport calibrate_bank(const photonics::DeviceSpec& device, const CalibrationSpec& spec,
                                 std::span<const double> offsets, std::uint64_t seed) {
  CalibrationReport rep;
  rep.rows = device.bank.rows;
  rep.channels = device.grid.channels;
  const std::size_t n = static_cast<std::size_t>(rep.rows) * static_cast<std::size_t>(rep.channels);
  LIGHTSIM_CHECK(offsets.size() == n, "calibrate_bank: {} offsets for {} rings", offsets.size(), n);
  const TunerOperatingPoint op = operating_point(device, spec);
  const LockRange range = op.lock;
  const bool heater = op.heater;
  const double c = heater ? device.tuning.thermal_crosstalk : 0.0;
  rep.rings.resize(n);
  std::vector<double> bias(n, 0.0);
  long iterations = 0, lock_iterations = 0, locks = 0;
  double row_time = 0.0;
  const auto d = static_cast<std::size_t>(rep.channels);
  for (int r = 0; r < rep.rows; ++r) {
    const std::size_t first = static_cast<std::size_t>(r) * d;
    RandomStream noise(seed, {0x6c6f636bULL, static_cast<std::uint64_t>(r)});  // "lock"
    const RowLock row =
        lock_row(spec, range, c, offsets.subspan(first, d), std::span(bias).subspan(first, d),
                 std::span(rep.rings).subspan(first, d), noise);
    rep.sweeps = std::max(rep.sweeps, row.sweeps);
    rep.max_iterations = std::max(rep.max_iterations, row.max_iterations);
    iterations += row.iterations;
    lock_iterations += row.lock_iterations;
    locks += row.locks;
    row_time = std::max(row_time, static_cast<double>(row.iterations) * spec.iteration_time.si());
  }
  rep.time = row_time;
  rep.energy = static_cast<double>(iterations) * spec.iteration_energy.si();
  rep.mean_iterations =
      locks > 0 ? static_cast<double>(lock_iterations) / static_cast<double>(locks) : 0.0;
  double sum2 = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const LockResult& lr = rep.rings[i];
    if (!lr.locked) {
      ++rep.failed;
      if (rep.first_failure.empty())
        rep.first_failure = fmt::format("ring (row {}, channel {}): {}", i / d, i % d, lr.reason);
      continue;
    }
    ++rep.locked;
    sum2 += lr.residual * lr.residual;
    rep.residual_max = std::max(rep.residual_max, std::abs(lr.residual));
  }
  rep.residual_rms = rep.locked > 0 ? std::sqrt(sum2 / rep.locked) : 0.0;
  const photonics::Ring ring = photonics::ring_of(device);
  rep.weight_error_max = ring.max_weight_slope() * rep.residual_max;
  if (heater) {
    // Each ring holds its operating-point power (its place in the row: thermal sharing) plus
    // its correction: P_j + bias / slope, within [0, P_max] (the lock never leaves its range).
    const double slope = photonics::tuning_slope(device.tuning);
    for (std::size_t i = 0; i < n; ++i)
      rep.heater_power += std::clamp(op.ring_power[i % d] + bias[i] / slope, 0.0, op.max_power);
  }
  return rep;
}

photonics::ImpairmentSpec with_calibration(photonics::ImpairmentSpec impairments,
                                           const CalibrationReport& report) {
  impairments.calibration_residual = Length::si(report.residual_rms);
  return impairments;
}

}  // namespace lightsim::prism
