// The GPU's own KV-block selectors as baselines for a photonic selector (issue 23 part 2;
// docs/prism.md, "GPU baselines at equal recall"): the FLOPs, HBM bytes, kernels, time and
// energy of one decode step's selection on one GPU, from the calibrated kernel model
// (fabric::KernelEfficiency over configs/kernels/, the decode step's roofline rule:
// max(compute, memory) + launch per kernel; docs/decode.md).
//
// A decode step selects, for each of `batch` sequences and each of `layers` layers, the KV
// blocks of every KV head; the layers run in sequence and one layer's work (all sequences, all
// heads) is one batched kernel per stage. Per layer, with B = batch, G = KV heads, H = query
// heads, D = head dim, T = context, N = ceil(T / block_tokens) blocks:
//
//   mean_key     (block-summary scan; kv scorer mean_key, linear in q: one summed query per
//                KV head) score: bytes B G kv::mean_key_metadata_bytes, FLOPs 2 B G N D;
//                then a top-k over B G N fp32 scores (written and read: 8 B each).
//   quest        (Quest page scoring, Tang et al. ICML 2024: sum_j max(q_j min_j, q_j max_j)
//                per query head) score: bytes B G kv::quest_metadata_bytes, FLOPs 4 B H N D;
//                top-k as above.
//   dsa_indexer  (DeepSeek Sparse Attention's lightning indexer, DeepSeek-V3.2-Exp
//                inference/model.py `Indexer`, DeepGEMM fp8_mqa_logits): per sequence an index
//                query of H_i heads x d_i (wq_b from a q_input-wide latent, FP8 weights) and
//                per-head weights (weights_proj, h -> H_i); the new token's index key (wk, h ->
//                d_i); logits I_t = sum_h w_h ReLU(q_h . k_t) over all T cached index keys,
//                stored FP8 with one fp32 scale per token (d_i + 4 bytes). Kernels: the
//                projections (weights read once per layer: q_input H_i d_i + h H_i + h d_i
//                bytes; FLOPs 2 B that), the logits (bytes B T (d_i + 4), FLOPs B T (2 H_i d_i
//                + 2 H_i)), a top-index_topk over B T fp32 logits (8 B each).
//   faiss_ivfpq  (FAISS IndexIVFPQ per KV head, kv scorer faiss_ivfpq; one search per query
//                head) bytes B G kv::ivfpq_metadata_bytes (coarse centroids + probed codes);
//                FLOPs per query head: coarse 2 nlist D, look-up tables 2 D 2^nbits, scan
//                (T nprobe / nlist) pq_m adds; four kernels (coarse, tables, scan, select).
//
// Kernel time: compute = FLOPs / (peak(format) eff), eff from the table's decode attention
// curve (unmasked, size = the keys scanned) when tabled, else the roofline ceiling; memory =
// bytes / (HBM eff(bytes)); time = max(compute, memory) + launch overhead. Energy: the board
// power model over the selection's time, P(u) = idle + (tdp - idle) u with u = s_mem memory
// utilization + (1 - s_mem) compute utilization (GpuSpec::board_power, the decode step's rule,
// s_mem = memory_share), and the HBM read energy alone (bytes x hbm_energy_per_byte) as a lower
// bound. Left out (and so favourable to the GPU): overlap with other kernels is not credited
// either way; for DSA the training of the indexer and, for FAISS, the index's build and update
// as tokens arrive.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/fabric/gpu.h"

namespace lightsim::decode {

enum class GpuSelector { mean_key, quest, dsa_indexer, faiss_ivfpq };
std::string_view to_string(GpuSelector s);
// "mean_key", "quest", "dsa_indexer", "faiss_ivfpq"; anything else: InputError naming `where`.
GpuSelector gpu_selector_from(std::string_view name, std::string_view where);

// The DSA lightning indexer's shape: DeepSeek-V3.2's config.json (index_n_heads 64,
// index_head_dim 128, index_topk 2048, q_lora_rank 1536; tests/data/hf_configs/deepseek_v3_2.json).
struct DsaIndexerSpec {
  static constexpr std::string_view kind = "dsa_indexer";
  std::int64_t heads = 64;      // H_i, index_n_heads
  std::int64_t head_dim = 128;  // d_i, index_head_dim
  std::int64_t topk = 2048;     // index_topk: tokens each query attends to
  std::int64_t q_input = 1536;  // width of the latent wq_b reads (V3.2's q_lora_rank)
  double key_bytes = 1;         // FP8 index keys (e4m3)
  double scale_bytes = 4;       // one fp32 scale per token key (act_quant, block 128)
  double weight_bytes = 1;      // FP8 projection weights
  static void describe(config::Schema<DsaIndexerSpec>& s);
};

// The step being selected for.
struct SelectionShape {
  std::int64_t layers = 28, kv_heads = 4, q_heads = 28, head_dim = 128;
  std::int64_t hidden = 3584;  // model width h (DSA's weights_proj and wk read it)
  std::int64_t context = 8192, block_tokens = 128, batch = 1;
};

// FAISS IVF-PQ geometry (kv::FaissIvfPqScorerSpec resolved at the context).
struct IvfPqGeometry {
  std::int64_t nlist = 0, nprobe = 16, pq_m = 16, pq_nbits = 8;
};

struct SelectorKernel {
  std::string name{};
  double flops = 0, bytes = 0;                         // per decode step (all layers)
  double compute_time = 0, memory_time = 0, time = 0;  // s per decode step (all layers)
};

struct GpuSelectorCost {
  GpuSelector selector = GpuSelector::mean_key;
  std::string gpu{};
  std::vector<SelectorKernel> kernels{};  // per layer stage, times summed over the layers
  double flops = 0, bytes = 0;            // per decode step
  double time = 0;                        // s per decode step (layers in sequence)
  double power = 0;                       // W, board power at the selection's utilization
  double energy = 0;                      // J per decode step, power x time
  double hbm_energy = 0;     // J per decode step, bytes x HBM read energy (lower bound)
  bool memory_bound = true;  // the time's larger part is memory in every kernel
};

// The cost of `selector` for one decode step of `shape` on `gpu` (kernel table resolved).
// memory_share: s_mem of the board power model (decode scenario power.memory_share). Bad
// shape (non-positive sizes) or a GPU without tdp/idle_power/hbm_energy_per_byte: ConfigError.
GpuSelectorCost gpu_selector_cost(GpuSelector selector, const SelectionShape& shape,
                                  const fabric::GpuSpec& gpu, const DsaIndexerSpec& dsa,
                                  const IvfPqGeometry& ivfpq, double memory_share = 0.5);

}  // namespace lightsim::decode
