// The `context` study (../shared/SPEC.md 1.6, seed table "Qwen2.5-7B, block retrieval";
// docs/studies.md): Prism block retrieval on a Qwen2.5-7B-class synthetic cache at contexts
// 4K-128K and block sizes 128 and 256: Recall@8/@32 (full-attention and projected truth), mass
// recall, needle hits, fetched fraction and HBM traffic reduction including metadata.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/kv/generator.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

struct ContextStudySpec {
  static constexpr std::string_view kind = "context_study";
  kv::KvGeneratorSpec workload;        // `tokens` is replaced by each context
  prism::AcceleratorSpec accelerator;  // used as configured (its impairments included)
  std::vector<std::int64_t> contexts = {4096, 8192, 16384, 32768, 65536, 131072};
  std::vector<std::int64_t> block_tokens = {128, 256};
  std::vector<std::int64_t> ks = {8, 32};
  std::string projection = "pca";
  double tolerance = 0.05;          // |ours - seed| (recall) within which a figure holds
  double traffic_tolerance = 0.25;  // relative, for traffic reduction
  static void describe(config::Schema<ContextStudySpec>& s);
};

// One row of the seed's table; recall figures are absent where the seed prints "-".
struct ContextSeedRow {
  static constexpr std::string_view kind = "context_seed_row";
  std::int64_t tokens = 0;
  std::int64_t blocks = 0;
  std::optional<double> recall8;
  std::optional<double> recall32;
  double traffic_reduction = 0;
  static void describe(config::Schema<ContextSeedRow>& s);
};

// configs/references/context_seed.yaml; printed, never an input.
struct ContextSeedReference {
  static constexpr std::string_view kind = "context_seed_reference";
  std::string source;
  std::int64_t recall_block_tokens = 256;   // block size the recall figures were measured at
  std::int64_t printed_block_tokens = 128;  // block size the table's block counts imply
  std::vector<ContextSeedRow> rows;
  static void describe(config::Schema<ContextSeedReference>& s);
};

// Registers the study `context` (its spec kind and its definition; runner.h).
void add_context_study(Registry& registry);

}  // namespace lightsim::studies
