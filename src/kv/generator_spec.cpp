// Schema of the synthetic KV generator (kind kv_synthetic); the model is in generator.cpp.
#include "lightsim/kv/generator.h"

namespace lightsim::kv {

void KvGeneratorSpec::describe(config::Schema<KvGeneratorSpec>& s) {
  using S = KvGeneratorSpec;
  s.help("Synthetic KV cache generator (`lightsim kv generate`); model in docs/kv-data.md.");
  s.field("model", &S::model, "name recorded in the manifest as synthetic:<model>");
  s.field("model_layers", &S::model_layers, "layers of the model").range(1, 1024);
  s.field("layers", &S::layers, "model layers to generate (indices); empty = all").min(0);
  s.field("kv_heads", &S::kv_heads, "KV heads per layer").range(1, 1024);
  s.field("q_heads", &S::q_heads, "query heads per layer (a multiple of kv_heads)").range(1, 4096);
  s.field("head_dim", &S::head_dim, "head dimension D (even)").range(2, 1024);
  s.field("rope_base", &S::rope_base, "RoPE theta").range(10, 1e9);
  s.field("rope_ntk_factor", &S::rope_ntk_factor,
          "dynamic NTK RoPE scaling factor f (1 = off); base grows when tokens > "
          "rope_original_context")
      .range(1, 1e4);
  s.field("rope_original_context", &S::rope_original_context,
          "pre-training context L0 of the dynamic NTK scaling, tokens")
      .range(1, 1 << 24);
  s.field("tokens", &S::tokens, "context length T in tokens").range(1, 1 << 24);
  s.field("steps", &S::steps, "decode queries per query head").range(1, 1 << 16);
  s.field("dtype", &S::dtype, "storage type of the written arrays")
      .one_of({"float32", "float16", "bfloat16"});
  s.field("key_rank", &S::key_rank, "rank r of the pre-RoPE key latent").range(1, 1024);
  s.field("spectrum_decay", &S::spectrum_decay, "sigma_i ~ i^-decay").range(0, 4);
  s.field("key_scale", &S::key_scale, "per-channel RMS of the low-rank key part").positive();
  s.field("noise_scale", &S::noise_scale, "per-channel RMS of isotropic key/value noise").min(0);
  s.field("offset_scale", &S::offset_scale, "RMS of the shared key offset per channel").min(0);
  s.field("outlier_pairs", &S::outlier_pairs, "lowest-frequency RoPE pairs carrying outliers")
      .range(0, 512);
  s.field("outlier_scale", &S::outlier_scale, "outlier magnitude in units of key_scale").min(0);
  s.field("semantic_wavelength", &S::semantic_wavelength,
          "RoPE wavelength (tokens) above which pairs carry the key latent at full weight")
      .positive();
  s.field("segment_tokens", &S::segment_tokens, "mean topic segment length in tokens")
      .range(1, 1e9);
  s.field("topic_weight", &S::topic_weight, "share of latent variance from the segment topic")
      .range(0, 1);
  s.field("local_correlation", &S::local_correlation, "lag-1 correlation of the token latent")
      .range(0, 0.9999);
  s.field("sink_logit", &S::sink_logit, "extra logit (nats) of token 0, retrieval/diffuse heads")
      .range(0, 50);
  s.field("sink_logit_streaming", &S::sink_logit_streaming,
          "extra logit (nats) of token 0 in streaming heads")
      .range(0, 50);
  s.field("retrieval_fraction", &S::retrieval_fraction, "share of retrieval heads").range(0, 1);
  s.field("streaming_fraction", &S::streaming_fraction, "share of streaming heads").range(0, 1);
  s.field("early_layers", &S::early_layers,
          "model layers [0, N) that draw head types from the early_* fractions; 0 = off")
      .range(0, 1024);
  s.field("early_retrieval_fraction", &S::early_retrieval_fraction,
          "share of retrieval heads in the early layers")
      .range(0, 1);
  s.field("early_streaming_fraction", &S::early_streaming_fraction,
          "share of streaming heads in the early layers")
      .range(0, 1);
  s.field("retrieval_group_share", &S::retrieval_group_share,
          "share of a retrieval KV head's query heads that target the needles (1 = all)")
      .range(0, 1);
  s.field("retrieval_logit", &S::retrieval_logit, "peak logit beta (nats) of retrieval heads")
      .range(0, 100);
  s.field("streaming_logit", &S::streaming_logit, "peak logit beta of streaming heads")
      .range(0, 100);
  s.field("diffuse_logit", &S::diffuse_logit, "peak logit beta of diffuse heads").range(0, 100);
  s.field("query_ood", &S::query_ood, "RMS per channel of the query's off-key noise / key_scale")
      .min(0);
  s.field("query_bias", &S::query_bias, "norm of the query bias on the outlier channels").min(0);
  s.field("query_drift", &S::query_drift, "per-step correlation of the query latent drift")
      .range(0, 1);
  s.field("query_jitter", &S::query_jitter, "RMS of the query latent drift").min(0);
  s.field("target_switch", &S::target_switch, "per-step probability a head changes target")
      .range(0, 1);
  s.field("needle_depths", &S::needle_depths, "planted needles, as fractions of the context")
      .range(0, 1);
  s.field("needle_tokens", &S::needle_tokens, "tokens per needle").range(1, 1 << 20);
  s.field("needle_norm_matched", &S::needle_norm_matched,
          "rescale each needle's latent to an ordinary token's key energy (false = raw draw)");
  s.field("sink_logit_exact", &S::sink_logit_exact,
          "draw queries' content and off-key noise orthogonal to the sink key, so every query "
          "scores the sink its head's sink logit (false = raw draw)");
  s.rule([](const S& v) -> std::optional<std::string> {
    if (v.q_heads % v.kv_heads != 0)
      return fmt::format("q_heads ({}) must be a multiple of kv_heads ({})", v.q_heads, v.kv_heads);
    if (v.head_dim % 2 != 0) return fmt::format("head_dim ({}) must be even", v.head_dim);
    if (v.rope_ntk_factor != 1 && v.head_dim < 4)
      return fmt::format("rope_ntk_factor needs head_dim >= 4 (got {})", v.head_dim);
    if (v.key_rank > v.head_dim)
      return fmt::format("key_rank ({}) exceeds head_dim ({})", v.key_rank, v.head_dim);
    if (2 * v.outlier_pairs > v.head_dim)
      return fmt::format("outlier_pairs ({}) exceeds head_dim / 2", v.outlier_pairs);
    for (std::size_t i = 0; i < v.layers.size(); ++i) {
      if (v.layers[i] >= v.model_layers)
        return fmt::format("layers: {} is not below model_layers ({})", v.layers[i],
                           v.model_layers);
      for (std::size_t j = 0; j < i; ++j)
        if (v.layers[j] == v.layers[i])
          return fmt::format("layers: {} is listed twice (each model layer at most once)",
                             v.layers[i]);
    }
    if (v.retrieval_fraction + v.streaming_fraction > 1)
      return std::string("retrieval_fraction + streaming_fraction exceeds 1");
    if (v.early_retrieval_fraction + v.early_streaming_fraction > 1)
      return std::string("early_retrieval_fraction + early_streaming_fraction exceeds 1");
    if (!v.needle_depths.empty() && v.needle_tokens + 1 > v.tokens)
      return fmt::format("needle_tokens ({}) does not fit in tokens ({})", v.needle_tokens,
                         v.tokens);
    return std::nullopt;
  });
}

}  // namespace lightsim::kv
