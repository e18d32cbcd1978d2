// Two-micro-batch overlap of one MoE decode layer (docs/decode.md, "Two-batch overlap in
// decode"). The batch runs as two halves, A and B, on one compute stream; each half's DeepEP
// low-latency dispatch and combine travel while the other half computes, at the yield points
// of DeepSeek's decode pipeline as SGLang implements it (sgl-project/sglang,
// python/sglang/srt/operations_strategy.py, _compute_moe_deepseek_blog_decode,
// tbo_delta_stages = 2; deepseek-ai/open-infra-index, "Day 6: DeepSeek-V3/R1 Inference System
// Overview": the attention split in two steps, a 5-stage pipeline). One micro-batch's layer is
// five stages, B two stages behind A:
//
//   S0 prepare:  attention norm, q/kv down- and up-projections, q_absorb, rope, cache write
//   S1 core:     attention core, v_up, o_proj, residual, FFN norm, router, top-k
//   S2 shared:   dispatch send, then the shared experts
//   S3 experts:  dispatch wait, routed experts, combine send
//   S4 output:   combine wait, weighted sum, residual
//
// and the SMs run A.S2, B.S0, A.S3, B.S1, A.S4, B.S2, A.S0', B.S3, A.S1', B.S4, ... So A's
// dispatch is in flight during A's own shared experts and B's S0, and A's combine during B's S1
// (and symmetrically for B): a micro-batch waits max(0, d - (shared + prepare)) for its
// dispatch and max(0, k - core) for its combine, and the layer of both halves takes
//
//   2 (prepare + core + shared + experts + output + max(0, d - shared - prepare)
//      + max(0, k - core)).
//
// DeepEP's low-latency kernels hold no SM while their messages are in flight (DeepEP README,
// "hook-based communication-computation overlapping method that does not occupy any SM
// resource"); their send and receive phases do (LMSYS, 2025-05-05), which this formula does not
// count. Limits: no communication gives 2 x compute; no compute gives 2 (d + k); d and k within
// their hiding stages give 2 x compute.
#pragma once

namespace lightsim::decode {

// Seconds of one micro-batch (half the batch) through one MoE layer; dispatch and combine are
// that micro-batch's transfer times.
struct DecodeTwoBatchLayer {
  double prepare = 0, core = 0, shared = 0, experts = 0, output = 0;
  double dispatch = 0, combine = 0;
};

struct DecodeTwoBatchTime {
  double layer = 0;             // both halves, seconds
  double exposed_dispatch = 0;  // both halves' dispatch wait
  double exposed_combine = 0;   // both halves' combine wait
};

DecodeTwoBatchTime decode_two_batch_layer_time(const DecodeTwoBatchLayer& l);

}  // namespace lightsim::decode
