// Two-micro-batch overlap of one MoE layer (docs/prefill.md, "Two-micro-batch overlap").
// The layer's batch runs as two halves, A and B, on one compute stream; the expert
// all-to-all of one half runs on the communication stream under the other's compute, at the
// yield points SGLang's prefill strategy sets (sgl-project/sglang,
// python/sglang/srt/operations_strategy.py, _compute_moe_deepseek_blog_prefill: attention,
// gate, dispatch send | dispatch wait, routed experts, combine send | shared experts, combine
// wait). In the steady state a layer is four stages, each a compute part beside one transfer:
//
//   stage 1: B shared experts + B attention   beside  A dispatch
//   stage 2: A routed experts                 beside  B dispatch
//   stage 3: B routed experts + A shared      beside  A combine
//   stage 4: A attention                      beside  B combine
//
// Communication kernels occupy SMs: DeepEP's normal-mode kernels hold `sm_share` of the
// GPU's SMs for as long as a transfer runs, so compute beside it proceeds at (1 - sm_share)
// of its full-GPU rate. A stage with compute c and transfer x therefore takes
//
//   t = max(x, c + sm_share x)
//
// (compute finishes under the transfer when c <= (1 - sm_share) x; otherwise the rest runs
// on the whole GPU after it), and the layer's exposed communication is
// sum_i max(x_i - c_i, sm_share x_i). Limits: sm_share = 0 and balanced halves give the ideal
// max(C, X); communication much shorter than compute exposes sm_share X; much longer exposes
// X - C; sm_share = 1 hides nothing (C + X).
#pragma once

namespace lightsim::prefill {

// Seconds per half micro-batch (full-GPU compute times; transfer times at the bandwidth the
// communication kernels reach on their SMs).
struct TwoBatchLayer {
  double attention = 0;  // attention, projections, norms, gate: everything before dispatch
  double shared = 0;     // shared experts (run between the combine send and its wait)
  double experts = 0;    // routed-expert GEMMs of the most loaded rank
  double dispatch = 0;
  double combine = 0;
  double sm_share = 0;  // share of the SMs the communication kernels hold while they run, [0, 1]
  // GEMM kernels capped at (1 - sm_share) of the SMs for the whole layer, as SGLang runs
  // DeepGEMM under two-batch overlap; `attention_gemm` is the GEMM part of `attention` (shared
  // and routed experts are GEMMs throughout).
  bool gemm_sm_cap = false;
  double attention_gemm = 0;
};

struct TwoBatchTime {
  double layer = 0;             // both halves, seconds
  double exposed_dispatch = 0;  // part of the two dispatches not hidden
  double exposed_combine = 0;   // part of the two combines not hidden
};

TwoBatchTime two_batch_layer_time(const TwoBatchLayer& l);

}  // namespace lightsim::prefill
