// Reading Hugging Face config.json files into a Transformer (see transformer.h).
//
// Rule for fields (docs/model.md, "Reading config.json"): every key of the file is one of
//  - used: read into the Transformer, type- and range-checked;
//  - metadata: known not to change parameter shapes or FLOPs (token ids, rope scaling,
//    training-only coefficients, dtype hints); listed in Transformer::ignored_fields;
//  - anything else: a ConfigError naming the file, line and key, because an unknown key may
//    change the architecture and we never guess.
// Keys whose *value* selects an unsupported variant (hidden_act other than silu, Qwen's
// use_sliding_window, a bias on MLA or on the FFN, an unknown layer kind or quantization
// method) are errors too. quantization_config is read into Transformer::checkpoint.
#include <algorithm>
#include <set>

#include "lightsim/core/error.h"
#include "lightsim/model/transformer.h"

namespace lightsim::model {
namespace {

using config::Node;

class FieldReader {
 public:
  FieldReader(const Node& map, std::string prefix) : map_(map), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const Node& at, std::string_view key, std::string_view message) const {
    LIGHTSIM_THROW(ConfigError, "{}: {}{}: {}", at.location().str(), prefix_, key, message);
  }
  const Node& map() const { return map_; }
  const Node* get(std::string_view key) {
    used_.insert(std::string(key));
    const Node* n = map_.find(key);
    return (n == nullptr || n->is_null()) ? nullptr : n;
  }
  std::int64_t integer(std::string_view key, std::int64_t lo = 1) {
    const Node* n = get(key);
    if (n == nullptr) fail(map_, key, "missing required field (expected an integer)");
    return checked_integer(*n, key, lo);
  }
  std::int64_t integer_or(std::string_view key, std::int64_t fallback, std::int64_t lo = 0) {
    const Node* n = get(key);
    return n == nullptr ? fallback : checked_integer(*n, key, lo);
  }
  bool boolean_or(std::string_view key, bool fallback) {
    const Node* n = get(key);
    if (n == nullptr) return fallback;
    if (!n->is_scalar() || (n->scalar() != "true" && n->scalar() != "false"))
      fail(*n, key, "expected true or false");
    return n->scalar() == "true";
  }
  std::string string_or(std::string_view key, std::string fallback) {
    const Node* n = get(key);
    if (n == nullptr) return fallback;
    if (!n->is_scalar()) fail(*n, key, fmt::format("expected a string, got {}", n->kind_name()));
    return n->scalar();
  }
  std::vector<std::int64_t> integer_list(std::string_view key) {
    const Node* n = get(key);
    std::vector<std::int64_t> out;
    if (n == nullptr) return out;
    if (!n->is_sequence()) fail(*n, key, "expected a list of integers");
    for (const auto& item : n->items()) out.push_back(checked_integer(item, key, 0));
    return out;
  }
  // A key whose value must equal `expected` (an unsupported variant otherwise).
  void require_value(std::string_view key, std::string_view expected, std::string_view why) {
    const Node* n = get(key);
    if (n != nullptr && (!n->is_scalar() || n->scalar() != expected))
      fail(*n, key, fmt::format("unsupported value (only {} is modelled: {})", expected, why));
  }
  // Sorts the remaining keys into metadata (listed) and unknown (error).
  void finish(const std::set<std::string, std::less<>>& metadata,
              std::vector<std::string>& ignored) const {
    for (const auto& [key, value] : map_.entries()) {
      if (used_.contains(key)) continue;
      const Location& at = map_.key_location(key);
      if (!metadata.contains(key))
        LIGHTSIM_THROW(ConfigError,
                       "{}: {}{}: unknown field for this architecture (it may change the "
                       "model, so it is not ignored; see docs/model.md)",
                       at.str(), prefix_, key);
      ignored.push_back(fmt::format("{}:{}: {}{}", at.source, at.line, prefix_, key));
    }
  }

 private:
  using Location = config::Location;
  static constexpr std::int64_t kMaxSize = 2'147'483'647;  // any size or count: < 2^31
  static constexpr std::int64_t kMaxLayers = 65'536;
  std::int64_t checked_integer(const Node& n, std::string_view key, std::int64_t lo) const {
    if (!n.is_scalar()) fail(n, key, "expected an integer");
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(n.scalar(), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != n.scalar().size())
      fail(n, key, fmt::format("expected an integer, got '{}'", n.scalar()));
    if (v < lo) fail(n, key, fmt::format("{} is out of range (>= {})", v, lo));
    // Upper bounds far beyond any published model keep sums and products of sizes inside
    // int64 and the per-layer tables allocatable (a hostile config.json cannot exhaust memory).
    const std::int64_t hi = key == "num_hidden_layers" ? kMaxLayers : kMaxSize;
    if (v > hi) fail(n, key, fmt::format("{} is out of range (<= {})", v, hi));
    return v;
  }

  const Node& map_;
  std::string prefix_;
  std::set<std::string, std::less<>> used_;
};

// Keys that never change parameter shapes or FLOPs of a forward pass.
const std::set<std::string, std::less<>>& metadata_keys() {
  static const std::set<std::string, std::less<>> keys = {
      "_name_or_path", "architectures", "auto_map", "bos_token_id", "eos_token_id", "pad_token_id",
      "torch_dtype", "dtype", "transformers_version", "use_cache", "initializer_range",
      "rms_norm_eps", "rope_theta", "rope_scaling", "rope_parameters", "rope_type",
      "rope_interleave", "partial_rotary_factor", "max_position_embeddings", "attention_dropout",
      "aux_loss_alpha", "seq_aux", "ep_size", "pretraining_tp", "routed_scaling_factor",
      "norm_topk_prob", "scoring_func", "topk_method", "router_aux_loss_coef",
      "output_router_logits", "router_jitter_noise", "max_window_layers", "attn_scale",
      "attn_temperature_tuning", "floor_scale", "for_llm_compressor", "model_type",
      "sliding_window",
      // gpt-oss: SwiGLU clamp (a value limit, same FLOPs) and the pre-training context length.
      "swiglu_limit", "initial_context_length",
      // Qwen3.5: precision of the DeltaNet state, and its multi-token-prediction module (not in
      // the main forward pass; transformers does not load it).
      "mamba_ssm_dtype", "mtp_num_hidden_layers", "mtp_use_dedicated_embeddings",
      // transformers PretrainedConfig serialisation defaults (generation, labels, export
      // switches), written out in full by Kimi-K2.5's text_config.
      "bad_words_ids", "begin_suppress_tokens", "chunk_size_feed_forward",
      "cross_attention_hidden_size", "decoder_start_token_id", "diversity_penalty", "do_sample",
      "early_stopping", "encoder_no_repeat_ngram_size", "exponential_decay_length_penalty",
      "finetuning_task", "forced_bos_token_id", "forced_eos_token_id", "id2label", "label2id",
      "is_decoder", "length_penalty", "max_length", "min_length", "no_repeat_ngram_size",
      "num_beam_groups", "num_beams", "num_return_sequences", "output_attentions",
      "output_hidden_states", "output_scores", "prefix", "problem_type", "pruned_heads",
      "remove_invalid_values", "repetition_penalty", "return_dict", "return_dict_in_generate",
      "sep_token_id", "suppress_tokens", "task_specific_params", "temperature", "tf_legacy_loss",
      "tie_encoder_decoder", "tokenizer_class", "top_k", "top_p", "torchscript", "typical_p",
      "use_bfloat16"};
  return keys;
}

void require_silu(FieldReader& r) {
  r.require_value("hidden_act", "silu", "the FFN is a SwiGLU with three matrices");
}

// Multi-head / grouped-query attention. attention_bias (Llama, Mistral, Qwen3, gpt-oss) puts a
// bias on q, k, v and o; Qwen2's q/k/v-only biases come from the family (qkv_bias).
void read_gqa(FieldReader& r, Transformer& m, bool qkv_bias, bool qk_norm) {
  Attention& a = m.attention;
  a.kind = AttentionKind::gqa;
  a.heads = r.integer("num_attention_heads");
  a.kv_heads = r.integer_or("num_key_value_heads", a.heads, 1);
  a.head_dim = r.integer_or("head_dim", 0, 1);
  if (a.head_dim == 0) {
    if (m.hidden % a.heads != 0)
      LIGHTSIM_THROW(ConfigError, "hidden_size {} is not a multiple of num_attention_heads {}",
                     m.hidden, a.heads);
    a.head_dim = m.hidden / a.heads;
  }
  if (a.heads % a.kv_heads != 0)
    LIGHTSIM_THROW(ConfigError,
                   "num_attention_heads {} is not a multiple of num_key_value_heads {}", a.heads,
                   a.kv_heads);
  const bool all_bias = r.boolean_or("attention_bias", false);
  a.qkv_bias = qkv_bias || all_bias;
  a.o_bias = all_bias;
  a.qk_norm = qk_norm;
}

void read_common(FieldReader& r, Transformer& m) {
  m.hidden = r.integer("hidden_size");
  m.vocab = r.integer("vocab_size");
  m.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
  require_silu(r);
}

// Qwen2/Qwen3 families: sliding windows only with use_sliding_window (then on the layers at
// and above max_window_layers, a rule we do not model); sliding_window alone is inert, and so
// listed as metadata (as in Llama, which has no sliding windows). Mistral, Mixtral and gpt-oss
// read it.
void reject_qwen_sliding_window(FieldReader& r) {
  if (r.boolean_or("use_sliding_window", false))
    r.fail(*r.get("use_sliding_window"), "use_sliding_window",
           "sliding windows from max_window_layers on are not modelled");
}

bool present(const FieldReader& r, std::string_view key) {
  const Node* n = r.map().find(key);
  return n != nullptr && !n->is_null();
}

// Per-layer attention kinds. `layer_types` (transformers >= 4.54) lists each layer:
// full_attention, sliding_attention (the last `window` keys; only when the family has a
// sliding_window) or linear_attention (a gated DeltaNet layer; only in families that have one).
// Without it, every layer is full.
std::vector<LayerShape> read_layer_types(FieldReader& r, std::int64_t n, std::int64_t window,
                                         bool linear_allowed) {
  std::vector<LayerShape> layers(static_cast<std::size_t>(n));
  const Node* list = r.get("layer_types");
  if (list == nullptr) return layers;
  if (!list->is_sequence() || static_cast<std::int64_t>(list->items().size()) != n)
    r.fail(*list, "layer_types",
           fmt::format("expected a list of num_hidden_layers = {} layer kinds", n));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Node& item = list->items()[i];
    const std::string kind = item.is_scalar() ? item.scalar() : "";
    if (kind == "sliding_attention" && window > 0) {
      layers[i].sliding_window = window;
    } else if (kind == "linear_attention" && linear_allowed) {
      layers[i].linear_attention = true;
    } else if (kind != "full_attention") {
      r.fail(item, fmt::format("layer_types[{}]", i),
             fmt::format("unsupported layer kind '{}' (expected full_attention{}{})", kind,
                         window > 0 ? ", sliding_attention" : "",
                         linear_allowed ? ", linear_attention" : ""));
    }
  }
  return layers;
}

void read_dense_family(FieldReader& r, Transformer& m, bool qkv_bias, bool qk_norm) {
  read_common(r, m);
  m.dense_intermediate = r.integer("intermediate_size");
  read_gqa(r, m, qkv_bias, qk_norm);
  r.require_value("mlp_bias", "false", "a bias on the FFN projections is not modelled yet");
  reject_qwen_sliding_window(r);
  m.layers = read_layer_types(r, r.integer("num_hidden_layers"), 0, false);
}

// Mistral and Mixtral: a non-null sliding_window applies to every layer (transformers
// MistralAttention); Mistral-Nemo and Mixtral publish null.
void read_mistral_family(FieldReader& r, Transformer& m, bool moe) {
  read_common(r, m);
  read_gqa(r, m, false, false);
  const std::int64_t n = r.integer("num_hidden_layers");
  const std::int64_t window = r.integer_or("sliding_window", 0, 1);
  if (moe) {
    m.moe.routed_experts = r.integer("num_local_experts");
    m.moe.experts_per_token = r.integer("num_experts_per_tok");
    m.moe.expert_intermediate = r.integer("intermediate_size");
  } else {
    m.dense_intermediate = r.integer("intermediate_size");
  }
  m.layers.assign(static_cast<std::size_t>(n), LayerShape{.moe = moe, .sliding_window = window});
}

// Qwen3-MoE, and the MoE block of Qwen3-Next/Qwen3.5: layer i is MoE when (i+1) %
// decoder_sparse_step == 0 and i is not in mlp_only_layers; no num_experts = a dense model.
void read_qwen_moe_pattern(FieldReader& r, Transformer& m, std::vector<LayerShape>& layers) {
  m.moe.routed_experts = r.integer_or("num_experts", 0, 0);
  if (m.moe.routed_experts == 0) {  // a dense model: the MoE layout keys are inert
    m.dense_intermediate = r.integer("intermediate_size");
    (void)r.integer_list("mlp_only_layers");
    (void)r.integer_or("decoder_sparse_step", 1, 1);
    return;
  }
  m.dense_intermediate = r.integer_or("intermediate_size", 0, 0);  // mlp_only_layers' width
  m.moe.experts_per_token = r.integer("num_experts_per_tok");
  m.moe.expert_intermediate = r.integer("moe_intermediate_size");
  const std::int64_t step = r.integer_or("decoder_sparse_step", 1, 1);
  const std::vector<std::int64_t> dense_only = r.integer_list("mlp_only_layers");
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto li = static_cast<std::int64_t>(i);
    const bool listed = std::find(dense_only.begin(), dense_only.end(), li) != dense_only.end();
    layers[i].moe = !listed && (li + 1) % step == 0;
  }
  if (std::any_of(layers.begin(), layers.end(), [](const LayerShape& l) { return !l.moe; }) &&
      m.dense_intermediate == 0)
    r.fail(r.map(), "intermediate_size", "missing required field (dense layers need a width)");
}

void read_qwen3_moe(FieldReader& r, Transformer& m) {
  read_common(r, m);
  read_gqa(r, m, false, true);
  r.require_value("qkv_bias", "false", "Qwen3-MoE projections carry no bias");
  r.require_value("use_qk_norm", "true", "Qwen3-MoE always normalises q and k");
  if (r.integer_or("shared_expert_intermediate_size", 0, 0) != 0)
    r.fail(*r.get("shared_expert_intermediate_size"), "shared_expert_intermediate_size",
           "qwen3_moe has no shared expert (only 0 is modelled)");
  reject_qwen_sliding_window(r);
  m.layers = read_layer_types(r, r.integer("num_hidden_layers"), 0, false);
  if (!present(r, "num_experts")) r.fail(r.map(), "num_experts", "missing required field");
  read_qwen_moe_pattern(r, m, m.layers);
}

// Qwen3-Next and Qwen3.5 text models (transformers Qwen3NextConfig, Qwen3_5TextConfig): gated
// DeltaNet layers with a full-attention layer every full_attention_interval-th layer (or as
// layer_types lists), gated attention output, q/k norms, and an MoE with a gated shared expert.
void read_qwen3_next(FieldReader& r, Transformer& m) {
  read_common(r, m);
  read_gqa(r, m, false, true);
  m.attention.output_gate = r.boolean_or("attn_output_gate", true);
  reject_qwen_sliding_window(r);
  LinearAttention& l = m.linear;
  l.key_heads = r.integer("linear_num_key_heads");
  l.value_heads = r.integer("linear_num_value_heads");
  l.key_dim = r.integer("linear_key_head_dim");
  l.value_dim = r.integer("linear_value_head_dim");
  l.conv_kernel = r.integer("linear_conv_kernel_dim");
  const std::int64_t n = r.integer("num_hidden_layers");
  const std::int64_t interval = r.integer_or("full_attention_interval", 4, 1);
  const bool listed = present(r, "layer_types");
  m.layers = read_layer_types(r, n, 0, true);
  if (!listed)  // the transformers default
    for (std::int64_t i = 0; i < n; ++i)
      m.layers[static_cast<std::size_t>(i)].linear_attention = (i + 1) % interval != 0;
  read_qwen_moe_pattern(r, m, m.layers);
  const std::int64_t shared = r.integer_or("shared_expert_intermediate_size", 0, 0);
  if (m.moe.routed_experts > 0 && shared > 0) {
    m.moe.shared_experts = 1;
    m.moe.shared_intermediate = shared;
    m.moe.shared_gate = true;
  }
}

// gpt-oss (transformers GptOssConfig): q/k/v/o biases, per-head attention sinks, alternating
// sliding-window and full layers from layer_types, and an MoE in every layer with a biased
// router and biased experts.
void read_gpt_oss(FieldReader& r, Transformer& m) {
  read_common(r, m);
  read_gqa(r, m, false, false);
  m.attention.sinks = true;
  Moe& e = m.moe;
  e.routed_experts = r.integer("num_local_experts");
  e.experts_per_token = r.integer("num_experts_per_tok");
  if (r.integer_or("experts_per_token", e.experts_per_token, 1) != e.experts_per_token)
    r.fail(*r.get("experts_per_token"), "experts_per_token",
           fmt::format("differs from num_experts_per_tok = {}", e.experts_per_token));
  e.expert_intermediate = r.integer("intermediate_size");
  e.router_bias = true;
  e.expert_bias = true;
  const std::int64_t window = r.integer_or("sliding_window", 0, 1);
  const bool listed = present(r, "layer_types");
  m.layers = read_layer_types(r, r.integer("num_hidden_layers"), window, false);
  if (!listed && window > 0)  // the transformers default: even layers slide
    for (std::size_t i = 0; i < m.layers.size(); ++i)
      m.layers[i].sliding_window = i % 2 == 0 ? window : 0;
  for (LayerShape& layer : m.layers) layer.moe = true;
}

// DeepSeek-V2/V3/V3.2 and Kimi-K2 (modeling_deepseek): MLA, dense-first layers, shared plus
// routed experts; V3.2 adds the DeepSeek Sparse Attention lightning indexer.
void read_deepseek(FieldReader& r, Transformer& m, bool sparse_attention) {
  read_common(r, m);
  m.dense_intermediate = r.integer("intermediate_size");
  Attention& a = m.attention;
  a.kind = AttentionKind::mla;
  a.heads = r.integer("num_attention_heads");
  a.kv_heads = a.heads;
  (void)r.integer_or("num_key_value_heads", a.heads, 1);  // MLA: not an independent shape
  a.q_lora_rank = r.integer_or("q_lora_rank", 0, 0);
  a.kv_lora_rank = r.integer("kv_lora_rank");
  a.qk_nope_dim = r.integer("qk_nope_head_dim");
  a.qk_rope_dim = r.integer("qk_rope_head_dim");
  a.v_head_dim = r.integer("v_head_dim");
  a.head_dim = a.qk_nope_dim + a.qk_rope_dim;
  r.require_value("attention_bias", "false", "MLA projections carry no bias");
  if (sparse_attention) {
    a.index_heads = r.integer("index_n_heads");
    a.index_head_dim = r.integer("index_head_dim");
    a.index_topk = r.integer("index_topk");
  }
  Moe& e = m.moe;
  e.routed_experts = r.integer_or("n_routed_experts", 0, 0);
  e.experts_per_token = r.integer("num_experts_per_tok");
  e.shared_experts = r.integer_or("n_shared_experts", 0, 0);
  e.expert_intermediate = r.integer("moe_intermediate_size");
  e.shared_intermediate = e.expert_intermediate;
  e.groups = r.integer_or("n_group", 1, 1);
  e.groups_per_token = r.integer_or("topk_group", 1, 1);
  e.router_bias = r.string_or("topk_method", "greedy") == "noaux_tc";
  const std::int64_t first_dense = r.integer_or("first_k_dense_replace", 0, 0);
  const std::int64_t freq = r.integer_or("moe_layer_freq", 1, 1);
  m.mtp_layers = r.integer_or("num_nextn_predict_layers", 0, 0);
  const std::int64_t n = r.integer("num_hidden_layers");
  for (std::int64_t i = 0; i < n; ++i)
    m.layers.push_back({.moe = e.routed_experts > 0 && i >= first_dense && i % freq == 0});
}

void read_llama4_text(FieldReader& r, Transformer& m) {
  read_common(r, m);
  m.dense_intermediate = r.integer("intermediate_size_mlp");
  read_gqa(r, m, false, false);
  (void)r.boolean_or("use_qk_norm", false);  // weight-free L2 norm: no parameters
  Moe& e = m.moe;
  e.routed_experts = r.integer("num_local_experts", 0);
  e.experts_per_token = r.integer("num_experts_per_tok");
  e.expert_intermediate = r.integer("intermediate_size");
  e.shared_experts = e.routed_experts > 0 ? 1 : 0;  // Llama-4 MoE layers carry one shared expert
  e.shared_intermediate = e.expert_intermediate;
  const std::int64_t n = r.integer("num_hidden_layers");
  const std::int64_t step = r.integer_or("interleave_moe_layer_step", 1, 1);
  std::vector<std::int64_t> moe_layers = r.integer_list("moe_layers");
  if (moe_layers.empty())  // the transformers default
    for (std::int64_t i = step - 1; i < n; i += step) moe_layers.push_back(i);
  const std::int64_t chunk = r.integer_or("attention_chunk_size", 0, 0);
  std::vector<std::int64_t> rope = r.integer_list("no_rope_layers");  // 1 = RoPE (local) layer
  if (rope.empty())  // the transformers default: every 4th layer is a global NoPE layer
    for (std::int64_t i = 0; i < n; ++i) rope.push_back((i + 1) % 4 != 0 ? 1 : 0);
  if (static_cast<std::int64_t>(rope.size()) != n)
    r.fail(*r.get("no_rope_layers"), "no_rope_layers",
           fmt::format("has {} entries, expected num_hidden_layers = {}", rope.size(), n));
  for (std::int64_t i = 0; i < n; ++i) {
    const bool moe = std::find(moe_layers.begin(), moe_layers.end(), i) != moe_layers.end();
    m.layers.push_back({.moe = moe && e.routed_experts > 0,
                        .attention_window = rope[static_cast<std::size_t>(i)] ? chunk : 0});
  }
}

bool any_entry_contains(const Node* list, std::string_view what) {
  return list != nullptr && list->is_sequence() &&
         std::any_of(list->items().begin(), list->items().end(), [&](const Node& n) {
           return n.is_scalar() && n.scalar().find(what) != std::string::npos;
         });
}

double positive_number(FieldReader& r, const Node* n, std::string_view key) {
  double v = 0;
  try {
    v = n != nullptr && n->is_scalar() ? std::stod(n->scalar()) : 0.0;
  } catch (const std::exception&) {
    v = 0;
  }
  if (!(v > 0 && v < 1e6)) r.fail(n != nullptr ? *n : r.map(), key, "expected a positive number");
  return v;
}

// quantization_config -> Checkpoint. Each method's keys are a closed list; an unknown method
// or key is an error, since it would change the bytes the weights occupy.
void read_quantization(const Node& q, Transformer& m, std::string_view prefix) {
  FieldReader r(q, std::string(prefix) + "quantization_config.");
  if (!q.is_map()) r.fail(q, "", "expected a map");
  const std::string method = r.string_or("quant_method", "");
  Checkpoint& c = m.checkpoint;
  c.method = method;
  std::set<std::string, std::less<>> meta;
  if (method == "fp8") {
    // DeepSeek-V3 block FP8: e4m3 weights with one scale per weight_block_size block (fp32,
    // or ue8m0 = 1 byte) on every linear layer but the embedding, LM head and routers.
    r.require_value("fmt", "e4m3", "FP8 weights are e4m3");
    const std::vector<std::int64_t> block = r.integer_list("weight_block_size");
    if (block.size() != 2 || block[0] < 1 || block[1] < 1)
      r.fail(q, "weight_block_size", "expected two block sizes, e.g. [128, 128]");
    const bool ue8m0 = r.string_or("scale_fmt", "fp32") == "ue8m0";
    c.quantized_bits = 8.0 + (ue8m0 ? 8.0 : 32.0) /
                                 (static_cast<double>(block[0]) * static_cast<double>(block[1]));
    meta = {"activation_scheme"};
  } else if (method == "mxfp4") {
    // OCP MXFP4: 4-bit e2m1 values with one 8-bit scale per 32 values (4.25 bits). gpt-oss
    // keeps attention, routers, embedding and LM head in bf16 (modules_to_not_convert).
    c.quantized_bits = 4.0 + 8.0 / 32.0;
    c.experts_only = any_entry_contains(r.get("modules_to_not_convert"), "self_attn");
  } else if (method == "compressed-tensors") {
    // One group of integer weights with a bf16 scale per group_size values (Kimi-K2.5: int4,
    // group 32 = 4.5 bits); its `ignore` list keeps attention and shared experts in bf16.
    const Node* groups = r.get("config_groups");
    if (groups == nullptr || !groups->is_map() || groups->entries().size() != 1)
      r.fail(q, "config_groups", "expected exactly one quantization group");
    const Node& group = groups->entries().front().second;
    const Node* w = group.is_map() ? group.find("weights") : nullptr;
    if (w == nullptr || !w->is_map())
      r.fail(group, "config_groups.*.weights", "missing required field");
    c.quantized_bits =
        positive_number(r, w->find("num_bits"), "config_groups.*.num_bits") +
        16.0 / positive_number(r, w->find("group_size"), "config_groups.*.group_size");
    const Node* ignore = r.get("ignore");
    c.experts_only =
        any_entry_contains(ignore, "self_attn") && any_entry_contains(ignore, "shared_experts");
    meta = {"format", "kv_cache_scheme", "quantization_status"};
  } else {
    r.fail(q, "quant_method",
           fmt::format("unsupported quantization '{}' (supported: fp8, mxfp4, "
                       "compressed-tensors)",
                       method));
  }
  std::vector<std::string> unused;
  r.finish(meta, unused);
}

using FamilyReader = void (*)(FieldReader&, Transformer&);

// A multimodal wrapper: the language model is `text_config`; the vision tower and the media
// token ids are not modelled (the tower is listed).
void read_wrapped_text(FieldReader& top, const Node& document, Transformer& m,
                       const std::set<std::string, std::less<>>& meta, FamilyReader read) {
  const Node* text = top.get("text_config");
  if (text == nullptr || !text->is_map())
    top.fail(document, "text_config", "missing required field (the language model)");
  FieldReader inner(*text, "text_config.");
  read(inner, m);
  (void)inner.get("model_type");
  if (const Node* q = inner.get("quantization_config"); q != nullptr)
    read_quantization(*q, m, "text_config.");
  inner.finish(meta, m.ignored_fields);
  if (top.get("vision_config") != nullptr)
    m.ignored_fields.push_back(document.key_location("vision_config").str() +
                               ": vision_config (the vision tower is not modelled)");
  for (const char* key : {"image_token_index", "boi_token_index", "eoi_token_index",
                          "image_token_id", "video_token_id", "vision_start_token_id",
                          "vision_end_token_id", "media_placeholder_token_id", "video_placeholder",
                          "use_unified_vision_chunk", "ignore_index"})
    (void)top.get(key);
  m.tied_embeddings = m.tied_embeddings || top.boolean_or("tie_word_embeddings", false);
}

void read_llama(FieldReader& r, Transformer& m) {
  read_dense_family(r, m, false, false);
}
void read_qwen2(FieldReader& r, Transformer& m) {
  read_dense_family(r, m, true, false);  // Qwen2 always has q, k, v biases
}
void read_qwen3(FieldReader& r, Transformer& m) {
  read_dense_family(r, m, false, true);  // Qwen3 always has q/k norms
}
void read_mistral(FieldReader& r, Transformer& m) {
  read_mistral_family(r, m, false);
}
void read_mixtral(FieldReader& r, Transformer& m) {
  read_mistral_family(r, m, true);
}
void read_deepseek_dense_attention(FieldReader& r, Transformer& m) {
  read_deepseek(r, m, false);
}
void read_deepseek_sparse_attention(FieldReader& r, Transformer& m) {
  read_deepseek(r, m, true);
}
// Kimi-K2.5's text_config is a full PretrainedConfig dump: decoder-only switches must be off.
void read_kimi_text(FieldReader& r, Transformer& m) {
  r.require_value("is_encoder_decoder", "false", "only decoder-only models are modelled");
  r.require_value("add_cross_attention", "false", "only decoder-only models are modelled");
  read_deepseek(r, m, false);
}

struct Family {
  std::string_view model_type;
  FamilyReader read;
  bool wrapped = false;  // the language model is in text_config
};

constexpr Family kFamilies[] = {
    {"llama", read_llama},
    {"mistral", read_mistral},
    {"mixtral", read_mixtral},
    {"qwen2", read_qwen2},
    {"qwen3", read_qwen3},
    {"qwen3_moe", read_qwen3_moe},
    {"qwen3_next", read_qwen3_next},
    {"qwen3_5_text", read_qwen3_next},
    {"qwen3_5_moe_text", read_qwen3_next},
    {"qwen3_5", read_qwen3_next, true},
    {"qwen3_5_moe", read_qwen3_next, true},
    {"gpt_oss", read_gpt_oss},
    {"deepseek_v2", read_deepseek_dense_attention},
    {"deepseek_v3", read_deepseek_dense_attention},
    {"deepseek_v32", read_deepseek_sparse_attention},
    {"kimi_k2", read_deepseek_dense_attention},
    {"kimi_k25", read_kimi_text, true},
    {"llama4_text", read_llama4_text},
    {"llama4", read_llama4_text, true},
};

}  // namespace

Transformer read_hf_config(const config::Node& document, std::string name) {
  if (!document.is_map())
    LIGHTSIM_THROW(ConfigError, "{}: expected a JSON object (a Hugging Face config.json)",
                   document.location().str());
  Transformer m;
  m.name = std::move(name);
  FieldReader top(document, "");
  const Node* type = top.get("model_type");
  if (type == nullptr || !type->is_scalar())
    top.fail(document, "model_type", "missing required field (the architecture family)");
  m.model_type = type->scalar();
  const std::set<std::string, std::less<>>& meta = metadata_keys();
  const Family* family = nullptr;
  for (const Family& f : kFamilies)
    if (f.model_type == m.model_type) family = &f;
  if (family == nullptr) {
    std::string names;
    for (const Family& f : kFamilies)
      names += (names.empty() ? "" : ", ") + std::string(f.model_type);
    top.fail(*type, "model_type",
             fmt::format("unknown architecture '{}' (supported: {})", m.model_type, names));
  }
  if (family->wrapped)
    read_wrapped_text(top, document, m, meta, family->read);
  else
    family->read(top, m);
  if (const Node* q = top.get("quantization_config"); q != nullptr) read_quantization(*q, m, "");
  // An unquantized float32 checkpoint stores 4 bytes per weight (torch_dtype stays listed as
  // metadata: it does not change shapes or FLOPs).
  const Node* text = document.find("text_config");
  for (const Node* map : {&document, text})
    for (const char* key : {"torch_dtype", "dtype"})
      if (const Node* n = map != nullptr && map->is_map() ? map->find(key) : nullptr;
          n != nullptr && n->is_scalar() && n->scalar() == "float32" &&
          m.checkpoint.method == "bf16") {
        m.checkpoint.method = "float32";
        m.checkpoint.other_bits = 32;
      }
  top.finish(meta, m.ignored_fields);
  if (m.layers.empty()) top.fail(document, "num_hidden_layers", "must be at least 1");
  if (m.moe.routed_experts > 0 && m.moe.experts_per_token > m.moe.routed_experts)
    LIGHTSIM_THROW(ConfigError, "{}: num_experts_per_tok {} exceeds the {} routed experts",
                   document.location().source, m.moe.experts_per_token, m.moe.routed_experts);
  if (m.moe.routed_experts % m.moe.groups != 0 || m.moe.groups_per_token > m.moe.groups)
    LIGHTSIM_THROW(ConfigError, "{}: n_group {} / topk_group {} do not divide {} experts",
                   document.location().source, m.moe.groups, m.moe.groups_per_token,
                   m.moe.routed_experts);
  return m;
}

Transformer load_hf_config(const std::filesystem::path& file) {
  return read_hf_config(config::load_document(file), file.stem().string());
}

std::int64_t Transformer::moe_layer_count() const {
  return std::count_if(layers.begin(), layers.end(), [](const LayerShape& l) { return l.moe; });
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::bf16:
      return "bf16";
    case DType::fp8:
      return "fp8";
    case DType::fp4:
      return "fp4";
  }
  return "?";
}

double bytes_per_value(DType dtype) {
  switch (dtype) {
    case DType::bf16:
      return 2.0;
    case DType::fp8:
      return 1.0;  // block scales (1 per 128x128) are below 0.01 %
    case DType::fp4:
      return 0.5 + 1.0 / 16.0;  // NVFP4: e2m1 values + e4m3 scale per 16
  }
  return 0.0;
}

void DTypePolicy::describe(config::Schema<DTypePolicy>& s) {
  const std::vector<std::pair<std::string, DType>> names = {
      {"bf16", DType::bf16}, {"fp8", DType::fp8}, {"fp4", DType::fp4}};
  s.help("Number formats of a model's weights, activations and KV cache (docs/model.md).");
  s.enumeration("weights", &DTypePolicy::weights, names, "format of the weight matrices");
  s.enumeration("activations", &DTypePolicy::activations, names,
                "format of activations between operators");
  s.enumeration("kv_cache", &DTypePolicy::kv_cache, names, "format of the cached keys and values");
}

}  // namespace lightsim::model
