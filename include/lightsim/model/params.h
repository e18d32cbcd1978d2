// Parameter counts and KV-cache size of a Transformer, from its shapes alone.
// Formulas (per layer, hidden h, heads H, KV heads G, head size d): docs/model.md.
#pragma once

#include <cstdint>

#include "lightsim/model/transformer.h"

namespace lightsim::model {

// Parameters of one decoder layer: all of them, and those one token touches.
struct LayerParameters {
  double attention = 0;   // projections, biases, sinks, q/k/latent norms, DSA indexer; or the
                          // gated DeltaNet block of a linear-attention layer
  double ffn_total = 0;   // dense FFN, or router + all routed + shared experts
  double ffn_active = 0;  // dense FFN, or router + top-k routed + shared experts
  double norms = 0;       // the two residual-branch RMSNorms
  double total() const { return attention + ffn_total + norms; }
  double active() const { return attention + ffn_active + norms; }
};

struct ParameterCount {
  double embedding = 0;  // token embedding table
  double lm_head = 0;    // 0 when tied to the embedding
  double final_norm = 0;
  double attention = 0;       // summed over layers
  double dense_ffn = 0;       // FFN of dense layers
  double routed_experts = 0;  // every routed expert of every MoE layer
  double shared_experts = 0;
  double routers = 0;
  double norms = 0;
  double total = 0;   // the main model (embeddings to LM head), without MTP modules
  double active = 0;  // parameters one token touches (top-k routed experts only)
  double mtp = 0;     // multi-token-prediction modules, reported apart (not in total)
  // Bytes the checkpoint's weights occupy (main model, as total): quantized tensors at
  // Checkpoint::quantized_bits, everything else bf16.
  double checkpoint_bytes = 0;
};

LayerParameters layer_parameters(const Transformer& model, const LayerShape& layer);
ParameterCount count_parameters(const Transformer& model);

// Values cached per token per attention layer: 2 G d for GQA, kv_lora_rank + qk_rope_dim for
// MLA (+ index_head_dim for the DeepSeek Sparse Attention indexer's keys).
std::int64_t kv_values_per_token_per_layer(const Transformer& model);
// Bytes of KV cache per token over the attention layers (linear-attention layers keep a
// fixed-size state instead) in the policy's kv_cache format.
double kv_bytes_per_token(const Transformer& model, const DTypePolicy& dtypes);

}  // namespace lightsim::model
