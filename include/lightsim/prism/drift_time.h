// Realistic drift in time (docs/thermal.md, "Drift in time"): the time constant of the local
// drift the photonics kernel draws per query (photonics::ImpairmentSpec::drift_time_constant,
// an Ornstein-Uhlenbeck process; docs/photonics.md "Per-query drift") and the step at which it
// is refreshed, taken from the thermal model and the bias lock instead of being set by hand.
//
// After calibration the per-ring error moves through two slow parts (docs/thermal.md, "Ambient
// and drift sources", "Sensors and per-ring correction"):
//  - the per-ring walk (`ring_walk`, diffusion D_r = ring_walk^2 in m^2/s), which no sensor
//    sees and only a relock removes: a random walk restarted every relock period P;
//  - the regional walk (`local_walk` x d lambda/dT, D_g) left by the feed-forward sensor
//    correction, which reads each sensor once per `scan_period` s: restarted every s.
// A random walk of diffusion D restarted every P has the mean variance D P / 2 over a period
// and increments of variance D h over a short time h. The OU process with the same variance
// sigma^2 and the same short-time increments (2 sigma^2 h / tau) has tau = 2 sigma^2 / D; for
// the sum of the parts sigma^2 = sum_i D_i P_i / 2 and D = sum_i D_i, so
//     tau = (D_r P + D_g s) / (D_r + D_g),
// the diffusion-weighted mean restart period. P = calibration.interval for periodic relocks
// (trigger periodic or both); for temperature-triggered relocks only, the mean time the regional
// walk takes to move by the trigger threshold a, a^2 / local_walk^2 (mean exit time of a random
// walk from (-a, a): S. Redner, "A Guide to First-Passage Processes", CUP 2001, ch. 2).
// Refresh step: the correction changes once per scan period, so the field is updated every
// min(s, tau / 10). Not carried: the supply noise that simulate_drift adds to the local sigma
// in quadrature is fast (per query), but the one-time-constant field holds it like the walks.
#pragma once

#include "lightsim/core/units.h"
#include "lightsim/photonics/impairments.h"

namespace lightsim::photonics {
struct DeviceSpec;
}

namespace lightsim::prism {

struct AcceleratorSpec;
struct ThermalSpec;
struct CalibrationSpec;

struct DriftTimeScale {
  Time time_constant = Time::si(0.0);  // tau of the OU local drift (infinite: no walk at all)
  Time refresh = Time::si(0.0);        // time between field updates
  Time relock_period = Time::si(0.0);  // P
  double ring_walk_share = 0.0;        // D_r / (D_r + D_g): which part sets tau
};

DriftTimeScale drift_time_scale(const photonics::DeviceSpec& device, const ThermalSpec& thermal,
                                const CalibrationSpec& calibration);

// `impairments` with drift_time_constant and drift_refresh from drift_time_scale when its
// thermal_drift is set (the "realistic drift" option); unchanged otherwise.
photonics::ImpairmentSpec with_thermal_drift(photonics::ImpairmentSpec impairments,
                                             const photonics::DeviceSpec& device,
                                             const ThermalSpec& thermal,
                                             const CalibrationSpec& calibration);
// The impairments an accelerator's MVM kernels run with: with_thermal_drift of its own specs.
photonics::ImpairmentSpec kernel_impairments(const AcceleratorSpec& accelerator);

}  // namespace lightsim::prism
