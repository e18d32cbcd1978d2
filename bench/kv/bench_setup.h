// Shared set-up of the kv benchmarks: one layer of a generated cache, one worker thread.
#pragma once

#include <cstdint>

#include "lightsim/core/context.h"
#include "lightsim/kv/generator.h"

namespace lightsim::kv::bench {

// One layer of the default generator (Qwen2.5-7B-like head geometry) with `kv_heads` KV heads,
// `q_heads` query heads in all and `tokens` tokens.
inline KvGeneratorSpec one_layer(std::int64_t kv_heads, std::int64_t q_heads, std::int64_t tokens) {
  KvGeneratorSpec spec;
  spec.model_layers = 1;
  spec.kv_heads = kv_heads;
  spec.q_heads = q_heads;
  spec.tokens = tokens;
  return spec;
}

inline ContextOptions one_thread() {
  ContextOptions options;
  options.threads = 1;
  return options;
}

}  // namespace lightsim::kv::bench
