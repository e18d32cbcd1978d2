// A parallel plan for a multi-GPU decode instance (docs/decode.md, "Decode at scale").
//
// Composition, innermost rank first: TP (attention heads, dense and shared FFN columns, the
// vocabulary) x DPA (attention data parallelism: DPA groups of TP ranks, each decoding its own
// sequences) make one pipeline stage of W = TP x DPA GPUs; the routed experts are split over
// EP consecutive ranks of the stage and replicated W / EP times (EP divides W), or, with
// MOE=tp, sharded over the TP group (each rank holds I / TP columns of every expert; EP = TP);
// x PP (stages of contiguous layers, PP micro-batches in flight). GPUs = TP x DPA x PP.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lightsim::decode {

struct DecodePlan {
  std::int64_t tp = 1, dpa = 1, pp = 1;
  std::int64_t ep = 0;  // 0: the stage width W for a MoE model (MOE=tp: TP), 1 for a dense one
  bool moe_tp = false;
  std::int64_t stage() const { return tp * dpa; }
  std::int64_t gpus() const { return stage() * pp; }
  bool operator==(const DecodePlan&) const = default;
};

// "TP=1,DPA=72,EP=72,PP=1,MOE=ep" (keys case-insensitive, any order, any subset). Missing
// keys: TP = PP = 1, MOE=ep; DPA = gpus / (TP x PP) when gpus > 0, else 1; EP = 0 (resolved by
// the evaluator: TP x DPA for a MoE model, TP under MOE=tp, 1 for a dense model). Throws
// UsageError naming the bad key or value.
DecodePlan parse_plan(std::string_view text, std::int64_t gpus = 0);
std::string format_plan(const DecodePlan& plan);

}  // namespace lightsim::decode
