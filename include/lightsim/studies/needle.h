// The `needle` study (../shared/SPEC.md 1.6 and 3; docs/studies.md): needle-in-a-haystack hit
// rate of Prism at 4-bit weights and 30 pm drift across needle depths and contexts, per KV
// head and for the union of a layer's KV heads, always beside the fraction of the context
// fetched (a union over many heads can fetch nearly everything).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/kv/generator.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

struct NeedleStudySpec {
  static constexpr std::string_view kind = "needle_study";
  kv::KvGeneratorSpec workload;        // needle_depths are the depths; tokens per context
  prism::AcceleratorSpec accelerator;  // used as configured (4-bit, 30 pm drift in the preset)
  std::vector<std::int64_t> contexts = {8192, 32768};
  std::int64_t block_tokens = 128;
  std::vector<std::int64_t> ks = {8, 32};
  std::string projection = "pca";
  double tolerance = 0.05;  // |ours - seed| within which the hit rate holds
  static void describe(config::Schema<NeedleStudySpec>& s);
};

// configs/references/needle_seed.yaml; printed, never an input.
struct NeedleSeedReference {
  static constexpr std::string_view kind = "needle_seed_reference";
  std::string source;
  double hit_rate = 1.0;
  std::int64_t weight_bits = 4;
  Length drift = Length::si(30e-12);
  static void describe(config::Schema<NeedleSeedReference>& s);
};

// Registers the study `needle` (its spec kind and its definition; runner.h).
void add_needle_study(Registry& registry);

}  // namespace lightsim::studies
