// The on-disk KV cache format (docs/kv-data.md): a folder with
//   manifest.json   format "lightsim-kv", version 1, geometry, dtype, rope_base, layer ids,
//                   needle spans, source
//   keys.npy        [layers, kv_heads, tokens, head_dim]
//   values.npy      [layers, kv_heads, tokens, head_dim]
//   queries.npy     [layers, q_heads, steps, head_dim]
// Arrays are float32, float16 or bfloat16 (the manifest's "dtype"; every array must match it).
#pragma once

#include <cstdint>
#include <filesystem>

#include "lightsim/core/memory_budget.h"

#include "lightsim/kv/cache.h"

namespace lightsim::kv {

inline constexpr int kKvFormatVersion = 1;

// Writes `cache` to `dir` (created if needed) with its arrays stored as cache.storage.
void write_kv_cache(const std::filesystem::path& dir, const KvCache& cache);

// Reads a cache folder. Throws InputError for a missing folder or file and DataFormatError for
// a malformed manifest, an array whose dtype or shape disagrees with the manifest (the message
// names the array file, the shape or dtype found and the one expected) or an array holding a
// NaN or Inf (the message names the file and the element's index). The arrays' size in memory
// (KvGeometry::array_bytes) is checked against `memory_budget_bytes` before any is read
// (InputError naming the folder, the need and the budget).
// The geometry a cache folder's manifest declares (validated as read_kv_cache does), without
// reading its arrays: what checks before any work need (kv::check_selection).
KvGeometry read_kv_geometry(const std::filesystem::path& dir);

KvCache read_kv_cache(const std::filesystem::path& dir,
                      std::uint64_t memory_budget_bytes = default_memory_budget());

}  // namespace lightsim::kv
