// Operators of the attention and feed-forward blocks. FLOP and byte formulas: docs/model.md.
#include "layer_ops.h"

#include <fmt/format.h>

#include "lightsim/core/as_double.h"

namespace lightsim::model::detail {
namespace {

// "name [a x b x c]" with the dimensions printed as integers.
std::string tensor(std::string_view name, std::initializer_list<double> dims) {
  std::string out = fmt::format("{} [", name);
  bool first = true;
  for (double v : dims) {
    out += fmt::format("{}{:.0f}", first ? "" : " x ", v);
    first = false;
  }
  return out + "]";
}

void gqa_ops(OpBuilder& b, const Transformer& m, const Shape& s) {
  const Attention& a = m.attention;
  const double N = s.tokens, h = as_double(m.hidden), H = as_double(a.heads),
               G = as_double(a.kv_heads), hd = as_double(a.head_dim);
  const double qkv = (H + 2 * G) * hd;
  b.set_kind(OpKind::head_projection);
  b.matmul("qkv_proj", tensor("qkv", {N, qkv}), N, h, qkv);
  b.set_kind(OpKind::other);
  if (a.qkv_bias) b.elementwise("qkv_bias", tensor("qkv", {N, qkv}), N * qkv, 1.0);
  if (a.qk_norm) b.rms_norm("qk_norm", tensor("q,k", {N, H + G, hd}), N * (H + G), hd);
  // Rotary embedding: a 2x2 rotation per value pair = 3 FLOPs per value.
  b.elementwise("rope", tensor("q,k", {N, H + G, hd}), N * (H + G) * hd, 3.0);
  b.data_movement("kv_cache_write", tensor("kv_cache", {N, 2 * G, hd}), N * 2 * G * hd * b.act(),
                  N * 2 * G * hd * s.kv_bytes);
  const double k_bytes = s.keys * G * hd * s.kv_bytes;
  b.set_kind(OpKind::attention_score);
  b.attention("attn_score", tensor("scores (on chip)", {N, H, s.pairs / N}), 2 * s.pairs * H * hd,
              N * H * hd * b.act() + k_bytes, 0.0);
  // Online softmax: running max, subtract, exp, sum, rescale ~ 5 FLOPs per score.
  b.set_kind(OpKind::softmax);
  b.attention("softmax", tensor("probs (on chip)", {N, H, s.pairs / N}), 5 * s.pairs * H, 0, 0);
  b.set_kind(OpKind::attention_score);
  b.attention("attn_value", tensor("attn_out", {N, H, hd}), 2 * s.pairs * H * hd, k_bytes,
              N * H * hd * b.act());
  b.set_kind(OpKind::head_projection);
  b.matmul("o_proj", tensor("attn_proj", {N, h}), N, H * hd, h).row_parallel = true;
}

void mla_ops(OpBuilder& b, const Transformer& m, const Shape& s, bool absorbed) {
  const Attention& a = m.attention;
  const double N = s.tokens, h = as_double(m.hidden), H = as_double(a.heads),
               nope = as_double(a.qk_nope_dim), rope = as_double(a.qk_rope_dim),
               v = as_double(a.v_head_dim), L = as_double(a.kv_lora_rank), K = s.keys;
  if (a.q_lora_rank > 0) {
    const double r = as_double(a.q_lora_rank);
    b.set_kind(OpKind::latent_projection);
    b.matmul("q_a_proj", tensor("q_latent", {N, r}), N, h, r);
    b.set_kind(OpKind::other);
    b.rms_norm("q_a_norm", tensor("q_latent", {N, r}), N, r);
    b.set_kind(OpKind::head_projection);
    b.matmul("q_b_proj", tensor("q", {N, H, nope + rope}), N, r, H * (nope + rope));
  } else {
    b.set_kind(OpKind::head_projection);
    b.matmul("q_proj", tensor("q", {N, H, nope + rope}), N, h, H * (nope + rope));
  }
  // kv_a_proj reads the same normalized input as the query projection before it.
  b.set_kind(OpKind::latent_projection);
  b.matmul("kv_a_proj", tensor("kv_latent", {N, L + rope}), N, h, L + rope).shares_input = true;
  b.set_kind(OpKind::other);
  b.rms_norm("kv_a_norm", tensor("kv_latent", {N, L}), N, L);
  b.elementwise("rope", tensor("q_pe,k_pe", {N, H + 1, rope}), N * (H + 1) * rope, 3.0);
  b.data_movement("kv_cache_write", tensor("latent_cache", {N, L + rope}), N * (L + rope) * b.act(),
                  N * (L + rope) * s.kv_bytes);
  if (!absorbed) {
    // Up-project every visible cached latent to per-head K_nope and V (kv_b_proj).
    b.set_kind(OpKind::kv_up_projection);
    b.matmul("kv_b_proj", tensor("k_nope,v", {K, H, nope + v}), K, L, H * (nope + v), 1.0,
             s.kv_bytes);
    const double k_bytes = K * H * nope * b.act() + K * rope * s.kv_bytes;
    b.set_kind(OpKind::attention_score);
    b.attention("attn_score", tensor("scores (on chip)", {N, H, s.pairs / N}),
                2 * s.pairs * H * (nope + rope), N * H * (nope + rope) * b.act() + k_bytes, 0.0);
    b.set_kind(OpKind::softmax);
    b.attention("softmax", tensor("probs (on chip)", {N, H, s.pairs / N}), 5 * s.pairs * H, 0, 0);
    b.set_kind(OpKind::attention_score);
    b.attention("attn_value", tensor("attn_out", {N, H, v}), 2 * s.pairs * H * v,
                K * H * v * b.act(), N * H * v * b.act());
  } else {
    // W_UK folded into the query: q_nope [N, H, nope] x W_UK [H, nope, L].
    b.set_kind(OpKind::head_projection);
    b.matmul("q_absorb", tensor("q_latent_heads", {N, H, L}), N * H, nope, L, H);
    // Attend over the shared latent cache (MQA-like: read once for all heads).
    b.set_kind(OpKind::attention_score);
    b.attention("attn_score", tensor("scores (on chip)", {N, H, s.pairs / N}),
                2 * s.pairs * H * (L + rope),
                N * H * (L + rope) * b.act() + K * (L + rope) * s.kv_bytes, 0.0);
    b.set_kind(OpKind::softmax);
    b.attention("softmax", tensor("probs (on chip)", {N, H, s.pairs / N}), 5 * s.pairs * H, 0, 0);
    b.set_kind(OpKind::attention_score);
    b.attention("attn_value", tensor("attn_latent", {N, H, L}), 2 * s.pairs * H * L, 0.0,
                N * H * L * b.act());
    b.set_kind(OpKind::head_projection);
    b.matmul("v_up", tensor("attn_out", {N, H, v}), N * H, L, v, H);  // per-head W_UV
  }
  b.set_kind(OpKind::head_projection);
  b.matmul("o_proj", tensor("attn_proj", {N, h}), N, H * v, h).row_parallel = true;
}

}  // namespace

double mla_flops(const Transformer& m, const Shape& s, bool absorbed) {
  const Attention& a = m.attention;
  const double N = s.tokens, H = as_double(a.heads), nope = as_double(a.qk_nope_dim),
               rope = as_double(a.qk_rope_dim), v = as_double(a.v_head_dim),
               L = as_double(a.kv_lora_rank);
  if (absorbed)
    return 2 * N * H * nope * L + 2 * s.pairs * H * (L + rope) + 2 * s.pairs * H * L +
           2 * N * H * L * v;
  return 2 * s.keys * L * H * (nope + v) + 2 * s.pairs * H * (nope + rope) + 2 * s.pairs * H * v;
}

void attention_ops(OpBuilder& b, const Transformer& m, const Shape& s, bool absorbed) {
  b.set_kind(OpKind::other);
  b.rms_norm("attn_norm", tensor("x_norm", {s.tokens, as_double(m.hidden)}), s.tokens,
             as_double(m.hidden));
  if (m.attention.kind == AttentionKind::mla)
    mla_ops(b, m, s, absorbed);
  else
    gqa_ops(b, m, s);
  b.set_kind(OpKind::other);
  b.elementwise("residual_add", tensor("x", {s.tokens, as_double(m.hidden)}),
                s.tokens * as_double(m.hidden), 1.0, 2.0);
}

void ffn_ops(OpBuilder& b, const Transformer& m, const Shape& s, bool moe, double touched) {
  const double N = s.tokens, h = as_double(m.hidden);
  b.set_kind(OpKind::other);
  b.rms_norm("ffn_norm", tensor("x_norm", {N, h}), N, h);
  // SwiGLU: silu(gate) * up = x * sigmoid(x) (~4 FLOPs) and one multiply per value.
  auto swiglu = [&](const std::string& prefix, OpKind kind, double rows, double width,
                    double copies) {
    b.set_kind(kind);
    b.matmul(prefix + "gate_up", tensor("gate,up", {rows, 2 * width}), rows, h, 2 * width, copies);
    b.elementwise(prefix + "act_mul", tensor("hidden", {rows, width}), rows * width, 5.0, 2.0);
    b.matmul(prefix + "down", tensor("ffn_out", {rows, h}), rows, width, h, copies).row_parallel =
        true;
  };
  if (!moe) {
    swiglu("", OpKind::dense_ffn, N, as_double(m.dense_intermediate), 1.0);
  } else {
    const Moe& e = m.moe;
    const double E = as_double(e.routed_experts), k = as_double(e.experts_per_token);
    b.set_kind(OpKind::router);
    b.matmul("router", tensor("logits", {N, E}), N, h, E);
    b.set_kind(OpKind::routing);
    b.elementwise("topk_select", tensor("routes", {N, k}), N * E, 5.0, 1.0, 2 * N * k);
    b.data_movement("dispatch", tensor("x_routed", {N * k, h}), N * h * b.act(),
                    N * k * h * b.act());
    swiglu("experts_", OpKind::routed_expert, N * k, as_double(e.expert_intermediate), touched);
    b.set_kind(OpKind::routing);
    b.elementwise("combine", tensor("moe_out", {N, h}), N * k * h, 2.0, 1.0, N * h);
    if (e.shared_experts > 0)
      swiglu("shared_", OpKind::shared_expert, N,
             as_double(e.shared_experts * e.shared_intermediate), 1.0);
  }
  b.set_kind(OpKind::other);
  b.elementwise("residual_add", tensor("x", {N, h}), N * h, 1.0, 2.0);
}

}  // namespace lightsim::model::detail
