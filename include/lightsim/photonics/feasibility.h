// Feasibility of a device: each check compares a computed figure with what the design needs
// and, when it fails, says why with the numbers. Infeasible is a result, not an exception.
#pragma once

#include <string>
#include <vector>

#include "lightsim/core/json_fwd.h"
#include "lightsim/photonics/device.h"

namespace lightsim::photonics {

struct FeasibilityCheck {
  std::string name;  // "aliasing", "crosstalk", "weight_range", "tuning_range", ...
  bool passed = true;
  double value = 0.0;   // the computed figure, in `unit`
  double limit = 0.0;   // what it is compared with, in `unit`
  std::string unit;     // "nm", "dB", "pm", "W", "" ...
  std::string message;  // one sentence with the numbers (also when passed)
};

struct FeasibilityReport {
  bool feasible = true;
  std::vector<FeasibilityCheck> checks;
  std::vector<std::string> reasons() const;  // messages of the failed checks
};

// The thermal budget counts the heaters' holding power (holding.h) at `bias_fraction` of the
// weight range (-1..1); the one-argument form at 0, the middle of the range (a device alone
// has no operating point; prism::cost passes its calibration.heater_bias).
FeasibilityReport check_feasibility(const DeviceSpec& device);
FeasibilityReport check_feasibility(const DeviceSpec& device, double bias_fraction);

// {"feasible": bool, "reasons": [sentences], "checks": [{name, passed, value, limit, unit,
// message}]}
Json to_json(const FeasibilityReport& report);

}  // namespace lightsim::photonics
