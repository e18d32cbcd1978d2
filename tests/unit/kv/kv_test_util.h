// Small KV caches for the kv unit tests.
#pragma once

#include "lightsim/core/context.h"
#include "lightsim/kv/generator.h"

namespace lightsim::kv::testing {

// A tiny synthetic geometry: 2 layers x 2 KV heads x 4 query heads, D = 16, T = 512.
inline KvGeneratorSpec tiny_spec() {
  KvGeneratorSpec s;
  s.model = "tiny";
  s.model_layers = 2;
  s.kv_heads = 2;
  s.q_heads = 4;
  s.head_dim = 16;
  s.tokens = 512;
  s.steps = 4;
  s.key_rank = 6;
  s.outlier_pairs = 1;
  s.rope_base = 1e4;
  s.semantic_wavelength = 1024;
  s.segment_tokens = 64;
  s.needle_tokens = 8;
  s.dtype = "float32";
  return s;
}

// A cache of random Gaussian keys, values and queries (no structure).
inline KvCache random_cache(const KvGeometry& g, std::uint64_t seed) {
  KvCache c(g);
  RandomStream rng(seed, {1});
  rng.fill_normal(std::span<float>(c.key_data()));
  rng.fill_normal(std::span<float>(c.value_data()));
  rng.fill_normal(std::span<float>(c.query_data()));
  return c;
}

}  // namespace lightsim::kv::testing
