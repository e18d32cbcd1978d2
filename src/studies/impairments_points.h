// Points and claims of the `impairments` study (private to src/studies; the study itself is
// impairments_study.cpp, its specs include/lightsim/studies/impairments.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "lightsim/kv/metrics.h"
#include "lightsim/studies/impairments.h"
#include "lightsim/studies/runner.h"
#include "lightsim/studies/sampled.h"

namespace lightsim::studies::impairments_detail {

using ImpairmentsRun = Run<ImpairmentsStudySpec, ImpairmentsSeedReference>;

// One row group of the points table: a (scenario, axis, value) under one compensation.
struct Point {
  std::string scenario;  // ideal | alone | combined
  std::string axis;      // none | bits | drift | crosstalk | nep | splitter_excess | nominal
  double value = 0;      // in the axis's display unit
  std::string compensation = "none";
  Compensation parts;
  ImpairmentKnobs knobs;
  std::size_t knob_point = 0;  // ordinal of (scenario, axis, value): seeds its calibration
  DriftCalibration calibration;
  std::string qat_state;  // key into the QAT projections (qat_state_key)
};

// Looks points up in the report (setup i + 1 is point i; setup 0 is the projected truth).
struct Finder {
  const std::vector<Point>& pts;
  const kv::EvalReport& rep;
  std::size_t k32;
  // Recall@32 metrics of the first point matching, or nullptr.
  const kv::KMetrics* at(const std::string& scenario, const std::string& axis, double value,
                         const std::string& comp = "none") const {
    for (std::size_t i = 0; i < pts.size(); ++i)
      if (pts[i].scenario == scenario && pts[i].axis == axis && pts[i].compensation == comp &&
          std::abs(pts[i].value - value) < 1e-9)
        return &rep.scorers[i + 1].per_k[k32];
    return nullptr;
  }
  std::optional<double> recall32(const std::string& scenario, const std::string& axis, double value,
                                 const std::string& comp = "none", bool projected = true) const {
    const kv::KMetrics* m = at(scenario, axis, value, comp);
    if (m == nullptr) return std::nullopt;
    return projected ? m->recall_projected.mean : m->recall.mean;
  }
  // The same with its 95% interval.
  std::optional<Sampled> sampled32(const std::string& scenario, const std::string& axis,
                                   double value, const std::string& comp = "none") const {
    const kv::KMetrics* m = at(scenario, axis, value, comp);
    if (m == nullptr) return std::nullopt;
    return sampled(m->recall_projected);
  }
};

// The seed's table 3.1 beside ours (projected truth, as the seed measured).
void add_claims(ImpairmentsRun& run, const Finder& f);
// What each compensation other than calibration recovers at 4 bits and the seed's drift levels.
void add_compensation_claims(ImpairmentsRun& run, const Finder& f);

}  // namespace lightsim::studies::impairments_detail
