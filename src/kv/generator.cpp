// The synthetic KV model documented in generator.h and docs/kv-data.md.
#include "lightsim/kv/generator.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "lightsim/core/error.h"
#include "lightsim/core/input_file.h"
#include "lightsim/core/memory_budget.h"
#include "lightsim/core/progress.h"

namespace lightsim::kv {

namespace {

// theta_i = base^(-2i/D) of the RoPE pairs i < D/2 (Su et al. 2021, RoFormer).
std::vector<double> rope_thetas(std::size_t dim, double base) {
  std::vector<double> theta(dim / 2);
  for (std::size_t i = 0; i < theta.size(); ++i)
    theta[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(dim));
  return theta;
}

// Rotates pair (i, i + D/2) by sign * pos * theta_i.
void rotate_pairs(float* x, std::span<const double> theta, double pos, double sign) {
  const std::size_t half = theta.size();
  for (std::size_t i = 0; i < half; ++i) {
    const double angle = sign * pos * theta[i];
    const double c = std::cos(angle), s = std::sin(angle);
    const double a = x[i], b = x[i + half];
    x[i] = static_cast<float>(a * c - b * s);
    x[i + half] = static_cast<float>(a * s + b * c);
  }
}

}  // namespace

void apply_rope(float* x, std::size_t dim, double pos, double base, bool inverse) {
  rotate_pairs(x, rope_thetas(dim, base), pos, inverse ? -1.0 : 1.0);
}

namespace {

constexpr std::uint64_t kStreamTag = 0x6b76;  // "kv"
// Tokens generated between two polls of the stop flag (a few ms of work at head_dim 128).
constexpr std::size_t kCancelPollTokens = 4096;
enum Purpose : std::uint64_t { kParams = 0, kTokens = 1, kQueries = 2 };
constexpr std::uint64_t kLayerStream = 1ull << 40;  // head id of the per-layer stream
enum class HeadType { retrieval, streaming, diffuse };
constexpr double kNeedleNoise = 0.3;  // RMS per latent dim of a needle token around its latent

// Per-head parameters drawn once from the head's parameter stream.
struct HeadModel {
  Eigen::MatrixXd key_basis, value_basis;  // D x r, orthonormal columns
  Eigen::VectorXd sigma;                   // r
  Eigen::VectorXd offset_and_outliers;     // D
  Eigen::VectorXd bias;                    // D, query bias on the anchor channels
  std::vector<Eigen::VectorXd> needle_latents;
  HeadType type = HeadType::diffuse;
  double beta = 0;
};

Eigen::VectorXd normals(RandomStream& rng, Eigen::Index n) {
  Eigen::VectorXd v(n);
  // The bulk fill equals n scalar normal() draws (core/rng.h), at the bulk kernel's speed.
  rng.fill_normal(std::span<double>(v.data(), static_cast<std::size_t>(n)));
  return v;
}

Eigen::MatrixXd orthonormal_basis(RandomStream& rng, const KvGeneratorSpec& sp, Eigen::Index r,
                                  bool rope_weighted) {
  const auto dim = static_cast<Eigen::Index>(sp.head_dim);
  Eigen::MatrixXd g(dim, r);
  for (Eigen::Index j = 0; j < r; ++j) g.col(j) = normals(rng, dim);
  if (rope_weighted) {
    for (Eigen::Index c = 0; c < dim; ++c) {
      const double i = static_cast<double>(c % (dim / 2));
      const double wavelength =
          2 * std::numbers::pi * std::pow(sp.rope_base, 2.0 * i / static_cast<double>(dim));
      g.row(c) *= std::pow(std::min(1.0, wavelength / sp.semantic_wavelength), 2.0);
    }
  }
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  return qr.householderQ() * Eigen::MatrixXd::Identity(dim, r);
}

// Head types are stratified within a layer: head h takes u = frac((h + phase) / kv_heads) with
// a per-layer random phase, so each layer holds the configured shares to within one head.
// Layers below early_layers take the early fractions.
HeadModel draw_head(const KvGeneratorSpec& sp, RandomStream rng, double u, bool early) {
  const auto dim = static_cast<Eigen::Index>(sp.head_dim);
  const auto r = static_cast<Eigen::Index>(sp.key_rank);
  const double retrieval = early ? sp.early_retrieval_fraction : sp.retrieval_fraction;
  const double streaming = early ? sp.early_streaming_fraction : sp.streaming_fraction;
  HeadModel m;
  m.type = u < retrieval               ? HeadType::retrieval
           : u < retrieval + streaming ? HeadType::streaming
                                       : HeadType::diffuse;
  const double beta = m.type == HeadType::retrieval   ? sp.retrieval_logit
                      : m.type == HeadType::streaming ? sp.streaming_logit
                                                      : sp.diffuse_logit;
  m.beta = beta * std::exp(0.2 * rng.normal());
  m.key_basis = orthonormal_basis(rng, sp, r, true);
  m.value_basis = orthonormal_basis(rng, sp, r, false);
  m.sigma.resize(r);
  for (Eigen::Index i = 0; i < r; ++i)
    m.sigma[i] = std::pow(static_cast<double>(i + 1), -sp.spectrum_decay);
  m.sigma *= sp.key_scale * std::sqrt(static_cast<double>(dim)) / m.sigma.norm();
  m.offset_and_outliers = sp.offset_scale * normals(rng, dim);
  // Anchor channels: both channels of the lowest-frequency pairs (outliers, bias, sink).
  const Eigen::Index half = dim / 2;
  const Eigen::Index pairs = std::max<Eigen::Index>(1, sp.outlier_pairs);
  m.bias = Eigen::VectorXd::Zero(dim);
  for (Eigen::Index i = half - pairs; i < half; ++i) {
    for (Eigen::Index c : {i, i + half}) {
      const double sign = rng.uniform() < 0.5 ? -1.0 : 1.0;
      if (sp.outlier_pairs > 0) m.offset_and_outliers[c] += sign * sp.outlier_scale * sp.key_scale;
      m.bias[c] = sign;
    }
  }
  m.bias *= sp.query_bias / m.bias.norm();
  for (std::size_t n = 0; n < sp.needle_depths.size(); ++n) {
    m.needle_latents.push_back(normals(rng, r));
    if (sp.needle_norm_matched) {
      // One draw per needle stands for 32 tokens, so its energy |sigma * z|^2 is a single
      // chi-square draw; rescale it (with the 0.3 within-needle noise added at each token) to
      // an ordinary token's expectation sum sigma_i^2, so a needle is not a long key by chance.
      const double energy = m.sigma.cwiseProduct(m.needle_latents.back()).squaredNorm();
      m.needle_latents.back() *= std::sqrt((1 - kNeedleNoise * kNeedleNoise) *
                                           m.sigma.squaredNorm() / std::max(1e-30, energy));
    }
  }
  return m;
}

// sink_logit_exact (generator.h): x minus its component along the sink key's direction as a
// query at `position` sees it. The sink vector lies along the bias b at position 0, so after
// RoPE q . k_0 gets (b + x) . R(-position) b_hat from it; removing x's component along
// d = R(-position) b_hat leaves the bias's own term, sink_logit times the mean cosine of the
// anchor pairs' rotation by `position`, the same for every query at that position.
Eigen::VectorXd orthogonal_to_sink(Eigen::VectorXd x, const Eigen::VectorXd& bias,
                                   std::span<const double> theta, double position) {
  const double norm = bias.norm();
  if (norm == 0) return x;  // query_bias 0: no sink direction
  Eigen::VectorXd d = bias / norm;
  const std::size_t half = theta.size();
  for (std::size_t i = 0; i < half; ++i) {
    const auto a = static_cast<Eigen::Index>(i), b = static_cast<Eigen::Index>(i + half);
    const double angle = -position * theta[i];
    const double co = std::cos(angle), si = std::sin(angle);
    const double u = d[a], v = d[b];
    d[a] = u * co - v * si;
    d[b] = u * si + v * co;
  }
  x -= x.dot(d) * d;
  return x;
}

void store(float* out, const Eigen::VectorXd& v) {
  for (Eigen::Index i = 0; i < v.size(); ++i) out[i] = static_cast<float>(v[i]);
}

}  // namespace

double effective_rope_base(const KvGeneratorSpec& sp) {
  if (sp.rope_ntk_factor == 1 || sp.tokens <= sp.rope_original_context) return sp.rope_base;
  const double f = sp.rope_ntk_factor;
  const double d = static_cast<double>(sp.head_dim);
  const double ratio =
      static_cast<double>(sp.tokens) / static_cast<double>(sp.rope_original_context);
  return sp.rope_base * std::pow(f * ratio - (f - 1), d / (d - 2));
}

KvGeometry generated_geometry(const KvGeneratorSpec& sp) {
  KvGeometry g;
  g.layers = sp.layers.empty() ? static_cast<std::size_t>(sp.model_layers) : sp.layers.size();
  g.kv_heads = static_cast<std::size_t>(sp.kv_heads);
  g.q_heads = static_cast<std::size_t>(sp.q_heads);
  g.head_dim = static_cast<std::size_t>(sp.head_dim);
  g.tokens = static_cast<std::size_t>(sp.tokens);
  g.steps = static_cast<std::size_t>(sp.steps);
  return g;
}

std::uint64_t generator_thread_bytes(const KvGeneratorSpec& spec) {
  return bytes_of(
      bytes_of(static_cast<std::uint64_t>(spec.tokens), static_cast<std::uint64_t>(spec.key_rank)),
      sizeof(float));
}

void require_generator_memory(const KvGeneratorSpec& spec, std::uint64_t memory_budget_bytes,
                              std::size_t threads, std::uint64_t thread_bytes,
                              std::uint64_t held_bytes) {
  const KvGeometry g = generated_geometry(spec);
  const std::uint64_t workers =
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads, g.layers * g.kv_heads));
  const std::uint64_t per_thread = std::max(generator_thread_bytes(spec), thread_bytes);
  const std::uint64_t arrays = g.array_bytes();
  const std::string held =
      held_bytes > 0 ? fmt::format(", beside ~{} held", format_bytes(held_bytes)) : "";
  require_memory(add_bytes(add_bytes(arrays, bytes_of(workers, per_thread)), held_bytes),
                 memory_budget_bytes,
                 fmt::format("a generated KV cache of {} layers x {} KV heads x {} tokens x {} "
                             "channels (~{} of arrays, {} worker thread(s) x ~{} of per-head "
                             "buffers{})",
                             g.layers, g.kv_heads, g.tokens, g.head_dim, format_bytes(arrays),
                             workers, format_bytes(per_thread), held));
}

KvCache generate_kv_cache(const KvGeneratorSpec& spec, Context& ctx,
                          std::string_view progress_label) {
  require_generator_memory(spec, ctx.memory_budget(), ctx.threads());
  KvGeneratorSpec sp = spec;
  sp.rope_base = effective_rope_base(spec);
  const KvGeometry g = generated_geometry(sp);
  KvCache cache(g);
  if (!sp.layers.empty())
    for (std::size_t l = 0; l < g.layers; ++l)
      cache.layer_ids[l] = static_cast<std::size_t>(sp.layers[l]);
  cache.rope_base = sp.rope_base;
  cache.source = "synthetic:" + sp.model;
  cache.storage = sp.dtype == "float32"   ? NpyDtype::kFloat32
                  : sp.dtype == "float16" ? NpyDtype::kFloat16
                                          : NpyDtype::kBFloat16;
  const auto needle_len = static_cast<std::size_t>(sp.needle_tokens);
  for (double depth : sp.needle_depths) {
    // Token 0 is the sink, so a needle starts at token 1 or later.
    const auto begin = std::max<std::size_t>(
        1,
        static_cast<std::size_t>(std::floor(depth * static_cast<double>(g.tokens - needle_len))));
    cache.needles.push_back({begin, std::min(g.tokens, begin + needle_len)});
  }

  const auto dim = static_cast<Eigen::Index>(g.head_dim);
  const auto r = static_cast<Eigen::Index>(sp.key_rank);
  const std::vector<double> thetas = rope_thetas(g.head_dim, sp.rope_base);
  std::optional<ProgressTask> progress;
  if (!progress_label.empty())
    progress.emplace(ctx.progress().start(std::string(progress_label), g.layers * g.kv_heads));
  parallel_for(
      ctx, g.layers * g.kv_heads,
      [&](std::size_t index) {
        const std::size_t layer = index / g.kv_heads, head = index % g.kv_heads;
        const std::uint64_t layer_id = cache.layer_ids[layer];
        const double phase = ctx.stream(kStreamTag, layer_id, kLayerStream, kParams).uniform();
        const double u =
            std::fmod((static_cast<double>(head) + phase) / static_cast<double>(g.kv_heads), 1.0);
        const bool early = static_cast<std::int64_t>(layer_id) < sp.early_layers;
        const HeadModel m =
            draw_head(sp, ctx.stream(kStreamTag, layer_id, head, kParams), u, early);
        const bool streaming = m.type == HeadType::streaming;
        const Eigen::VectorXd sink = (streaming ? sp.sink_logit_streaming : sp.sink_logit) *
                                     std::sqrt(static_cast<double>(dim)) * m.bias /
                                     std::max(1e-30, m.bias.squaredNorm());

        // Keys and values, token by token.
        RandomStream rng = ctx.stream(kStreamTag, layer_id, head, kTokens);
        std::vector<float> latents(g.tokens * static_cast<std::size_t>(r));
        Eigen::VectorXd topic = normals(rng, r), local = normals(rng, r);
        std::size_t segment_end = 0;
        const double tw = std::sqrt(sp.topic_weight), lw = std::sqrt(1 - sp.topic_weight);
        const double phi = sp.local_correlation, phi_c = std::sqrt(1 - phi * phi);
        float* keys = cache.keys(layer, head);
        float* values = cache.values(layer, head);
        for (std::size_t t = 0; t < g.tokens; ++t) {
          if (t % kCancelPollTokens == 0) ctx.throw_if_cancelled("kv generate");
          if (t >= segment_end) {
            topic = normals(rng, r);
            segment_end = t + 1 +
                          static_cast<std::size_t>(
                              std::floor(-std::log1p(-rng.uniform()) * sp.segment_tokens));
          }
          local = phi * local + phi_c * normals(rng, r);
          Eigen::VectorXd z = tw * topic + lw * local;
          for (std::size_t n = 0; n < cache.needles.size(); ++n)
            if (t >= cache.needles[n].begin && t < cache.needles[n].end)
              z = m.needle_latents[n] + kNeedleNoise * normals(rng, r);
          for (Eigen::Index i = 0; i < r; ++i)
            latents[t * static_cast<std::size_t>(r) + static_cast<std::size_t>(i)] =
                static_cast<float>(z[i]);
          const Eigen::VectorXd sz = m.sigma.cwiseProduct(z);
          Eigen::VectorXd k =
              m.offset_and_outliers + m.key_basis * sz + sp.noise_scale * normals(rng, dim);
          if (t == 0) k += sink;
          const Eigen::VectorXd v = m.value_basis * sz + sp.noise_scale * normals(rng, dim);
          float* kt = keys + t * g.head_dim;
          store(kt, k);
          rotate_pairs(kt, thetas, static_cast<double>(t), 1.0);  // apply_rope, theta hoisted
          store(values + t * g.head_dim, v);
        }

        // Decode queries of the head's query group.
        // q . k over the latent is c * w . z (queries carry w / sigma): a key whose latent
        // equals the target (|z|^2 ~ r) scores beta nats, an unrelated one ~ N(0, beta^2 / r).
        const double c = m.beta * std::sqrt(static_cast<double>(dim)) / static_cast<double>(r);
        auto latent = [&](std::size_t t) {
          Eigen::VectorXd z(r);
          for (Eigen::Index i = 0; i < r; ++i)
            z[i] = latents[t * static_cast<std::size_t>(r) + static_cast<std::size_t>(i)];
          return z;
        };
        // The first `needle_heads` query heads of a retrieval group target the needles.
        const auto needle_heads = static_cast<std::size_t>(
            std::round(sp.retrieval_group_share * static_cast<double>(g.group())));
        for (std::size_t gq = 0; gq < g.group(); ++gq) {
          const std::size_t q_head = head * g.group() + gq;
          RandomStream qrng = ctx.stream(kStreamTag, layer_id, q_head + (1u << 20), kQueries);
          auto random_token = [&] {
            return std::min(g.tokens - 1, static_cast<std::size_t>(qrng.uniform() *
                                                                   static_cast<double>(g.tokens)));
          };
          std::size_t target = random_token();
          Eigen::VectorXd drift = sp.query_jitter * normals(qrng, r);
          float* queries = cache.queries(layer, q_head);
          for (std::size_t s = 0; s < g.steps; ++s) {
            if (s > 0)
              drift = sp.query_drift * drift + std::sqrt(1 - sp.query_drift * sp.query_drift) *
                                                   sp.query_jitter * normals(qrng, r);
            Eigen::VectorXd w;
            if (m.type == HeadType::streaming) {
              w = latent(g.tokens - 1);
            } else if (m.type == HeadType::retrieval && !m.needle_latents.empty() &&
                       gq < needle_heads) {
              w = m.needle_latents[gq % m.needle_latents.size()];  // heads split the needles
            } else {
              if (m.type == HeadType::diffuse || qrng.uniform() < sp.target_switch)
                target = random_token();
              w = latent(target);
            }
            w += drift;
            const double position = static_cast<double>(g.tokens + s);
            Eigen::VectorXd q;
            if (!sp.sink_logit_exact) {
              q = m.bias + c * (m.key_basis * w.cwiseQuotient(m.sigma)) +
                  sp.query_ood * sp.key_scale * normals(qrng, dim);
            } else {
              Eigen::VectorXd x = c * (m.key_basis * w.cwiseQuotient(m.sigma)) +
                                  sp.query_ood * sp.key_scale * normals(qrng, dim);
              q = m.bias + orthogonal_to_sink(x, m.bias, thetas, position);
            }
            float* qs = queries + s * g.head_dim;
            store(qs, q);
            apply_rope(qs, g.head_dim, position, sp.rope_base);
          }
        }
        if (progress) progress->advance();
      },
      1);
  if (progress) progress->finish();
  return cache;
}

}  // namespace lightsim::kv
