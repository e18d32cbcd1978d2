// The power of the bias lock over a run (lock_power.h).
#include "lightsim/prism/lock_power.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "lightsim/core/json.h"

namespace lightsim::prism {

LockSearch lock_search(const CalibrationSpec& spec, LockRange range) {
  LockSearch s;
  const double target = spec.target.si();
  const std::int64_t top = (std::int64_t{1} << spec.bias_dac_bits) - 1;
  const double step = (range.hi - range.lo) / static_cast<double>(top);
  // Rounding the final code to the interval's middle costs up to half a step: the search stops
  // when the interval is within 2 target - step, so a noiseless lock ends within +-target.
  const double stop_width = 2.0 * target - step;
  s.step = step;
  s.stop_width = stop_width;
  if (!(stop_width > 0.0)) {
    s.reason = fmt::format("bias DAC step {:.3g} pm is too coarse for a +-{:.3g} pm lock",
                           step * 1e12, target * 1e12);
    return s;
  }
  // Halvings to the stop width (the larger half each time), plus one reading when the interval
  // ends at an edge.
  for (std::int64_t w = top; step * static_cast<double>(w) > stop_width && w > 1; w -= w / 2)
    ++s.halvings;
  s.needed = s.halvings + 1;
  if (s.needed > spec.max_iterations) {
    s.reason = fmt::format(
        "a +-{:.3g} pm lock over a {:.3g} pm range needs {} iterations, the bound is {}",
        target * 1e12, (range.hi - range.lo) * 1e12, s.needed, spec.max_iterations);
    return s;
  }
  s.feasible = true;
  return s;
}

LockPower lock_power(const AcceleratorSpec& a, LockRange lock, const ThermalOperatingPoint& thermal,
                     double rings) {
  const CalibrationSpec& cal = a.calibration;
  LockPower p;
  p.rings = rings;
  p.search = lock_search(cal, lock);
  p.energy_per_lock = p.search.halvings * cal.iteration_energy.si();
  p.periodic_rate = 1.0 / cal.interval.si();
  const double th = cal.temperature_threshold.si();
  const double swing = thermal.stability;
  if (2.0 * swing >= th) p.swing_rate = 4.0 * swing / (a.thermal.ambient_period.si() * th);
  const double sensors =
      std::ceil(static_cast<double>(a.device.grid.channels) / a.thermal.sensors.rings_per_sensor);
  const double sigma = a.thermal.local_walk.si();
  p.walk_rate = sensors * sigma * sigma / (th * th);
  const bool periodic = cal.trigger != RecalibrationTrigger::temperature;
  const bool temperature = cal.trigger != RecalibrationTrigger::periodic;
  p.relock_rate =
      (periodic ? p.periodic_rate : 0.0) + (temperature ? p.swing_rate + p.walk_rate : 0.0);
  if (!p.search.feasible) return p;
  p.power_per_ring = p.energy_per_lock * p.relock_rate;
  p.power = rings * p.power_per_ring;
  return p;
}

LockPower lock_power(const AcceleratorSpec& a, const CostReport& r) {
  const double rings =
      static_cast<double>(r.banks) * physical_rows(a) * a.interposer.chips * a.device.grid.channels;
  return lock_power(a, r.tuner.lock, r.thermal, rings);
}

Json to_json(const LockPower& p) {
  return {{"feasible", p.search.feasible},
          {"reason", p.search.reason},
          {"halvings", p.search.halvings},
          {"energy_per_lock_j", p.energy_per_lock},
          {"relock_rate_hz", p.relock_rate},
          {"periodic_rate_hz", p.periodic_rate},
          {"swing_rate_hz", p.swing_rate},
          {"walk_rate_hz", p.walk_rate},
          {"rings", p.rings},
          {"power_per_ring_w", p.power_per_ring},
          {"power_w", p.power}};
}

}  // namespace lightsim::prism
