// Parameter counts (params.h). Shapes follow the transformers implementations of each family
// (modeling_llama, modeling_mistral, modeling_mixtral, modeling_qwen2, modeling_qwen3,
// modeling_qwen3_moe, modeling_qwen3_next, modeling_gpt_oss, modeling_deepseek_v2/v3,
// modeling_llama4) and DeepSeek-V3.2-Exp's inference/model.py (the indexer).
#include "lightsim/model/params.h"

#include <algorithm>

#include "lightsim/core/as_double.h"

namespace lightsim::model {
namespace {

double attention_parameters(const Transformer& m) {
  const Attention& a = m.attention;
  const double h = as_double(m.hidden), H = as_double(a.heads);
  if (a.kind == AttentionKind::mla) {
    const double qk = as_double(a.qk_nope_dim + a.qk_rope_dim);
    const double q = a.q_lora_rank > 0
                         ? h * as_double(a.q_lora_rank) + as_double(a.q_lora_rank) +
                               as_double(a.q_lora_rank) * H * qk
                         : h * H * qk;  // q_a_proj + q_a_layernorm + q_b_proj, or q_proj
    const double kv =
        h * as_double(a.kv_lora_rank + a.qk_rope_dim)  // kv_a_proj_with_mqa
        + as_double(a.kv_lora_rank)                    // kv_a_layernorm
        + as_double(a.kv_lora_rank) * H * as_double(a.qk_nope_dim + a.v_head_dim);  // kv_b_proj
    // DSA lightning indexer: wq_b (q latent -> heads x dim), wk (h -> dim), k_norm
    // (LayerNorm: weight + bias), weights_proj (h -> heads).
    const double Hi = as_double(a.index_heads), di = as_double(a.index_head_dim);
    const double q_in = a.q_lora_rank > 0 ? as_double(a.q_lora_rank) : h;
    const double indexer = a.index_heads > 0 ? q_in * Hi * di + h * di + 2 * di + h * Hi : 0.0;
    return q + kv + H * as_double(a.v_head_dim) * h + indexer;  // + o_proj
  }
  const double q = H * as_double(a.head_dim) * (a.output_gate ? 2.0 : 1.0);  // gated: query + gate
  const double qkv = q + 2.0 * as_double(a.kv_heads) * as_double(a.head_dim);
  return h * qkv + (a.qkv_bias ? qkv : 0.0) + H * as_double(a.head_dim) * h + (a.o_bias ? h : 0.0) +
         (a.qk_norm ? 2.0 * as_double(a.head_dim) : 0.0) + (a.sinks ? H : 0.0);
}

// Gated DeltaNet (Qwen3NextGatedDeltaNet): in_proj_qkvz (h -> 2 K + 2 V), in_proj_ba
// (h -> 2 Hv), a depthwise causal conv over q, k, v (2 K + V channels, no bias), dt_bias and
// A_log (Hv each), a gated RMSNorm of one value head, out_proj (V -> h); K = Hk dk, V = Hv dv.
double linear_attention_parameters(const Transformer& m) {
  const LinearAttention& l = m.linear;
  const double h = as_double(m.hidden), K = as_double(l.key_heads * l.key_dim),
               V = as_double(l.value_heads * l.value_dim);
  const double Hv = as_double(l.value_heads);
  return h * (2 * K + 2 * V) + h * 2 * Hv + (2 * K + V) * as_double(l.conv_kernel) + 2 * Hv +
         as_double(l.value_dim) + V * h;
}

double swiglu(double h, std::int64_t width) {
  return 3.0 * h * as_double(width);
}

// The parts of one MoE layer's FFN.
struct MoeParts {
  double router = 0, expert = 0, shared = 0;
};

MoeParts moe_parts(const Transformer& m) {
  const Moe& e = m.moe;
  const double h = as_double(m.hidden);
  MoeParts p;
  p.router = h * as_double(e.routed_experts) + (e.router_bias ? as_double(e.routed_experts) : 0.0);
  // gpt-oss experts: gate_up_proj_bias (2 I) and down_proj_bias (h).
  p.expert = swiglu(h, e.expert_intermediate) +
             (e.expert_bias ? 2.0 * as_double(e.expert_intermediate) + h : 0.0);
  p.shared = as_double(e.shared_experts) * swiglu(h, e.shared_intermediate) +
             (e.shared_gate && e.shared_experts > 0 ? h : 0.0);  // shared_expert_gate: h -> 1
  return p;
}

}  // namespace

LayerParameters layer_parameters(const Transformer& m, const LayerShape& layer) {
  LayerParameters p;
  const double h = as_double(m.hidden);
  p.attention = layer.linear_attention ? linear_attention_parameters(m) : attention_parameters(m);
  p.norms = 2.0 * h;
  if (!layer.moe) {
    p.ffn_total = p.ffn_active = swiglu(h, m.dense_intermediate);
    return p;
  }
  const MoeParts e = moe_parts(m);
  p.ffn_total = e.router + as_double(m.moe.routed_experts) * e.expert + e.shared;
  p.ffn_active = e.router + as_double(m.moe.experts_per_token) * e.expert + e.shared;
  return p;
}

ParameterCount count_parameters(const Transformer& m) {
  ParameterCount c;
  const double h = as_double(m.hidden);
  c.embedding = as_double(m.vocab) * h;
  c.lm_head = m.tied_embeddings ? 0.0 : as_double(m.vocab) * h;
  c.final_norm = h;
  double active_layers = 0;
  const MoeParts parts = moe_parts(m);
  for (const LayerShape& layer : m.layers) {
    const LayerParameters p = layer_parameters(m, layer);
    c.attention += p.attention;
    c.norms += p.norms;
    active_layers += p.active();
    if (!layer.moe) {
      c.dense_ffn += p.ffn_total;
      continue;
    }
    c.routers += parts.router;
    c.routed_experts += as_double(m.moe.routed_experts) * parts.expert;
    c.shared_experts += parts.shared;
  }
  c.total = c.embedding + c.lm_head + c.final_norm + c.attention + c.dense_ffn + c.routed_experts +
            c.shared_experts + c.routers + c.norms;
  c.active = c.embedding + c.lm_head + c.final_norm + active_layers;
  if (m.mtp_layers > 0) {
    // DeepSeek-V3 MTP module as stored in the checkpoint: enorm + hnorm, eh_proj (2h -> h),
    // one MoE decoder layer, a final norm, and its own copies of the embedding and output
    // head (shared with the main model at run time).
    const LayerShape moe_layer{.moe = m.moe.routed_experts > 0};
    c.mtp =
        as_double(m.mtp_layers) * (3.0 * h + 2.0 * h * h + layer_parameters(m, moe_layer).total() +
                                   2.0 * as_double(m.vocab) * h);
  }
  // Checkpoint bytes: quantized tensors are the routed experts (experts_only) or every linear
  // layer of the decoder (attention, dense and expert FFNs; not embedding, LM head, routers);
  // the rest is stored at other_bits (bf16, or float32 for a float32 torch_dtype).
  const Checkpoint& k = m.checkpoint;
  const double quantized = k.experts_only
                               ? c.routed_experts
                               : c.attention + c.dense_ffn + c.routed_experts + c.shared_experts;
  const bool quantized_checkpoint = k.method != "bf16" && k.method != "float32";
  const double rest = quantized_checkpoint ? c.total - quantized : c.total;
  c.checkpoint_bytes =
      rest * k.other_bits / 8.0 + (quantized_checkpoint ? quantized * k.quantized_bits / 8.0 : 0.0);
  return c;
}

std::int64_t kv_values_per_token_per_layer(const Transformer& m) {
  const Attention& a = m.attention;
  if (a.kind == AttentionKind::mla) return a.kv_lora_rank + a.qk_rope_dim + a.index_head_dim;
  return 2 * a.kv_heads * a.head_dim;
}

double kv_bytes_per_token(const Transformer& m, const DTypePolicy& dtypes) {
  const auto cached = std::count_if(m.layers.begin(), m.layers.end(),
                                    [](const LayerShape& l) { return !l.linear_attention; });
  return as_double(kv_values_per_token_per_layer(m)) *
         as_double(static_cast<std::int64_t>(cached)) * bytes_per_value(dtypes.kv_cache);
}

}  // namespace lightsim::model
