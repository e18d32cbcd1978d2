// The summary of a validation: median |error| and the worst signed error over the rows compared
// (serve validate, decode validate, the prefill study's validation tables). One definition, so
// every validation reports the same statistic.
#pragma once

#include <cstddef>
#include <vector>

namespace lightsim::core {

struct ErrorSummary {
  std::size_t count = 0;        // rows summarised
  double median_abs_error = 0;  // median of |error| (mean of the middle two for an even count)
  double worst_error = 0;       // the error of largest |error|, its sign kept
  std::size_t worst_index = 0;  // its index in the input (the first one on ties)
};

// Summary of `errors` (relative errors, ours / measured - 1, any sign). Empty input gives
// count 0 and zeros.
ErrorSummary summarize_errors(const std::vector<double>& errors);

}  // namespace lightsim::core
