// A small synthetic KV cache for retrieval-engine tests: one of two layers, 2 KV heads x 4
// query heads, head_dim 64, 3000 tokens, 3 decode steps, key rank 8, two 16-token needles.
#pragma once

#include "lightsim/core/context.h"
#include "lightsim/kv/generator.h"

namespace lightsim::test {

inline kv::KvCache small_kv_cache(Context& ctx) {
  kv::KvGeneratorSpec g;
  g.model_layers = 2;
  g.layers = {1};
  g.kv_heads = 2;
  g.q_heads = 4;
  g.head_dim = 64;
  g.tokens = 3000;
  g.steps = 3;
  g.key_rank = 8;
  g.needle_depths = {0.2, 0.6};
  g.needle_tokens = 16;
  return kv::generate_kv_cache(g, ctx);
}

}  // namespace lightsim::test
