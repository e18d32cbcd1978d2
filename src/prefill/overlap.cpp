// Two-micro-batch overlap of one MoE layer: the four-stage schedule (overlap.h).
#include "lightsim/prefill/overlap.h"

#include <algorithm>

namespace lightsim::prefill {
namespace {

// Exposed time of one stage: compute c beside a transfer x that holds `share` of the SMs.
// Without the cap: t = max(x, c + share x). With the GEMM cap, the stage's GEMM part g runs at
// (1 - share) throughout and the rest n = c - g at (1 - share) only beside the transfer, which
// is taken to overlap the (already slowed) GEMMs first:
// t = max(x, g / (1 - share) + n + share max(0, x - g / (1 - share))). Exposed = t - c.
double stage_exposed(double c, double g, double x, double share, bool cap) {
  if (x <= 0) return 0.0;
  if (!cap || share <= 0) return std::max(x - c, share * x);
  if (share >= 1) return x;  // no SM left for compute beside the transfer: nothing hides
  g = std::clamp(g, 0.0, c);
  const double gc = g / (1 - share);
  const double t = std::max(x, gc + (c - g) + share * std::max(0.0, x - gc));
  return t - c;
}

}  // namespace

TwoBatchTime two_batch_layer_time(const TwoBatchLayer& l) {
  const double s = std::clamp(l.sm_share, 0.0, 1.0);
  const bool cap = l.gemm_sm_cap;
  const double ag = std::clamp(l.attention_gemm, 0.0, l.attention);
  TwoBatchTime t;
  t.exposed_dispatch = stage_exposed(l.shared + l.attention, l.shared + ag, l.dispatch, s, cap) +
                       stage_exposed(l.experts, l.experts, l.dispatch, s, cap);
  t.exposed_combine = stage_exposed(l.experts + l.shared, l.experts + l.shared, l.combine, s, cap) +
                      stage_exposed(l.attention, ag, l.combine, s, cap);
  t.layer = 2 * (l.attention + l.shared + l.experts) + t.exposed_dispatch + t.exposed_combine;
  return t;
}

}  // namespace lightsim::prefill
