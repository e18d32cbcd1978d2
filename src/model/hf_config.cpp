// Reading Hugging Face config.json files into a Transformer (see transformer.h).
//
// Rule for fields (docs/model.md, "Reading config.json"): every key of the file is one of
//  - used: read into the Transformer, type- and range-checked;
//  - metadata: known not to change parameter shapes or FLOPs (token ids, rope scaling,
//    training-only coefficients, dtype hints); listed in Transformer::ignored_fields;
//  - anything else: a ConfigError naming the file, line and key, because an unknown key may
//    change the architecture and we never guess.
// Keys whose *value* selects an unsupported variant (hidden_act other than silu, sliding
// windows switched on, attention bias where the family has none) are errors too.
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
  static const std::set<std::string, std::less<>> keys = {"_name_or_path",
                                                          "architectures",
                                                          "auto_map",
                                                          "bos_token_id",
                                                          "eos_token_id",
                                                          "pad_token_id",
                                                          "torch_dtype",
                                                          "transformers_version",
                                                          "use_cache",
                                                          "initializer_range",
                                                          "rms_norm_eps",
                                                          "rope_theta",
                                                          "rope_scaling",
                                                          "max_position_embeddings",
                                                          "attention_dropout",
                                                          "aux_loss_alpha",
                                                          "seq_aux",
                                                          "ep_size",
                                                          "pretraining_tp",
                                                          "quantization_config",
                                                          "routed_scaling_factor",
                                                          "norm_topk_prob",
                                                          "scoring_func",
                                                          "topk_method",
                                                          "router_aux_loss_coef",
                                                          "output_router_logits",
                                                          "router_jitter_noise",
                                                          "max_window_layers",
                                                          "attn_scale",
                                                          "attn_temperature_tuning",
                                                          "floor_scale",
                                                          "for_llm_compressor",
                                                          "rope_interleave",
                                                          "sliding_window",
                                                          "dtype",
                                                          "model_type",
                                                          "rope_type",
                                                          "partial_rotary_factor"};
  return keys;
}

void require_silu(FieldReader& r) {
  r.require_value("hidden_act", "silu", "the FFN is a SwiGLU with three matrices");
}

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
  // attention_bias (Llama, Qwen3) puts a bias on q, k, v AND o; only Qwen2's q, k, v biases
  // (implied by the family, qkv_bias) are modelled.
  r.require_value("attention_bias", "false",
                  "a bias on the q, k, v and o projections is not modelled yet");
  a.qkv_bias = qkv_bias;
  a.qk_norm = qk_norm;
}

void read_common(FieldReader& r, Transformer& m) {
  m.hidden = r.integer("hidden_size");
  m.vocab = r.integer("vocab_size");
  m.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
  require_silu(r);
}

void read_dense_family(FieldReader& r, Transformer& m, bool qkv_bias) {
  read_common(r, m);
  m.dense_intermediate = r.integer("intermediate_size");
  read_gqa(r, m, qkv_bias, false);
  r.require_value("mlp_bias", "false", "a bias on the FFN projections is not modelled yet");
  if (r.boolean_or("use_sliding_window", false))
    r.fail(*r.get("use_sliding_window"), "use_sliding_window", "sliding windows are not modelled");
  m.layers.assign(static_cast<std::size_t>(r.integer("num_hidden_layers")), LayerShape{});
}

void read_qwen3_moe(FieldReader& r, Transformer& m) {
  read_common(r, m);
  m.dense_intermediate = r.integer("intermediate_size");
  read_gqa(r, m, false, true);
  if (r.boolean_or("use_sliding_window", false))
    r.fail(*r.get("use_sliding_window"), "use_sliding_window", "sliding windows are not modelled");
  m.moe.routed_experts = r.integer("num_experts", 0);
  m.moe.experts_per_token = r.integer("num_experts_per_tok");
  m.moe.expert_intermediate = r.integer("moe_intermediate_size");
  const std::int64_t step = r.integer_or("decoder_sparse_step", 1, 1);
  const std::vector<std::int64_t> dense_only = r.integer_list("mlp_only_layers");
  const std::int64_t n = r.integer("num_hidden_layers");
  for (std::int64_t i = 0; i < n; ++i) {
    const bool listed = std::find(dense_only.begin(), dense_only.end(), i) != dense_only.end();
    m.layers.push_back({!listed && m.moe.routed_experts > 0 && (i + 1) % step == 0, 0});
  }
}

void read_deepseek(FieldReader& r, Transformer& m) {
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
    m.layers.push_back({e.routed_experts > 0 && i >= first_dense && i % freq == 0, 0});
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
    m.layers.push_back(
        {moe && e.routed_experts > 0, rope[static_cast<std::size_t>(i)] ? chunk : 0});
  }
}

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
  if (m.model_type == "llama") {
    read_dense_family(top, m, false);
  } else if (m.model_type == "qwen2") {
    read_dense_family(top, m, true);  // Qwen2 always has q, k, v biases
  } else if (m.model_type == "qwen3_moe") {
    read_qwen3_moe(top, m);
  } else if (m.model_type == "deepseek_v3" || m.model_type == "kimi_k2") {
    read_deepseek(top, m);
  } else if (m.model_type == "llama4_text") {
    read_llama4_text(top, m);
  } else if (m.model_type == "llama4") {
    const Node* text = top.get("text_config");
    if (text == nullptr || !text->is_map())
      top.fail(document, "text_config", "missing required field (the language model)");
    FieldReader inner(*text, "text_config.");
    read_llama4_text(inner, m);
    (void)inner.get("model_type");
    inner.finish(meta, m.ignored_fields);
    if (top.get("vision_config") != nullptr)
      m.ignored_fields.push_back(document.key_location("vision_config").str() +
                                 ": vision_config (the vision tower is not modelled)");
    for (const char* key : {"image_token_index", "boi_token_index", "eoi_token_index"})
      (void)top.get(key);
    m.tied_embeddings = m.tied_embeddings || top.boolean_or("tie_word_embeddings", false);
  } else {
    top.fail(*type, "model_type",
             fmt::format("unknown architecture '{}' (supported: llama, qwen2, qwen3_moe, "
                         "deepseek_v3, kimi_k2, llama4, llama4_text)",
                         m.model_type));
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
