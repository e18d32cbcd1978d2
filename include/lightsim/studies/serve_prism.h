// The `serve_prism` study (docs/studies.md): Prism on the decode pool at long context (issue
// #21, study 5(c)), over the serve module.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/units.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

// configs/studies/serve_prism.yaml. At each context, the scenario's traffic with prompts of that
// many tokens, offered at `prompt_tokens_rate` / context requests per second, is served twice:
// full attention and Prism-selected blocks (the scenario's prism selector and KV profile).
struct ServePrismStudySpec {
  static constexpr std::string_view kind = "serve_prism_study";
  std::string scenario = "long_context_h100";  // configs/serve/ name or file
  std::vector<std::int64_t> contexts = {8192, 32768};
  Frequency prompt_tokens_rate = Frequency::si(100000);  // prompt tokens offered per second
  std::int64_t requests = 200;                           // per run
  std::int64_t quality_steps = 4;  // decode queries of the recall measurement (KV profile)
  static void describe(config::Schema<ServePrismStudySpec>& s);
};

// Registers the study `serve_prism` (spec kind and definition; runner.h).
void add_serve_prism_study(Registry& registry);

}  // namespace lightsim::studies
