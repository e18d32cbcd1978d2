// Die area against the reticle limit and the random-defect yield (docs/prism.md, "Die and
// yield").
//
// One die per chip: die area = the accelerator's area / interposer.chips. Feasible when it fits
// one exposure field, area.reticle_limit (26 mm x 33 mm = 858 mm^2: the full field of 193i and
// EUV step-and-scan scanners). Yield at defect density D0 (area.defect_density, per cm^2) and
// die area A: Poisson Y = exp(-A D0); negative binomial (clustered defects, Stapper) Y =
// (1 + A D0 / alpha)^-alpha, alpha = area.defect_clustering (-> Poisson as alpha -> inf).
#pragma once

#include <string>

#include "lightsim/core/json_fwd.h"
#include "lightsim/prism/accelerator.h"

namespace lightsim::prism {

struct DieReport {
  double die_area = 0;       // m^2 per chip
  double reticle_limit = 0;  // m^2
  bool fits = true;          // die_area <= reticle_limit
  int chips_needed = 1;      // ceil(total area / reticle_limit): the fewest chips that fit
  double yield_poisson = 0, yield_negative_binomial = 0;
  std::string reason;  // why it does not fit (empty when it does)
};

// `area_total`: the accelerator's area, m^2 (CostReport::area_total).
DieReport die_report(const AcceleratorSpec& a, double area_total);

Json to_json(const DieReport& d);

}  // namespace lightsim::prism
