// Helpers shared by the retrieval studies (impairments, context, needle); private to the
// studies module.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/kv/generator.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/studies/chart.h"

namespace lightsim::studies::support {

// Retrieval options of a study: ks, block size (sink 4 and recent window 512 tokens, the kv
// defaults), kv's projection `projection` (d = dim) fitted once per head and shared by every
// projected setup, no sparse attention output error (the studies do not report it).
kv::EvalOptions retrieval_options(const std::vector<std::int64_t>& ks, std::int64_t block_tokens,
                                  const std::string& projection, std::size_t dim);

// The ideal (noiseless, full-precision) signature scorer and the Prism scorer on `accelerator`,
// both of dimension d with their projection from `projection` (default: the evaluation's
// shared projection).
kv::ScorerSetup signature_setup(std::string name, std::size_t d,
                                kv::ProjectionSource projection = {});
kv::ScorerSetup prism_setup(std::string name, const prism::AcceleratorSpec& accelerator,
                            std::size_t d, kv::ProjectionSource projection = {});

// Refuses the synthetic cache `workload` generates, and its evaluation, when they need more
// than `budget_bytes` (kv::require_generator_memory: keys and values of tokens x layers x KV
// heads x head_dim floats and the decode queries, plus on each of `threads` worker threads the
// larger of the generator's latents and the evaluation's per-head buffers,
// kv::evaluation_thread_bytes), the InputError led by `key`, the study key that sizes it (a
// study's Definition::require_memory).
// `held_bytes`: what the study holds while this cache is generated and evaluated (another cache).
void require_cache_memory(const kv::KvGeneratorSpec& workload, std::uint64_t budget_bytes,
                          std::string_view key, std::size_t threads, std::uint64_t held_bytes = 0);

// require_cache_memory of `workload` at the longest of `contexts` (tokens), led by "contexts":
// the studies that generate one cache per context hold one at a time.
void require_context_memory(const kv::KvGeneratorSpec& workload,
                            const std::vector<std::int64_t>& contexts, std::uint64_t budget_bytes,
                            std::size_t threads);

// Index of k in ks (InternalError if absent).
std::size_t k_index(const std::vector<std::int64_t>& ks, std::int64_t k);

// A line chart over a table (title and table left to the caller): rows kept by `filter` (a
// Vega expression on `datum`), x = `x` (quantitative), y = each of `y_fields` (folded into a
// series `truth`), colour by `color` and dash by `dash` (empty: none).
Chart line_chart(const std::string& filter, const std::string& x, const std::string& x_title,
                 const std::vector<std::string>& y_fields, const std::string& y_title,
                 const std::string& color, const std::string& dash, bool log_x = false);

}  // namespace lightsim::studies::support
