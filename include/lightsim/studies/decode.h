// The `decode` study (docs/studies.md): the seed's end-to-end decode claim at 128K (latency
// 2.8x lower, power 215 W -> 187 W, cost -23% on p4d) against the decode module's figures
// for every GPU x batch x context of a decode scenario.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/decode/scenario.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

struct DecodeStudySpec {
  static constexpr std::string_view kind = "decode_study";
  config::Ref<decode::DecodeScenario> scenario = "qwen2_5_7b";  // configs/decode/ or file
  std::string reference = "references/decode_seed.yaml";        // under a config root
  std::string seed_gpu = "A100 SXM4 40GB";                      // GPU name of the seed's p4d
  std::int64_t seed_batch = 1;                                  // batch of the side-by-side point
  std::vector<std::int64_t> batches;                            // empty: the scenario's
  std::vector<std::int64_t> contexts;                           // empty: the scenario's
  std::vector<double> memory_shares = {0.3, 0.5, 0.7};          // power-model sensitivity
  double tolerance = 0.10;  // |deviation| within which a figure "holds"
  static void describe(config::Schema<DecodeStudySpec>& s);
};

// Registers the study `decode` (its spec kind and its definition; runner.h).
void add_decode_study(Registry& registry);

}  // namespace lightsim::studies
