// Prism in the serving loop (kind "serve_prism", the `prism` key of a serving scenario;
// docs/serving.md, "Prism in the loop"): the decode steps of the pool that decodes read only the
// KV blocks a Prism accelerator selects (decode/step.h, Attention::prism: step time, GPU and
// Prism power, KV traffic), and the run reports the retrieval quality of that selection on a KV
// profile (kv::generate_kv_cache, scored by the Prism scorer of prism/scorer.h) beside the speed.
#pragma once

#include <cstdint>
#include <string_view>

#include "lightsim/core/config.h"
#include "lightsim/decode/scenario.h"
#include "lightsim/kv/generator.h"

namespace lightsim::serve {

struct ServePrismSpec {
  static constexpr std::string_view kind = "serve_prism";
  bool enabled = false;
  // The accelerator (its top_k and block_tokens), the always-read sinks and recent window, the
  // GPU <-> Prism link: decode's own spec, so a serve step is decode's step.
  decode::PrismDecodeSpec selector{};
  // The KV profile the retrieval quality is measured on; `tokens` is replaced by the context.
  // Default: the generator's defaults at one middle layer (14 of 28) and 4 decode queries.
  kv::KvGeneratorSpec workload = [] {
    kv::KvGeneratorSpec w;
    w.layers = {14};
    w.steps = 4;
    return w;
  }();
  // Context (tokens) of the quality measurement; 0 = the run's token-weighted mean decode
  // context.
  std::int64_t quality_context = 0;
  static void describe(config::Schema<ServePrismSpec>& s);
};

}  // namespace lightsim::serve
