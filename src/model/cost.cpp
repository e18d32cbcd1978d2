// analyze(): the operator list of a whole forward pass, grouped by layer shape (cost.h).
#include "lightsim/model/cost.h"

#include <cmath>

#include "layer_ops.h"
#include "lightsim/core/as_double.h"
#include "lightsim/core/error.h"
#include "lightsim/model/params.h"

namespace lightsim::model {
namespace {

std::string layer_label(const Transformer& m, const LayerShape& shape) {
  std::string label = shape.moe ? "moe layer" : "dense layer";
  if (m.attention.kind == AttentionKind::mla) label += ", MLA";
  if (shape.attention_window > 0)
    label += fmt::format(", local attention {}", shape.attention_window);
  return label;
}

}  // namespace

std::string unmodelled_cost_feature(const Transformer& m) {
  const Attention& a = m.attention;
  for (const LayerShape& l : m.layers) {
    if (l.linear_attention) return "layer_types: linear_attention (gated DeltaNet layers)";
    if (l.sliding_window > 0) return "sliding_window (sliding-window attention layers)";
  }
  if (a.index_heads > 0) return "index_topk (DeepSeek Sparse Attention)";
  if (a.o_bias) return "attention_bias (biases on q, k, v and o)";
  if (a.sinks) return "attention sinks (gpt_oss)";
  if (a.output_gate) return "attn_output_gate (gated attention output)";
  if (m.moe.expert_bias) return "expert biases (gpt_oss)";
  if (m.moe.shared_gate) return "shared_expert_intermediate_size (gated shared expert)";
  return "";
}

std::string_view op_class_name(OpClass c) {
  switch (c) {
    case OpClass::matmul:
      return "matmul";
    case OpClass::attention:
      return "attention";
    case OpClass::elementwise:
      return "elementwise";
    case OpClass::data_movement:
      return "data_movement";
  }
  return "?";
}

Workload Workload::prefill(std::int64_t tokens, std::int64_t sequences, std::int64_t prior) {
  Workload w;
  w.phase = Phase::prefill;
  w.new_tokens = tokens;
  w.sequences = sequences;
  w.prior_context = prior;
  return w;
}

Workload Workload::decode(std::int64_t context, std::int64_t sequences) {
  Workload w;
  w.phase = Phase::decode;
  w.new_tokens = 1;
  w.sequences = sequences;
  w.prior_context = context;
  return w;
}

double OpGroup::flops() const {
  double s = 0;
  for (const auto& op : ops) s += op.flops;
  return s;
}
double OpGroup::bytes_read() const {
  double s = 0;
  for (const auto& op : ops) s += op.bytes_read;
  return s;
}
double OpGroup::bytes_written() const {
  double s = 0;
  for (const auto& op : ops) s += op.bytes_written;
  return s;
}
double OpGroup::flops_of(OpClass c) const {
  double s = 0;
  for (const auto& op : ops)
    if (op.op_class == c) s += op.flops;
  return s;
}

double causal_pairs(std::int64_t prior, std::int64_t new_tokens, std::int64_t window) {
  const double P = as_double(prior), T = as_double(new_tokens);
  if (window <= 0) return T * P + T * (T + 1) / 2;
  // Position p sees (p mod W) + 1 keys; sum chunk by chunk (arithmetic series).
  double sum = 0;
  const std::int64_t end = prior + new_tokens;
  for (std::int64_t p = prior; p < end;) {
    const std::int64_t chunk_start = p / window * window;
    const std::int64_t seg_end = std::min(end, chunk_start + window);
    const double first = as_double(p - chunk_start + 1), last = as_double(seg_end - chunk_start);
    sum += as_double(seg_end - p) * (first + last) / 2;
    p = seg_end;
  }
  return sum;
}

double keys_read(std::int64_t prior, std::int64_t new_tokens, std::int64_t window) {
  if (window <= 0) return as_double(prior + new_tokens);
  return as_double(prior + new_tokens - prior / window * window);
}

CostReport analyze(const Transformer& m, const DTypePolicy& dtypes, const Workload& w) {
  LIGHTSIM_CHECK_AS(InputError, w.new_tokens >= 1 && w.sequences >= 1 && w.prior_context >= 0,
                    "workload needs tokens >= 1, sequences >= 1, prior context >= 0 (got {}, "
                    "{}, {})",
                    w.new_tokens, w.sequences, w.prior_context);
  LIGHTSIM_CHECK_AS(InputError, w.phase == Phase::prefill || w.new_tokens == 1,
                    "a decode step has one new token per sequence (got {})", w.new_tokens);
  if (const std::string feature = unmodelled_cost_feature(m); !feature.empty())
    LIGHTSIM_THROW(ConfigError,
                   "model {}: the operator cost model does not represent {} yet (parameters and "
                   "weight bytes are read: lightsim model show; docs/model.md)",
                   m.name, feature);
  CostReport r;
  r.workload = w;
  r.dtypes = dtypes;
  const double a = bytes_per_value(dtypes.activations), wb = bytes_per_value(dtypes.weights);
  const double N = as_double(w.tokens()), h = as_double(m.hidden);
  const Moe& e = m.moe;
  if (e.routed_experts > 0) {
    const double E = as_double(e.routed_experts), k = as_double(e.experts_per_token);
    r.expected_experts_touched = E * (1.0 - std::pow(1.0 - k / E, N));
  }
  auto shape_of = [&](std::int64_t window) {
    detail::Shape s;
    s.tokens = N;
    s.sequences = as_double(w.sequences);
    s.pairs = s.sequences * causal_pairs(w.prior_context, w.new_tokens, window);
    s.keys = s.sequences * keys_read(w.prior_context, w.new_tokens, window);
    s.kv_bytes = bytes_per_value(dtypes.kv_cache);
    return s;
  };
  bool absorbed = w.mla_form == MlaForm::absorbed;
  if (m.attention.kind == AttentionKind::mla) {
    if (w.mla_form == MlaForm::automatic) {
      const detail::Shape s = shape_of(0);
      absorbed = detail::mla_flops(m, s, true) < detail::mla_flops(m, s, false);
    }
    r.mla_form = absorbed ? "absorbed" : "unabsorbed";
  }

  OpGroup embed{"embedding", {}, {}, as_double(m.vocab) * h};
  detail::OpBuilder eb(embed.ops, a, wb);
  eb.set_kind(OpKind::embedding_head);
  eb.data_movement("embed_lookup", fmt::format("x [{:.0f} x {:.0f}]", N, h), N * h * wb, N * h * a);
  r.groups.push_back(std::move(embed));

  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const LayerShape& shape = m.layers[i];
    OpGroup* group = nullptr;
    const std::string label = layer_label(m, shape);
    for (auto& g : r.groups)
      if (g.label == label) group = &g;
    if (group == nullptr) {
      OpGroup g{label, {}, {}, layer_parameters(m, shape).total()};
      detail::OpBuilder b(g.ops, a, wb);
      const detail::Shape s = shape_of(shape.attention_window);
      detail::attention_ops(b, m, s, absorbed);
      detail::ffn_ops(b, m, s, shape.moe, r.expected_experts_touched);
      r.groups.push_back(std::move(g));
      group = &r.groups.back();
    }
    group->layers.push_back(static_cast<std::int64_t>(i));
  }

  const double logit_rows =
      (w.phase == Phase::prefill && !w.logits_for_all_tokens) ? as_double(w.sequences) : N;
  OpGroup head{"output head", {}, {}, (m.tied_embeddings ? 0.0 : as_double(m.vocab) * h) + h};
  detail::OpBuilder hb(head.ops, a, wb);
  hb.set_kind(OpKind::embedding_head);
  hb.rms_norm("final_norm", fmt::format("x_norm [{:.0f} x {:.0f}]", logit_rows, h), logit_rows, h);
  hb.matmul("lm_head", fmt::format("logits [{:.0f} x {}]", logit_rows, m.vocab), logit_rows, h,
            as_double(m.vocab));
  r.groups.push_back(std::move(head));

  for (const OpGroup& g : r.groups) {
    const double c = as_double(g.count());
    r.flops += c * g.flops();
    r.bytes_read += c * g.bytes_read();
    r.bytes_written += c * g.bytes_written();
    r.attention_flops += c * g.flops_of(OpClass::attention);
    r.matmul_flops += c * g.flops_of(OpClass::matmul);
    for (const auto& op : g.ops) r.weight_bytes += c * op.weight_bytes;
  }
  return r;
}

}  // namespace lightsim::model
