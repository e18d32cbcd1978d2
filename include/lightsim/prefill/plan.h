// A parallel plan for prefill and its placement on the fabric (docs/prefill.md, "Plans").
//
// Composition, innermost rank first: TP (attention heads and dense/shared FFN columns) x CP
// (sequence) x attention-DP make one pipeline stage of W = EP x EDP GPUs; the routed experts
// are split over EP consecutive ranks and replicated EDP times (expert data parallelism:
// each replica serves the tokens of its own EP ranks); x PP (stages of contiguous layers)
// x DP (independent replicas). GPUs = W x PP x DP, attention-DP = W / (TP x CP). Ranks are
// packed contiguously in that order onto the topology, so a group of stride s over n
// members spans n x s GPUs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lightsim::prefill {

// Context-parallel attention algorithms (docs/prefill.md, "Context parallelism"):
//  ring_kv: KV blocks circulate around the CP ring (ring attention; Liu et al. 2023);
//  ring_q:  query blocks circulate and partial outputs return (pass-Q; Meta CP 2024);
//  ulysses: all-to-all from sequence to head sharding and back (DeepSpeed-Ulysses 2023);
//  hybrid:  Ulysses inside the scale-up domain, ring across domains (USP; Fang & Zhao 2024).
enum class CpAlgorithm { ring_kv, ring_q, ulysses, hybrid };
std::string_view cp_algorithm_name(CpAlgorithm a);

struct Plan {
  std::int64_t tp = 1, cp = 1, ep = 1, pp = 1, dp = 1;
  CpAlgorithm cp_algorithm = CpAlgorithm::ring_kv;
  std::int64_t microbatches = 1;  // chunked-prefill micro-batches per wave through the pipeline
  std::int64_t edp = 1;           // expert replicas per stage
  // Routed experts sharded over the TP group (each rank holds every expert's I / TP columns,
  // the FFN all-reduce sums them; no dispatch or combine), as SGLang and vLLM run MoE under
  // TP. Needs EP = TP: the TP group holds one copy of the experts, EDP copies per stage.
  bool moe_tp = false;
  std::int64_t stage() const { return ep * edp; }
  std::int64_t gpus() const { return stage() * pp * dp; }
  std::int64_t attention_dp() const { return stage() / (tp * cp); }
  bool operator==(const Plan&) const = default;
};

// "TP=8,CP=4,EP=64,EDP=1,PP=1,DP=2,CPA=ring_kv,MB=4,MOE=ep" (keys case-insensitive, any
// order, any subset). Missing keys: TP=CP=PP=MB=EDP=1, MOE=ep; EP = TP x CP (MOE=tp: EP =
// TP), DP = gpus / (EP x EDP x PP) when gpus > 0, else 1. Throws UsageError naming the bad
// key or value.
Plan parse_plan(std::string_view text, std::int64_t gpus = 0);
std::string format_plan(const Plan& plan);

}  // namespace lightsim::prefill
