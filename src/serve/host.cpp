// Host (CPU) time of serving steps (host.h).
#include "lightsim/serve/host.h"

#include <algorithm>
#include <cstdint>

namespace lightsim::serve {

void HostSpec::describe(config::Schema<HostSpec>& s) {
  s.help(
      "Host (CPU) time of each batch step of a serving engine: step_base + per_sequence x "
      "sequences + per_prefill_token x prompt tokens, run between GPU steps (serial) or while "
      "the GPU runs the previous step (overlapped); docs/serving.md \"Host overhead\".");
  s.field("engine", &HostSpec::engine, "the engine and version the figures are of (a label)")
      .required();
  s.field("description", &HostSpec::description, "where the figures come from, in one line");
  s.field("step_base", &HostSpec::step_base, "host time per step").range("0 s", "1 s");
  s.field("per_sequence", &HostSpec::per_sequence,
          "host time per sequence in the step (decoding or prefilling)")
      .range("0 s", "10 ms");
  s.field("per_prefill_token", &HostSpec::per_prefill_token,
          "host time per prompt token in the step")
      .range("0 s", "1 ms");
  s.enumeration("overlap", &HostSpec::overlap,
                {{"serial", HostOverlap::serial}, {"overlapped", HostOverlap::overlapped}},
                "serial: step = gpu + host (vLLM <= 0.5 single-step scheduling); overlapped: "
                "step = max(gpu, host) (SGLang's overlap scheduler, vLLM V1 async scheduling)");
}

double host_time(const HostSpec& h, std::int64_t sequences, std::int64_t prefill_tokens) {
  return h.step_base.si() + h.per_sequence.si() * static_cast<double>(sequences) +
         h.per_prefill_token.si() * static_cast<double>(prefill_tokens);
}

double step_duration(const HostSpec& h, double gpu, double host) {
  return h.overlap == HostOverlap::overlapped ? std::max(gpu, host) : gpu + host;
}

std::string_view to_string(HostOverlap o) {
  return o == HostOverlap::serial ? "serial" : "overlapped";
}

}  // namespace lightsim::serve
