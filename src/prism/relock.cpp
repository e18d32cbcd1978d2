// Throughput net of relocks (see relock.h).
#include "lightsim/prism/relock.h"

#include <algorithm>

#include "lightsim/core/json.h"

namespace lightsim::prism {

RelockThroughput relock_throughput(const DriftRun& run, const CalibrationSpec& calibration,
                                   double duration, double qps) {
  RelockThroughput r;
  r.qps = qps;
  if (!run.feasible) {
    r.available = false;
    r.reason = run.reason;
    return r;
  }
  r.duration = duration;
  double busy = 0.0;
  for (const RecalibrationEvent& e : run.events)
    if (e.trigger != "initial") {
      ++r.relocks;
      busy += e.time;
    }
  r.lock_time = r.relocks > 0 ? busy / r.relocks : 0.0;
  r.iterations = r.lock_time / calibration.iteration_time.si();
  r.relock_rate = duration > 0.0 ? r.relocks / duration : 0.0;
  r.busy_fraction = std::min(1.0, r.lock_time * r.relock_rate);
  r.qps_net = qps * (1.0 - r.busy_fraction);
  return r;
}

Json to_json(const RelockThroughput& r) {
  return {{"available", r.available},           {"reason", r.reason},
          {"drift_duration_s", r.duration},     {"relocks", r.relocks},
          {"lock_time_s", r.lock_time},         {"iterations_per_relock", r.iterations},
          {"relock_rate_per_s", r.relock_rate}, {"busy_fraction", r.busy_fraction},
          {"queries_per_second", r.qps},        {"queries_per_second_net_of_relocks", r.qps_net}};
}

}  // namespace lightsim::prism
