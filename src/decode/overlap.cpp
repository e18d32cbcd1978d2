// Two-micro-batch overlap of one MoE decode layer: the five-stage schedule (overlap.h).
#include "lightsim/decode/overlap.h"

#include <algorithm>

namespace lightsim::decode {

DecodeTwoBatchTime decode_two_batch_layer_time(const DecodeTwoBatchLayer& l) {
  DecodeTwoBatchTime t;
  const double compute = l.prepare + l.core + l.shared + l.experts + l.output;
  t.exposed_dispatch = 2.0 * std::max(0.0, l.dispatch - (l.shared + l.prepare));
  t.exposed_combine = 2.0 * std::max(0.0, l.combine - l.core);
  t.layer = 2.0 * compute + t.exposed_dispatch + t.exposed_combine;
  return t;
}

}  // namespace lightsim::decode
