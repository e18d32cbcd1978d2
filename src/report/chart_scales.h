// Scale settings the report adds to a chart from its table's data (render.cpp calls it per
// chart, layers included). The data itself is never changed.
#pragma once

#include "lightsim/core/json.h"
#include "lightsim/core/table.h"

namespace lightsim::report {

// - A linear quantitative x or y over a column whose only negative values are rounding
//   residuals (|min| <= 1e-9 of the largest magnitude, e.g. -9e-11 ms beside 5.6e4 ms) gets
//   domainMin = that true minimum and no nice rounding of the minimum, so the axis starts at
//   the data (printed 0) instead of Vega's rounded -0.2.
// - A nominal colour over a column with more than 10 distinct values gets the 20-colour
//   "tableau20" scheme (Vega's default has 10, so series 11+ repeat colours).
// - A strokeDash channel without a legend of its own gets a legend of short lines in each dash
//   pattern (the default symbol of a line mark with points is a filled circle, the same for
//   every entry).
// A channel that sets its own domain, scheme or legend is left alone.
void fit_scales(Json& spec, const Table& table);

}  // namespace lightsim::report
