// Median and worst of validation errors (error_summary.h).
#include "lightsim/core/error_summary.h"

#include <algorithm>
#include <cmath>

namespace lightsim::core {

ErrorSummary summarize_errors(const std::vector<double>& errors) {
  ErrorSummary s;
  s.count = errors.size();
  if (errors.empty()) return s;
  std::vector<double> a;
  a.reserve(errors.size());
  for (double e : errors) a.push_back(std::fabs(e));
  std::sort(a.begin(), a.end());
  const std::size_t n = a.size();
  s.median_abs_error = n % 2 == 1 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2]);
  const auto worst = std::max_element(
      errors.begin(), errors.end(), [](double x, double y) { return std::fabs(x) < std::fabs(y); });
  s.worst_error = *worst;
  s.worst_index = static_cast<std::size_t>(worst - errors.begin());
  return s;
}

}  // namespace lightsim::core
