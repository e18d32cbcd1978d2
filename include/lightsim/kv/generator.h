// Synthetic KV caches with the statistics real caches show (../shared/reference/kv.md,
// docs/kv-data.md "The synthetic model"). Per (layer, KV head), with r = key_rank:
//   pre-RoPE key   k_t = m + U (sigma * z_t) + o + noise_scale * n_t
//     U: D x r orthonormal basis drawn with rows weighted toward low-frequency RoPE pairs
//        (pairs whose wavelength 2 pi / theta_i is below semantic_wavelength are down-weighted
//        by the squared wavelength ratio), sigma_i ~ i^-spectrum_decay scaled so the low-rank part
//        has per-channel RMS key_scale (ShadowKV: pre-RoPE keys are low rank);
//     m: shared offset N(0, offset_scale^2) per channel (MagicPIG);
//     o: fixed outliers of magnitude outlier_scale * key_scale on both channels of the
//        outlier_pairs lowest-frequency RoPE pairs (KIVI; Jin et al. 2025);
//     z_t = sqrt(topic_weight) c_segment + sqrt(1 - topic_weight) e_t, topic segments of mean
//        length segment_tokens, e_t an AR(1) process with lag-1 correlation local_correlation
//        (spatial locality); needle tokens take a fresh latent instead.
//   token 0 (attention sink) adds sink_logit * sqrt(D) * b / |b|^2 along the query bias b
//        (with sink_logit_exact, queries carry no other component along it: below).
//   values v_t = V (sigma * z_t) + noise_scale * n'_t (no outlier channels).
//   Keys and queries then get exact RoPE (half-split pairs (i, i + D/2), theta_i =
//   rope_base^(-2i/D); position t for keys, tokens + s for decode step s).
// Queries (pre-RoPE): q = b + c U (w_s / sigma) + query_ood * key_scale * n, so the latent part
// of q . k is c w_s . z_t; c = beta sqrt(D) / r makes a key whose latent matches w_s score about
// beta nats above an unrelated one (which scores ~ N(0, beta^2 / r)). w_s is the head's target
// latent plus an AR(1) drift (correlation query_drift per step, RMS query_jitter). Head types,
// stratified within each layer by retrieval_fraction / streaming_fraction: retrieval (query head
// g of the group targets needle g mod #needles, so the group covers every needle; without
// needles a random token that changes with probability target_switch per step), streaming
// (target: the latest token; sink_logit_streaming), diffuse (low beta, random target each
// step). Layers below early_layers use the early_* fractions; only round(retrieval_group_share x
// group) query heads of a retrieval KV head target needles. Random draws come from
// ctx.stream(layer, head, ...), so
// the output is bit-identical for any thread count.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/context.h"
#include "lightsim/kv/cache.h"

namespace lightsim::kv {

struct KvGeneratorSpec {
  static constexpr std::string_view kind = "kv_synthetic";
  static constexpr std::string_view preset_dir = "kv";

  std::string model = "custom";
  // Geometry
  std::int64_t model_layers = 28;
  std::vector<std::int64_t> layers;  // model layers to generate; empty = all
  std::int64_t kv_heads = 4;
  std::int64_t q_heads = 28;
  std::int64_t head_dim = 128;
  double rope_base = 1e6;
  // Dynamic NTK RoPE scaling (off at 1): a model fine-tuned for long context this way rotates
  // a T-token context with base' = rope_base * (f T / L0 - (f - 1))^(D / (D - 2)) when
  // T > L0 = rope_original_context (transformers' LlamaDynamicNTKScalingRotaryEmbedding;
  // Llama-2-7B-80K: rope_scaling {type: dynamic, factor: 10}, L0 4096). The cache (keys,
  // queries, latent placement, manifest rope_base) then uses base'.
  double rope_ntk_factor = 1;
  std::int64_t rope_original_context = 4096;
  std::int64_t tokens = 8192;
  std::int64_t steps = 16;
  std::string dtype = "float16";
  // Keys
  std::int64_t key_rank = 32;
  double spectrum_decay = 0.8;
  double key_scale = 1.0;
  double noise_scale = 0.25;
  double offset_scale = 1.5;
  std::int64_t outlier_pairs = 4;
  double outlier_scale = 8.0;
  double semantic_wavelength = 4194304;  // tokens
  // Locality
  double segment_tokens = 512;
  double topic_weight = 0.6;
  double local_correlation = 0.9;
  // Attention
  double sink_logit = 4.0;
  double sink_logit_streaming = 7.0;
  double retrieval_fraction = 0.25;
  double streaming_fraction = 0.35;
  // Layer structure and query-head granularity (off by default: the cache is then the one the
  // knobs above alone describe, bit for bit). Model layers [0, early_layers) draw their head
  // types from early_retrieval_fraction / early_streaming_fraction instead (real early layers
  // are local: no retrieval heads, many streaming ones; Wu et al. 2024, DuoAttention).
  std::int64_t early_layers = 0;
  double early_retrieval_fraction = 0.0;
  double early_streaming_fraction = 0.5;
  // Share of a retrieval KV head's query heads that target the needles (the first
  // round(share x group) of the group); the others target a random token like a retrieval head
  // without needles. 1 = every query head of the group (Wu et al. count query heads).
  double retrieval_group_share = 1.0;
  double retrieval_logit = 14.0;
  double streaming_logit = 6.0;
  double diffuse_logit = 3.0;
  // Queries
  double query_ood = 1.0;
  double query_bias = 4.0;
  double query_drift = 0.9;
  double query_jitter = 0.5;
  double target_switch = 0.05;
  // Needles
  std::vector<double> needle_depths = {0.1, 0.5, 0.9};
  std::int64_t needle_tokens = 32;
  // Rescale each needle's latent so its key energy is an ordinary token's expectation (off by
  // default). A needle's tokens share one latent draw, so without this a needle is, by chance,
  // a run of keys up to ~1.5x longer than the rest, which wins the argmax of unrelated heads
  // through the query noise; a real needle is ordinary text whose keys are not longer.
  bool needle_norm_matched = false;
  // Draw each query's content and off-key terms orthogonal to the sink key's direction at the
  // query's position (off by default: the raw draw, bit for bit). The sink vector lies along
  // the query bias b, and the content term c U (w / sigma) has a large component along b
  // (U is weighted toward the same low-frequency pairs), so without this a head's sink logit
  // is sink_logit plus a term of several nats set by the query's target latent, which a
  // streaming head redraws at every context length (its target is the latest token; figures in
  // docs/kv-data.md, issue 19). With it, every query scores the sink sink_logit
  // (sink_logit_streaming) nats above the bias's score of an ordinary key, times the mean
  // cosine of the anchor pairs' RoPE rotation (0.99 at 32K, 0.90-0.97 at 128K for the shipped
  // bases; the same factor as without it): the sink acts
  // as a key bias that does not depend on what the query looks for (Gu et al. 2024, "When
  // attention sink emerges in language models", arXiv 2410.10781: the first token acts as a
  // key bias). Other keys' scores lose only the removed direction (one of head_dim).
  bool sink_logit_exact = false;

  static void describe(config::Schema<KvGeneratorSpec>& s);
};

// The geometry of the cache `spec` describes.
KvGeometry generated_geometry(const KvGeneratorSpec& spec);
// What one worker thread holds beside the cache's arrays while it generates one head: the
// head's latents, tokens x key_rank floats (128 B per token at key_rank 32). The arrays-only
// estimate missed it (and the evaluation's per-head buffers, kv::evaluation_thread_bytes):
// docs/hardening.md, "Limits", has the measured peaks.
std::uint64_t generator_thread_bytes(const KvGeneratorSpec& spec);
// InputError unless the cache `spec` describes fits in `memory_budget_bytes`: its arrays in
// memory (KvGeometry::array_bytes) and, on each of min(threads, layers x KV heads) worker
// threads, the larger of generator_thread_bytes and `thread_bytes` (what the caller's later
// per-head work holds per thread, e.g. kv::evaluation_thread_bytes; the two phases do not
// overlap), beside `held_bytes` the caller holds while this cache is generated (another cache).
// generate_kv_cache checks it, and a command checks it before it prepares its output folder.
// The message names the arrays, the per-thread part and what is held.
void require_generator_memory(const KvGeneratorSpec& spec, std::uint64_t memory_budget_bytes,
                              std::size_t threads = 1, std::uint64_t thread_bytes = 0,
                              std::uint64_t held_bytes = 0);

// The RoPE base the cache is rotated with: rope_base, or its dynamic-NTK scaling (above).
double effective_rope_base(const KvGeneratorSpec& spec);

// Generates the cache described by `spec` (geometry validated here too; memory checked
// against ctx.memory_budget()). With a `progress_label`, the progress per (layer, KV head) is
// reported under it (a command's or a study's own cache; not a cache a search draws many times).
KvCache generate_kv_cache(const KvGeneratorSpec& spec, Context& ctx,
                          std::string_view progress_label = {});

// Half-split RoPE in place on one vector of even length D at position `pos` (inverse when
// `inverse`): (x_i, x_{i+D/2}) rotated by pos * base^(-2i/D). Angles in double.
void apply_rope(float* x, std::size_t dim, double pos, double base, bool inverse = false);

}  // namespace lightsim::kv
