// Internal: the operator lists of the attention and FFN blocks (layer_ops.cpp).
#pragma once

#include "lightsim/model/cost.h"
#include "op_builder.h"

namespace lightsim::model::detail {

// Token counts of one forward pass, precomputed once per layer shape.
struct Shape {
  double tokens = 0;  // N = sequences x new tokens
  double sequences = 0;
  double pairs = 0;     // causal (query, key) pairs summed over sequences
  double keys = 0;      // keys read, summed over sequences
  double kv_bytes = 0;  // bytes per cached value
};

void attention_ops(OpBuilder& b, const Transformer& m, const Shape& s, bool absorbed);
void ffn_ops(OpBuilder& b, const Transformer& m, const Shape& s, bool moe, double experts_touched);
// FLOPs of the MLA attention core in each form (for MlaForm::automatic).
double mla_flops(const Transformer& m, const Shape& s, bool absorbed);

}  // namespace lightsim::model::detail
