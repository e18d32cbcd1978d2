// The one comparison of a figure of ours with the seed's figure (docs/results.md, "Verdicts").
//
// Every study judges every numeric claim here; the tolerance comes from the study's spec and
// the comparison from the claim's declaration (ClaimRule in definition.h).
#pragma once

#include <optional>

#include "lightsim/report/result.h"

namespace lightsim::studies {

// How a figure of ours is compared with the seed's figure [lo, hi] (lo == hi for a point).
enum class Comparison {
  relative,   // within tolerance x |bound| of the figure: accepted [lo - t|lo|, hi + t|hi|]
  absolute,   // within tolerance (the claim's unit) of the figure: accepted [lo - t, hi + t]
  at_most,    // a bound: at or under hi (tolerance unused)
  at_least,   // a bound: at or over lo (tolerance unused)
  same_sign,  // a direction: the sign of the figure, nonzero (tolerance unused)
  same_order  // an order of magnitude: |log10(ours / figure)| <= tolerance (decades)
};

// The verdict of our range [ours_lo, ours_hi] (ours_lo <= ours_hi; equal for a point):
// holds when all of it is accepted, holds_under_conditions when only part is (the caller
// states the conditions: which part), does_not_hold when none is, not_comparable when the
// seed has no figure. A negative tolerance is an InternalError.
report::Verdict judge(const report::SeedValue& seed, double ours_lo, double ours_hi,
                      Comparison comparison, double tolerance);

// A point of ours; not_comparable when `ours` is empty.
report::Verdict judge(const report::SeedValue& seed, std::optional<double> ours,
                      Comparison comparison, double tolerance);

}  // namespace lightsim::studies
