// Die area and yield (die.h).
#include "lightsim/prism/die.h"

#include <cmath>

#include <fmt/format.h>

#include "lightsim/core/json.h"

namespace lightsim::prism {

DieReport die_report(const AcceleratorSpec& a, double area_total) {
  DieReport d;
  const int chips = a.interposer.chips;
  d.die_area = area_total / chips;
  d.reticle_limit = a.area.reticle_limit.si();
  d.fits = d.die_area <= d.reticle_limit;
  d.chips_needed = static_cast<int>(std::ceil(area_total / d.reticle_limit));
  const double ad = d.die_area * 1e4 * a.area.defect_density;  // m^2 -> cm^2, x D0
  const double alpha = a.area.defect_clustering;
  d.yield_poisson = std::exp(-ad);
  d.yield_negative_binomial = std::pow(1.0 + ad / alpha, -alpha);
  if (!d.fits)
    d.reason = fmt::format(
        "a die of {:.1f} mm^2 per chip ({:.1f} mm^2 over {} chip(s)) exceeds the {:.0f} mm^2 "
        "reticle limit (area.reticle_limit: one 26 x 33 mm exposure field): it needs at least "
        "{} chips on the interposer, or field stitching",
        d.die_area * 1e6, area_total * 1e6, chips, d.reticle_limit * 1e6, d.chips_needed);
  return d;
}

Json to_json(const DieReport& d) {
  return {{"die_area_m2", d.die_area},
          {"reticle_limit_m2", d.reticle_limit},
          {"fits_reticle", d.fits},
          {"chips_needed", d.chips_needed},
          {"yield_poisson", d.yield_poisson},
          {"yield_negative_binomial", d.yield_negative_binomial},
          {"reason", d.reason}};
}

}  // namespace lightsim::prism
