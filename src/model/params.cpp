// Parameter counts (params.h). Shapes follow the transformers implementations of each family
// (modeling_llama, modeling_qwen2, modeling_qwen3_moe, modeling_deepseek_v3, modeling_llama4).
#include "lightsim/model/params.h"

namespace lightsim::model {
namespace {

double d(std::int64_t v) {
  return static_cast<double>(v);
}

double attention_parameters(const Transformer& m) {
  const Attention& a = m.attention;
  const double h = d(m.hidden), H = d(a.heads);
  if (a.kind == AttentionKind::mla) {
    const double qk = d(a.qk_nope_dim + a.qk_rope_dim);
    const double q = a.q_lora_rank > 0
                         ? h * d(a.q_lora_rank) + d(a.q_lora_rank) + d(a.q_lora_rank) * H * qk
                         : h * H * qk;  // q_a_proj + q_a_layernorm + q_b_proj, or q_proj
    const double kv = h * d(a.kv_lora_rank + a.qk_rope_dim)  // kv_a_proj_with_mqa
                      + d(a.kv_lora_rank)                    // kv_a_layernorm
                      + d(a.kv_lora_rank) * H * d(a.qk_nope_dim + a.v_head_dim);  // kv_b_proj
    return q + kv + H * d(a.v_head_dim) * h;                                      // o_proj
  }
  const double qkv = d(a.heads + 2 * a.kv_heads) * d(a.head_dim);
  return h * qkv + (a.qkv_bias ? qkv : 0.0) + H * d(a.head_dim) * h +
         (a.qk_norm ? 2.0 * d(a.head_dim) : 0.0);
}

double swiglu(double h, std::int64_t width) {
  return 3.0 * h * d(width);
}

}  // namespace

LayerParameters layer_parameters(const Transformer& m, const LayerShape& layer) {
  LayerParameters p;
  const double h = d(m.hidden);
  p.attention = attention_parameters(m);
  p.norms = 2.0 * h;
  if (!layer.moe) {
    p.ffn_total = p.ffn_active = swiglu(h, m.dense_intermediate);
    return p;
  }
  const Moe& e = m.moe;
  const double router = h * d(e.routed_experts) + (e.router_bias ? d(e.routed_experts) : 0.0);
  const double expert = swiglu(h, e.expert_intermediate);
  const double shared = d(e.shared_experts) * swiglu(h, e.shared_intermediate);
  p.ffn_total = router + d(e.routed_experts) * expert + shared;
  p.ffn_active = router + d(e.experts_per_token) * expert + shared;
  return p;
}

ParameterCount count_parameters(const Transformer& m) {
  ParameterCount c;
  const double h = d(m.hidden);
  c.embedding = d(m.vocab) * h;
  c.lm_head = m.tied_embeddings ? 0.0 : d(m.vocab) * h;
  c.final_norm = h;
  double active_layers = 0;
  for (const LayerShape& layer : m.layers) {
    const LayerParameters p = layer_parameters(m, layer);
    c.attention += p.attention;
    c.norms += p.norms;
    active_layers += p.active();
    if (!layer.moe) {
      c.dense_ffn += p.ffn_total;
      continue;
    }
    const Moe& e = m.moe;
    c.routers += h * d(e.routed_experts) + (e.router_bias ? d(e.routed_experts) : 0.0);
    c.routed_experts += d(e.routed_experts) * swiglu(h, e.expert_intermediate);
    c.shared_experts += d(e.shared_experts) * swiglu(h, e.shared_intermediate);
  }
  c.total = c.embedding + c.lm_head + c.final_norm + c.attention + c.dense_ffn + c.routed_experts +
            c.shared_experts + c.routers + c.norms;
  c.active = c.embedding + c.lm_head + c.final_norm + active_layers;
  if (m.mtp_layers > 0) {
    // DeepSeek-V3 MTP module as stored in the checkpoint: enorm + hnorm, eh_proj (2h -> h),
    // one MoE decoder layer, a final norm, and its own copies of the embedding and output
    // head (shared with the main model at run time).
    const LayerShape moe_layer{m.moe.routed_experts > 0, 0};
    c.mtp = d(m.mtp_layers) *
            (3.0 * h + 2.0 * h * h + layer_parameters(m, moe_layer).total() + 2.0 * d(m.vocab) * h);
  }
  return c;
}

std::int64_t kv_values_per_token_per_layer(const Transformer& m) {
  const Attention& a = m.attention;
  if (a.kind == AttentionKind::mla) return a.kv_lora_rank + a.qk_rope_dim;
  return 2 * a.kv_heads * a.head_dim;
}

double kv_bytes_per_token(const Transformer& m, const DTypePolicy& dtypes) {
  return d(kv_values_per_token_per_layer(m)) * d(static_cast<std::int64_t>(m.layers.size())) *
         bytes_per_value(dtypes.kv_cache);
}

}  // namespace lightsim::model
