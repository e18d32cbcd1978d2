// The power of the bias lock over a run (docs/prism.md, "The lock's power"): what keeping every
// ring locked costs beyond holding its bias, in closed form from the configuration, so the
// design search can price a lock precision per candidate without a drift simulation.
//
// Per ring lock: `halvings` measurements of the binary search of lock_ring (calibration.h,
// lock_search: the interval halves from the lock range to 2 target - DAC step), each costing
// calibration.iteration_energy (DAC write + monitor conversion):
//   E_lock = halvings x iteration_energy                                               [J]
// Relocks per ring and second, by calibration.trigger (the drift simulation's policy,
// thermal_sim.cpp):
//   periodic     f_p = 1 / calibration.interval
//   temperature  f_T = f_swing + f_walk, with th = calibration.temperature_threshold:
//     f_swing = 4 A / (P th) when 2 A >= th, else 0: the chip's residual swing after the TEC
//       loops (amplitude A = ThermalOperatingPoint::stability, period P =
//       thermal.ambient_period) moves the sensor reading by 4 A per period, and each relock
//       takes up th of it; a swing of peak-to-peak below th never triggers;
//     f_walk = n_s sigma_l^2 / th^2: the mean first-exit time of a Brownian motion of
//       diffusion sigma_l (thermal.local_walk, K/sqrt(s)) from (-th, th) is th^2 / sigma_l^2
//       (e.g. Karlin & Taylor, "A First Course in Stochastic Processes", 1975, ch. 7), and a row
//       is relocked when any of its n_s = ceil(d / sensors.rings_per_sensor) sensors moves;
//   both         f_p + f_T (the temperature relocks between the periodic ones).
//   P_lock = rings x E_lock x f                                                        [W]
// Not in it: the re-reads of a thermo-optic row's extra sweeps (thermal crosstalk; at most
// max_sweeps - 1 per ring and relock), the one edge reading of an offset at the end of the
// range; the heaters' correction power, whose mean over zero-mean offsets about the bias is
// zero beyond the holding power (cost.h static_tuning: P is linear in the shift); the lock's
// own heat in the TEC's load (micro-watts against watts). With zero drift (A = 0, sigma_l = 0)
// and the temperature trigger, P_lock = 0.
#pragma once

#include <string>

#include "lightsim/core/json_fwd.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {

// The binary search of lock_ring (calibration.h) over `range` to +-spec.target, without a
// ring: `halvings` = the measurements that halve the search interval (the larger half each
// time, so an upper bound: an odd interval's smaller half can save one), `needed` = halvings +
// the one reading at an edge of the range, the bound checked against max_iterations.
// Infeasible (with the reason) when the bias DAC step is too coarse for the target (halvings =
// needed = 0) or `needed` exceeds max_iterations. lock_ring refuses exactly these locks.
struct LockSearch {
  bool feasible = false;
  int halvings = 0;
  int needed = 0;
  double step = 0;        // m, one bias DAC code over the range
  double stop_width = 0;  // m, the search stops within it: 2 target - step
  std::string reason;
};
LockSearch lock_search(const CalibrationSpec& spec, LockRange range);

struct LockPower {
  LockSearch search;           // the lock's binary search (feasible, halvings, needed)
  double energy_per_lock = 0;  // J per ring lock, halvings x iteration_energy
  double periodic_rate = 0;    // relocks per ring and second, periodic trigger
  double swing_rate = 0;       // temperature trigger, from the chip's residual swing
  double walk_rate = 0;        // temperature trigger, from the sensors' local walk
  double relock_rate = 0;      // the sum that applies under calibration.trigger
  double power_per_ring = 0;   // W
  double rings = 0;            // every ring of every bank
  double power = 0;            // W, rings x power_per_ring (0 when the search is infeasible)
};

// `lock`: the tuner's lock range at its operating point (TunerOperatingPoint::lock);
// `thermal`: the chip's steady state (its stability is the residual swing A); `rings`: all
// rings locked.
LockPower lock_power(const AcceleratorSpec& a, LockRange lock, const ThermalOperatingPoint& thermal,
                     double rings);

// The lock of a whole accelerator from its cost report `r` (cost(a)): every ring of every bank on
// every chip (banks x physical rows x chips x channels), at the tuner's lock range and the chip's
// steady state. `lightsim prism cost` and the design search price the lock through it.
LockPower lock_power(const AcceleratorSpec& a, const CostReport& r);

// {feasible, reason, halvings, energy_per_lock_j, relock_rate_hz (per ring), periodic_rate_hz,
// swing_rate_hz, walk_rate_hz, rings, power_per_ring_w, power_w}
Json to_json(const LockPower& p);

}  // namespace lightsim::prism
