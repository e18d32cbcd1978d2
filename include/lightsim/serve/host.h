// Host (CPU) time of each batch step of a serving engine (kind "serve_host", the `host` key of
// a serving scenario; docs/serving.md, "Host overhead"): the scheduler, the input preparation,
// the sampled tokens' return to the CPU, detokenization and the API server's work between two
// GPU steps. Per step: host = step_base + per_sequence x (sequences in the step) +
// per_prefill_token x (prompt tokens in the step). `serial` engines run it between GPU steps
// (step = gpu + host: vLLM <= 0.5 single-step scheduling); `overlapped` engines prepare step
// k+1 while the GPU runs step k (step = max(gpu, host): SGLang's overlap scheduler, vLLM V1's
// async scheduling). Presets in configs/serve_hosts/, each figure with its source. Off by
// default: a scenario without the key is timed by the GPU alone.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lightsim/core/config.h"
#include "lightsim/core/units.h"

namespace lightsim::serve {

enum class HostOverlap { serial, overlapped };

struct HostSpec {
  static constexpr std::string_view kind = "serve_host";
  static constexpr std::string_view preset_dir = "serve_hosts";
  std::string engine{};                  // the engine and version the figures are of (a label)
  std::string description{};             // where the figures come from, in one line
  Time step_base = Time::si(0);          // per step
  Time per_sequence = Time::si(0);       // per sequence in the step (decoding or prefilling)
  Time per_prefill_token = Time::si(0);  // per prompt token in the step
  HostOverlap overlap = HostOverlap::serial;
  static void describe(config::Schema<HostSpec>& s);
};

// s: the host time of a step of `sequences` sequences and `prefill_tokens` prompt tokens.
double host_time(const HostSpec& h, std::int64_t sequences, std::int64_t prefill_tokens);
// s: the step's duration from its GPU time and its host time (serial: the sum; overlapped: the
// longer of the two).
double step_duration(const HostSpec& h, double gpu, double host);

std::string_view to_string(HostOverlap o);

}  // namespace lightsim::serve
