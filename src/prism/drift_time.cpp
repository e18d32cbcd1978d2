// Realistic drift in time from the thermal model (drift_time.h, docs/thermal.md).
#include "lightsim/prism/drift_time.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lightsim/photonics/device.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {

DriftTimeScale drift_time_scale(const photonics::DeviceSpec& device, const ThermalSpec& thermal,
                                const CalibrationSpec& calibration) {
  const double slope = device.tuning.thermal_shift.si();  // m/K
  const double d_ring = thermal.ring_walk.si() * thermal.ring_walk.si();
  const double gw = thermal.local_walk.si() * slope;
  const double d_region = gw * gw;
  const double scan = thermal.sensors.scan_period.si();
  double relock = std::numeric_limits<double>::infinity();
  if (calibration.trigger != RecalibrationTrigger::temperature) relock = calibration.interval.si();
  if (calibration.trigger != RecalibrationTrigger::periodic && thermal.local_walk.si() > 0) {
    const double a = calibration.temperature_threshold.si() / thermal.local_walk.si();
    relock = std::min(relock, a * a);  // mean exit time from (-threshold, threshold), s
  }
  DriftTimeScale out;
  out.relock_period = Time::si(relock);
  const double d = d_ring + d_region;
  if (d <= 0) {
    // Nothing walks: the local drift is static, drawn once per state and held.
    out.time_constant = Time::si(std::numeric_limits<double>::infinity());
    out.refresh = Time::si(scan);
    return out;
  }
  // A ring walk never relocked does not settle: no stationary field to draw from.
  LIGHTSIM_CHECK_AS(UsageError, d_ring == 0 || std::isfinite(relock),
                    "impairments.thermal_drift: the per-ring walk ({} m/sqrt(s)) is never "
                    "removed (no periodic relock and no temperature trigger), so the local drift "
                    "has no time constant",
                    thermal.ring_walk.si());
  const double tau = ((d_ring > 0 ? d_ring * relock : 0.0) + d_region * scan) / d;
  out.time_constant = Time::si(tau);
  out.refresh = Time::si(std::min(scan, 0.1 * tau));
  out.ring_walk_share = d_ring / d;
  return out;
}

photonics::ImpairmentSpec with_thermal_drift(photonics::ImpairmentSpec impairments,
                                             const photonics::DeviceSpec& device,
                                             const ThermalSpec& thermal,
                                             const CalibrationSpec& calibration) {
  if (!impairments.thermal_drift) return impairments;
  const DriftTimeScale t = drift_time_scale(device, thermal, calibration);
  impairments.drift_time_constant = t.time_constant;
  impairments.drift_refresh = t.refresh;
  return impairments;
}

photonics::ImpairmentSpec kernel_impairments(const AcceleratorSpec& accelerator) {
  return with_thermal_drift(accelerator.impairments, accelerator.device, accelerator.thermal,
                            accelerator.calibration);
}

}  // namespace lightsim::prism
