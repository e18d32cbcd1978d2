// Cost analysis of one forward pass: the operators of every layer with their FLOPs, HBM
// bytes read and written, and the tensor each produces, for a prefill chunk or a decode step.
//
// Conventions (docs/model.md): one multiply-add = 2 FLOPs; attention is a fused
// FlashAttention-style kernel (scores and probabilities stay on chip, so softmax moves no HBM
// bytes); causal masking counts only the (query, key) pairs a query may see; routed experts
// touch E (1 - (1 - k/E)^N) distinct experts for N tokens under uniform routing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lightsim/model/transformer.h"

namespace lightsim::model {

enum class Phase { prefill, decode };
// MLA attention form: unabsorbed (up-project the cached latent to per-head K and V, the
// usual prefill kernel) or absorbed (fold W_UK into the query and W_UV after the value
// product, attending over the 576-value latent; the usual decode kernel). automatic = the
// form with fewer FLOPs for the workload.
enum class MlaForm { automatic, absorbed, unabsorbed };

struct Workload {
  Phase phase = Phase::prefill;
  std::int64_t new_tokens = 1;     // per sequence: the prefill chunk length, or 1 for decode
  std::int64_t sequences = 1;      // sequences processed together
  std::int64_t prior_context = 0;  // tokens already in each sequence's KV cache
  MlaForm mla_form = MlaForm::automatic;
  bool logits_for_all_tokens = false;  // prefill: LM head on every token, not only the last

  static Workload prefill(std::int64_t tokens, std::int64_t sequences = 1,
                          std::int64_t prior_context = 0);
  static Workload decode(std::int64_t context, std::int64_t sequences = 1);
  std::int64_t tokens() const { return new_tokens * sequences; }
};

enum class OpClass { matmul, attention, elementwise, data_movement };
std::string_view op_class_name(OpClass c);

// What an operator is within its layer, set where it is built (src/model/layer_ops.cpp,
// cost.cpp), so consumers (prefill, decode at scale) never classify operators by name.
enum class OpKind {
  other,              // norms, rotary, biases, residual adds, KV-cache writes
  head_projection,    // head-sharded attention matmuls: qkv/q/q_b/o_proj, q_absorb, v_up
  latent_projection,  // MLA down-projections (q_a_proj, kv_a_proj): not head-sharded
  kv_up_projection,   // MLA kv_b_proj: up-projects every cached latent a query attends to
  attention_score,    // attention products (score, value)
  softmax,            // the attention's softmax (fused into the attention kernel)
  dense_ffn,          // gate_up, act_mul, down of a dense layer
  router,             // the MoE router matmul (runs in BF16)
  routing,            // top-k selection, dispatch permute, combine
  routed_expert,      // experts_gate_up, experts_act_mul, experts_down
  shared_expert,      // shared_gate_up, shared_act_mul, shared_down
  embedding_head,     // embedding lookup, final norm, LM head
};

struct Operator {
  std::string name;    // e.g. "q_b_proj", "attn_score", "experts_down"
  std::string output;  // the tensor produced and its shape, e.g. "q [4096 x 128 x 192]"
  OpClass op_class = OpClass::elementwise;
  OpKind kind = OpKind::other;
  // Row-parallel matmul (o_proj, down projections): tensor parallelism splits K, not N.
  bool row_parallel = false;
  // Reads the same activation as the matmul before it (kv_a_proj after the query
  // projection), so a low-precision path quantizes that input once for both.
  bool shares_input = false;
  double flops = 0;
  double bytes_read = 0;  // HBM bytes read, weights included
  double bytes_written = 0;
  double weight_bytes = 0;  // the part of bytes_read that is parameters
  // Matmul shape Y[m x n] = X[m x k] W[k x n] over all its rows (grouped expert GEMMs: m =
  // every routed row of every expert); 0 for other operators.
  double m = 0, k = 0, n = 0;
};

// Operators of one layer shape; `layers` lists the decoder layers that have it (empty for
// the embedding and the output head, which occur once).
struct OpGroup {
  std::string label;
  std::vector<std::int64_t> layers;
  std::vector<Operator> ops;
  double parameters = 0;  // per instance
  std::int64_t count() const {
    return layers.empty() ? 1 : static_cast<std::int64_t>(layers.size());
  }
  double flops() const;
  double bytes_read() const;
  double bytes_written() const;
  double flops_of(OpClass c) const;
};

struct CostReport {
  Workload workload;
  DTypePolicy dtypes;
  std::string mla_form;                 // "absorbed" or "unabsorbed" for MLA models, else ""
  double expected_experts_touched = 0;  // per MoE layer
  std::vector<OpGroup> groups;          // embedding, one per layer shape, output head
  double flops = 0, bytes_read = 0, bytes_written = 0, weight_bytes = 0;
  double attention_flops = 0;  // score + softmax + value products (the quadratic term)
  double matmul_flops = 0;
};

// Throws ConfigError naming the key when the model has a feature the operator list does not
// represent (unmodelled_cost_feature).
CostReport analyze(const Transformer& model, const DTypePolicy& dtypes, const Workload& workload);

// The first feature of `model` that analyze() does not represent, named by the config.json key
// that selects it (e.g. "layer_types: linear_attention"); "" when every operator is modelled.
// Parameter counts and weight bytes (params.h) cover every feature the reader accepts.
std::string unmodelled_cost_feature(const Transformer& model);

// (query, key) pairs one sequence's new tokens attend to under causal masking, for
// `new_tokens` queries after `prior` cached tokens; `window` > 0 is chunked local attention
// (a token sees only earlier tokens of its own aligned chunk).
double causal_pairs(std::int64_t prior, std::int64_t new_tokens, std::int64_t window);
// Keys a sequence's attention must read: prior + new, or from the first visible chunk.
double keys_read(std::int64_t prior, std::int64_t new_tokens, std::int64_t window);

}  // namespace lightsim::model
