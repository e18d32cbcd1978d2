// A decoder-only transformer as described by a Hugging Face `config.json`, and the number
// formats its weights, activations and KV cache are stored in.
//
// Supported families (model_type): llama, mistral, qwen2, qwen3, qwen3_moe, qwen3_next,
// qwen3_5(_moe) (their text_config), mixtral, gpt_oss, deepseek_v2, deepseek_v3, deepseek_v32,
// kimi_k2, kimi_k25 (its text_config), llama4_text (and llama4 with a text_config). Dense and
// MoE feed-forward layers; multi-head, grouped-query and multi-head latent attention (MLA);
// shared plus routed experts with top-k and group-limited routing; dense-then-MoE and
// interleaved MoE layer patterns; chunked-local, sliding-window and gated-DeltaNet (linear
// attention) layers; attention sinks and output gates; DeepSeek Sparse Attention's indexer;
// the checkpoint's quantization (bytes of the stored weights); tied embeddings. The reading
// rule for unknown fields is in docs/model.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"

namespace lightsim::model {

// Storage format of one value. fp4 is NVFP4-like: 4-bit values plus one 8-bit scale per
// block of 16 values, i.e. 0.5625 bytes per value (bytes_per_value).
enum class DType { bf16, fp8, fp4 };
std::string_view dtype_name(DType dtype);
double bytes_per_value(DType dtype);

// Which format each class of tensor is stored in. A spec kind ("dtype_policy").
struct DTypePolicy {
  static constexpr std::string_view kind = "dtype_policy";
  static constexpr std::string_view preset_dir = "dtypes";
  DType weights = DType::bf16;
  DType activations = DType::bf16;
  DType kv_cache = DType::bf16;
  static void describe(config::Schema<DTypePolicy>& s);
};

enum class AttentionKind { gqa, mla };  // MHA is GQA with kv_heads == heads

struct Attention {
  AttentionKind kind = AttentionKind::gqa;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;     // GQA: key/value heads; MLA: == heads
  std::int64_t head_dim = 0;     // GQA: query/key/value head size
  bool qkv_bias = false;         // bias on the q, k, v projections (Qwen2)
  bool qk_norm = false;          // per-head RMSNorm weights on q and k (Qwen3)
  std::int64_t q_lora_rank = 0;  // MLA: 0 = plain query projection
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_dim = 0;
  std::int64_t qk_rope_dim = 0;
  std::int64_t v_head_dim = 0;
  bool o_bias = false;              // bias on the output projection too (attention_bias: gpt-oss)
  bool sinks = false;               // one learned attention-sink logit per head (gpt-oss)
  bool output_gate = false;         // sigmoid gate on the attention output: q_proj is 2 H d wide
                                    // (Qwen3-Next, Qwen3.5 full-attention layers)
  std::int64_t index_heads = 0;     // DeepSeek Sparse Attention lightning indexer; 0 = none
  std::int64_t index_head_dim = 0;  // ... its head size
  std::int64_t index_topk = 0;      // ... keys each query attends to
};

// Gated DeltaNet linear-attention layers (Qwen3-Next, Qwen3.5; transformers
// Qwen3NextGatedDeltaNet): a recurrent state per value head instead of a KV cache.
struct LinearAttention {
  std::int64_t key_heads = 0;  // 0 = the model has no linear-attention layers
  std::int64_t value_heads = 0;
  std::int64_t key_dim = 0;  // per head
  std::int64_t value_dim = 0;
  std::int64_t conv_kernel = 0;  // depthwise causal convolution over q, k, v
};

struct Moe {
  std::int64_t routed_experts = 0;  // 0 = the model has no MoE layers
  std::int64_t experts_per_token = 0;
  std::int64_t shared_experts = 0;
  std::int64_t expert_intermediate = 0;  // FFN width of one routed expert
  std::int64_t shared_intermediate = 0;  // FFN width of one shared expert
  std::int64_t groups = 1;               // group-limited routing: expert groups ...
  std::int64_t groups_per_token = 1;     // ... and how many a token may use
  bool router_bias = false;              // per-expert router bias (DeepSeek-V3, gpt-oss)
  bool expert_bias = false;              // biases on each expert's projections (gpt-oss)
  bool shared_gate = false;              // sigmoid gate (h -> 1) on the shared expert (Qwen3-Next)
};

// How the checkpoint stores its weights (quantization_config), for the bytes it occupies. The
// simulated number formats come from the DTypePolicy, not from here.
struct Checkpoint {
  std::string method = "bf16";  // quant_method, "bf16", or "float32" (torch_dtype) unquantized
  double quantized_bits = 16;   // bits per quantized weight, scales included
  double other_bits = 16;       // bits of every weight that is not quantized
  bool experts_only = false;    // only the routed experts are quantized
  bool operator==(const Checkpoint&) const = default;
};

struct LayerShape {
  bool moe = false;
  std::int64_t attention_window = 0;  // chunked local attention chunk size; 0 = global
  std::int64_t sliding_window = 0;    // sliding-window attention: the last W keys; 0 = none
  bool linear_attention = false;      // a gated DeltaNet layer (Transformer::linear)
  bool operator==(const LayerShape&) const = default;
};

struct Transformer {
  std::string name;        // file stem, e.g. "deepseek_v3"
  std::string model_type;  // as written in config.json
  std::int64_t hidden = 0;
  std::int64_t vocab = 0;
  std::int64_t dense_intermediate = 0;  // FFN width of dense layers
  Attention attention;
  LinearAttention linear;
  Moe moe;
  Checkpoint checkpoint;
  std::vector<LayerShape> layers;
  std::int64_t mtp_layers = 0;  // multi-token-prediction modules (not in the main forward)
  bool tied_embeddings = false;
  // Fields read but not modelled (harmless metadata), each "file:line: key (reason)".
  std::vector<std::string> ignored_fields;

  std::int64_t moe_layer_count() const;
};

// Reads a parsed config.json. Throws ConfigError naming file:line and the field for an
// unknown architecture, a missing or malformed field, or an unknown/unsupported field.
Transformer read_hf_config(const config::Node& document, std::string name);
// load_document + read_hf_config; the name is the file stem.
Transformer load_hf_config(const std::filesystem::path& file);

}  // namespace lightsim::model
