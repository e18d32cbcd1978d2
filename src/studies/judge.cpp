// The one comparison of ours with the seed's figure (include/lightsim/studies/judge.h).
#include "lightsim/studies/judge.h"

#include <cmath>

#include "lightsim/core/error.h"

namespace lightsim::studies {

namespace {

bool accepted(double seed_lo, double seed_hi, double ours, Comparison comparison, double t) {
  switch (comparison) {
    case Comparison::relative:
      return ours >= seed_lo - t * std::abs(seed_lo) && ours <= seed_hi + t * std::abs(seed_hi);
    case Comparison::absolute:
      return ours >= seed_lo - t && ours <= seed_hi + t;
    case Comparison::at_most:
      return ours <= seed_hi;
    case Comparison::at_least:
      return ours >= seed_lo;
    case Comparison::same_sign:
      return ours != 0 && (ours < 0) == (seed_hi < 0) && seed_lo * seed_hi > 0;
    case Comparison::same_order:
      return ours / seed_lo > 0 && std::abs(std::log10(ours / seed_lo)) <= t;
  }
  return false;
}

}  // namespace

report::Verdict judge(const report::SeedValue& seed, double ours_lo, double ours_hi,
                      Comparison comparison, double tolerance) {
  LIGHTSIM_CHECK_AS(InternalError, tolerance >= 0 && ours_lo <= ours_hi,
                    "judge: tolerance {} < 0 or our range [{}, {}] reversed", tolerance, ours_lo,
                    ours_hi);
  if (seed.kind == report::SeedValue::Kind::none) return report::Verdict::not_comparable;
  const bool lo = accepted(seed.lo, seed.hi, ours_lo, comparison, tolerance);
  const bool hi = accepted(seed.lo, seed.hi, ours_hi, comparison, tolerance);
  if (lo && hi) return report::Verdict::holds;
  // Part of our range is accepted when an end is, or when the range spans the accepted
  // interval (only the interval comparisons have one inside a range).
  const bool spans = (comparison == Comparison::relative || comparison == Comparison::absolute) &&
                     ours_lo < seed.lo && ours_hi > seed.hi;
  if (lo || hi || spans) return report::Verdict::holds_under_conditions;
  return report::Verdict::does_not_hold;
}

report::Verdict judge(const report::SeedValue& seed, std::optional<double> ours,
                      Comparison comparison, double tolerance) {
  if (!ours) return report::Verdict::not_comparable;
  return judge(seed, *ours, *ours, comparison, tolerance);
}

}  // namespace lightsim::studies
