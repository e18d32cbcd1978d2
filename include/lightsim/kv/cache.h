// KV caches of a decoder-only transformer, per (layer, KV head), with grouped-query attention.
//
// Shapes (row-major float32 in memory, whatever the storage type on disk):
//   keys, values  [layers, kv_heads, tokens, head_dim]   (post-RoPE, as attention sees them)
//   queries       [layers, q_heads, steps, head_dim]     (post-RoPE decode queries)
// GQA: query head g reads KV head g / group where group = q_heads / kv_heads (the Hugging Face
// `repeat_kv` convention). Token t sits at position t; decode step s has position tokens + s and
// attends to the `tokens` context tokens only (the cache is not extended during decode).
// `layers` may be a subset of the model's layers: `layer_ids` names them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lightsim/core/npy.h"

namespace lightsim::kv {

struct KvGeometry {
  std::size_t layers = 0;    // layers held (len(layer_ids))
  std::size_t kv_heads = 0;  // KV heads per layer
  std::size_t q_heads = 0;   // query heads per layer, a multiple of kv_heads
  std::size_t head_dim = 0;  // even (RoPE rotates pairs)
  std::size_t tokens = 0;    // context length T
  std::size_t steps = 0;     // decode queries per query head

  std::size_t group() const { return q_heads / kv_heads; }
  // Throws InputError naming `what` unless every extent is positive, q_heads % kv_heads == 0
  // and head_dim is even.
  void validate(const std::string& what) const;
  // Bytes of the keys, values and queries held in memory (float32), saturating at UINT64_MAX.
  std::uint64_t array_bytes() const;
  friend bool operator==(const KvGeometry&, const KvGeometry&) = default;
};

// A planted or annotated span of tokens [begin, end) that a query should retrieve.
struct NeedleSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
  friend bool operator==(const NeedleSpan&, const NeedleSpan&) = default;
};

// One KV head's slice of the cache plus the decode queries of its query-head group.
struct HeadView {
  std::size_t tokens = 0, head_dim = 0, group = 0, steps = 0;
  const float* keys = nullptr;     // [tokens, head_dim]
  const float* values = nullptr;   // [tokens, head_dim]
  const float* queries = nullptr;  // [group, steps, head_dim]; group g at g * steps * head_dim

  const float* key(std::size_t t) const { return keys + t * head_dim; }
  const float* value(std::size_t t) const { return values + t * head_dim; }
  const float* query(std::size_t g, std::size_t s) const {
    return queries + (g * steps + s) * head_dim;
  }
};

class KvCache {
 public:
  KvCache() = default;
  // Zero-filled arrays of the given geometry (validated).
  explicit KvCache(const KvGeometry& geometry);
  // Takes over arrays read elsewhere (no zero-filled copy first); each must hold exactly the
  // geometry's element count (InternalError otherwise).
  KvCache(const KvGeometry& geometry, std::vector<float> keys, std::vector<float> values,
          std::vector<float> queries);

  const KvGeometry& geometry() const { return geometry_; }
  HeadView head(std::size_t layer, std::size_t kv_head) const;

  float* keys(std::size_t layer, std::size_t kv_head);    // [tokens, head_dim]
  float* values(std::size_t layer, std::size_t kv_head);  // [tokens, head_dim]
  float* queries(std::size_t layer, std::size_t q_head);  // [steps, head_dim]

  std::vector<float>& key_data() { return keys_; }
  std::vector<float>& value_data() { return values_; }
  std::vector<float>& query_data() { return queries_; }
  const std::vector<float>& key_data() const { return keys_; }
  const std::vector<float>& value_data() const { return values_; }
  const std::vector<float>& query_data() const { return queries_; }

  // Metadata carried through the on-disk format (see docs/kv-data.md).
  std::vector<std::size_t> layer_ids;  // model layer index of each held layer
  double rope_base = 10000.0;          // RoPE theta; 0 = unknown (stats skip pre-RoPE figures)
  std::vector<NeedleSpan> needles;
  std::string source;  // "synthetic:<preset>" or the exporting model's name
  NpyDtype storage = NpyDtype::kFloat32;

 private:
  std::size_t kv_offset(std::size_t layer, std::size_t kv_head) const;
  KvGeometry geometry_;
  std::vector<float> keys_, values_, queries_;
};

}  // namespace lightsim::kv
