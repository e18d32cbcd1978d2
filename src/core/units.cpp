// Logarithmic helpers: decibel power ratios and dBm power levels.
#include <cmath>

#include "lightsim/core/error.h"
#include "lightsim/core/units.h"

namespace lightsim {

double to_power_ratio(Decibel db) {
  return std::pow(10.0, db.si() / 10.0);
}

Decibel from_power_ratio(double ratio) {
  LIGHTSIM_CHECK_AS(UnitError, ratio > 0.0 && std::isfinite(ratio),
                    "cannot express the power ratio {} in dB: it must be positive and finite",
                    ratio);
  return Decibel::si(10.0 * std::log10(ratio));
}

Power from_dbm(double dbm) {
  LIGHTSIM_CHECK_AS(UnitError, std::isfinite(dbm), "{} dBm is not a finite power level", dbm);
  return Power::si(1e-3 * std::pow(10.0, dbm / 10.0));
}

double to_dbm(Power p) {
  LIGHTSIM_CHECK_AS(UnitError, p.si() > 0.0 && std::isfinite(p.si()),
                    "cannot express {} in dBm: the power must be positive and finite",
                    format_quantity(p.si(), dims::power));
  return 10.0 * std::log10(p.si() * 1e3);
}

}  // namespace lightsim
