// Two-micro-batch overlap of one MoE layer: the four-stage schedule (overlap.h).
#include "lightsim/prefill/overlap.h"

#include <algorithm>

namespace lightsim::prefill {
namespace {

// Exposed time of one stage: compute c beside a transfer x that holds `share` of the SMs.
double stage_exposed(double c, double x, double share) {
  if (x <= 0) return 0.0;
  return std::max(x - c, share * x);
}

}  // namespace

TwoBatchTime two_batch_layer_time(const TwoBatchLayer& l) {
  const double s = std::clamp(l.sm_share, 0.0, 1.0);
  TwoBatchTime t;
  t.exposed_dispatch = stage_exposed(l.shared + l.attention, l.dispatch, s) +
                       stage_exposed(l.experts, l.dispatch, s);
  t.exposed_combine =
      stage_exposed(l.experts + l.shared, l.combine, s) + stage_exposed(l.attention, l.combine, s);
  t.layer = 2 * (l.attention + l.shared + l.experts) + t.exposed_dispatch + t.exposed_combine;
  return t;
}

}  // namespace lightsim::prefill
