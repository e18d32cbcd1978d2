// Throughput net of relocks (docs/prism.md, "Throughput net of relocks"). While a relock runs,
// the rows it locks cannot score, and a query needs every row of the bank, so the bank is
// down for each relock event's duration (rows lock in parallel; the event lasts as long as
// its slowest row: iterations x calibration.iteration_time). From a drift run
// (prism::simulate_drift, which decides when relocks trigger):
//   lock_time      = mean over relock events of the event's duration (s)
//   iterations     = lock_time / iteration_time (the slowest row's measurements per relock)
//   relock_rate    = relock events / simulated time (1/s; the initial lock at t = 0 excluded)
//   busy_fraction  = lock_time x relock_rate
//   qps_net        = qps x (1 - busy_fraction)
#pragma once

#include <string>

#include "lightsim/core/json_fwd.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {

struct RelockThroughput {
  bool available = true;  // false when the drift run stopped (TEC infeasible): no rate
  std::string reason;
  double duration = 0.0;     // s simulated
  int relocks = 0;           // relock events after t = 0
  double lock_time = 0.0;    // s, mean event duration
  double iterations = 0.0;   // per relock, slowest row
  double relock_rate = 0.0;  // events per second
  double busy_fraction = 0.0;
  double qps = 0.0;      // queries/s without relocks (the caller's rate)
  double qps_net = 0.0;  // qps x (1 - busy_fraction)
};

// `qps`: the rate the relocks interrupt (per bank or for the system; the fraction is the same).
RelockThroughput relock_throughput(const DriftRun& run, const CalibrationSpec& calibration,
                                   double duration, double qps);

Json to_json(const RelockThroughput& r);

}  // namespace lightsim::prism
