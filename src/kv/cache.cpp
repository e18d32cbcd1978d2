#include "lightsim/kv/cache.h"

#include <utility>

#include "lightsim/core/error.h"
#include "lightsim/core/memory_budget.h"

namespace lightsim::kv {

void KvGeometry::validate(const std::string& what) const {
  LIGHTSIM_CHECK_AS(
      InputError,
      layers > 0 && kv_heads > 0 && q_heads > 0 && head_dim > 0 && tokens > 0 && steps > 0,
      "{}: every extent must be positive (layers {}, kv_heads {}, q_heads {}, "
      "head_dim {}, tokens {}, steps {})",
      what, layers, kv_heads, q_heads, head_dim, tokens, steps);
  LIGHTSIM_CHECK_AS(InputError, q_heads % kv_heads == 0,
                    "{}: q_heads ({}) must be a multiple of kv_heads ({}) for GQA", what, q_heads,
                    kv_heads);
  LIGHTSIM_CHECK_AS(InputError, head_dim % 2 == 0,
                    "{}: head_dim ({}) must be even (RoPE rotates channel pairs)", what, head_dim);
}

std::uint64_t KvGeometry::array_bytes() const {
  const std::uint64_t kv = bytes_of(bytes_of(bytes_of(layers, kv_heads), tokens), head_dim);
  const std::uint64_t q = bytes_of(bytes_of(bytes_of(layers, q_heads), steps), head_dim);
  return bytes_of(add_bytes(bytes_of(kv, 2), q), sizeof(float));
}

KvCache::KvCache(const KvGeometry& geometry, std::vector<float> keys, std::vector<float> values,
                 std::vector<float> queries)
    : geometry_(geometry),
      keys_(std::move(keys)),
      values_(std::move(values)),
      queries_(std::move(queries)) {
  geometry_.validate("KV cache geometry");
  const auto& g = geometry_;
  const std::size_t kv = g.layers * g.kv_heads * g.tokens * g.head_dim;
  LIGHTSIM_CHECK(keys_.size() == kv && values_.size() == kv &&
                     queries_.size() == g.layers * g.q_heads * g.steps * g.head_dim,
                 "KvCache: arrays of {}, {} and {} values do not fit the geometry", keys_.size(),
                 values_.size(), queries_.size());
  for (std::size_t l = 0; l < g.layers; ++l) layer_ids.push_back(l);
}

KvCache::KvCache(const KvGeometry& geometry) : geometry_(geometry) {
  geometry_.validate("KV cache geometry");
  const auto& g = geometry_;
  keys_.assign(g.layers * g.kv_heads * g.tokens * g.head_dim, 0.0f);
  values_.assign(keys_.size(), 0.0f);
  queries_.assign(g.layers * g.q_heads * g.steps * g.head_dim, 0.0f);
  for (std::size_t l = 0; l < g.layers; ++l) layer_ids.push_back(l);
}

std::size_t KvCache::kv_offset(std::size_t layer, std::size_t kv_head) const {
  const auto& g = geometry_;
  LIGHTSIM_CHECK(layer < g.layers && kv_head < g.kv_heads, "head ({}, {}) out of range", layer,
                 kv_head);
  return (layer * g.kv_heads + kv_head) * g.tokens * g.head_dim;
}

HeadView KvCache::head(std::size_t layer, std::size_t kv_head) const {
  const auto& g = geometry_;
  const std::size_t off = kv_offset(layer, kv_head);
  HeadView v;
  v.tokens = g.tokens;
  v.head_dim = g.head_dim;
  v.group = g.group();
  v.steps = g.steps;
  v.keys = keys_.data() + off;
  v.values = values_.data() + off;
  v.queries = queries_.data() + (layer * g.q_heads + kv_head * g.group()) * g.steps * g.head_dim;
  return v;
}

float* KvCache::keys(std::size_t layer, std::size_t kv_head) {
  return keys_.data() + kv_offset(layer, kv_head);
}
float* KvCache::values(std::size_t layer, std::size_t kv_head) {
  return values_.data() + kv_offset(layer, kv_head);
}
float* KvCache::queries(std::size_t layer, std::size_t q_head) {
  const auto& g = geometry_;
  LIGHTSIM_CHECK(layer < g.layers && q_head < g.q_heads, "query head ({}, {}) out of range", layer,
                 q_head);
  return queries_.data() + (layer * g.q_heads + q_head) * g.steps * g.head_dim;
}

}  // namespace lightsim::kv
