// Quantization-aware training of the signature projection (qat.h).
#include "lightsim/prism/qat.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "lightsim/core/error.h"
#include "lightsim/core/rng.h"
#include "lightsim/kv/attention.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/prism/drift_time.h"
#include "lightsim/prism/programming.h"

namespace lightsim::prism {
namespace {

constexpr std::uint64_t kQatStream = 0x514154;  // "QAT"

using RowMatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Qx of encode_query on one value already in [0, 1].
double quantize_unit(double u, double levels) {
  return std::round(u * levels) / levels;
}

}  // namespace

QatOptions qat_options_for(const AcceleratorSpec& a) {
  QatOptions o;
  o.weight_bits = a.programming.weight_bits;
  o.weight_levels = a.programming.weight_levels;
  o.query_bits = a.electronics.query_bits;
  o.weight_range = a.device.requirements.weight_range;
  return o;
}

QatData make_qat_data(const kv::HeadView& head, const kv::BlockLayout& layout,
                      std::span<const std::size_t> steps) {
  QatData d;
  d.head_dim = head.head_dim;
  d.blocks = layout.blocks();
  d.block_means = kv::block_mean_keys(head, layout);
  d.steps.assign(steps.begin(), steps.end());
  d.is_candidate.assign(d.blocks, 0);
  for (std::size_t b : layout.candidates()) d.is_candidate[b] = 1;
  d.queries.assign(steps.size() * head.head_dim, 0.0f);
  d.mass.assign(steps.size() * d.blocks, 0.0);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    LIGHTSIM_CHECK_AS(InputError, steps[i] < head.steps, "QAT: decode step {} of {}", steps[i],
                      head.steps);
    float* q = d.queries.data() + i * head.head_dim;
    for (std::size_t g = 0; g < head.group; ++g)
      for (std::size_t j = 0; j < head.head_dim; ++j) q[j] += head.query(g, steps[i])[j];
    const std::vector<double> mass = kv::group_block_mass(head, layout, steps[i]);
    double total = 0;
    for (std::size_t b = 0; b < d.blocks; ++b) total += mass[b];
    for (std::size_t b = 0; b < d.blocks; ++b)
      d.mass[i * d.blocks + b] = total > 0 ? mass[b] / total : 0.0;
  }
  return d;
}

double qat_epoch(const QatData& data, const QatOptions& o, std::vector<float>& p, std::size_t dim,
                 std::vector<double>& m, std::vector<double>& v, long& t, std::uint64_t seed,
                 std::uint64_t stream_id, int epoch) {
  const std::size_t nd = data.head_dim, nb = data.blocks, ns = data.steps.size();
  LIGHTSIM_CHECK(p.size() == dim * nd && m.size() == p.size() && v.size() == p.size(),
                 "QAT: projection and Adam state must be d x D");
  LIGHTSIM_CHECK_AS(InputError, o.temperature > 0 && o.batch > 0 && o.learning_rate > 0,
                    "QAT: temperature, batch and learning_rate must be positive");
  const double levels = std::ldexp(1.0, o.query_bits) - 1.0;
  const Eigen::Map<const RowMatrixF> means(data.block_means.data(), static_cast<Eigen::Index>(nb),
                                           static_cast<Eigen::Index>(nd));
  RowMatrixF sig(static_cast<Eigen::Index>(nb), static_cast<Eigen::Index>(dim));
  RowMatrixF w(sig.rows(), sig.cols()), gs(sig.rows(), sig.cols());
  Eigen::MatrixXd grad(static_cast<Eigen::Index>(dim), static_cast<Eigen::Index>(nd));
  std::vector<double> u(dim), vq(dim), du(dim), s(nb), z(nb);
  double loss_sum = 0;
  for (std::size_t b0 = 0; b0 < ns; b0 += o.batch) {
    const std::size_t b1 = std::min(ns, b0 + o.batch);
    const Eigen::Map<const RowMatrixF> pm(p.data(), static_cast<Eigen::Index>(dim),
                                          static_cast<Eigen::Index>(nd));
    sig.noalias() = means * pm.transpose();
    const float mx = sig.cwiseAbs().maxCoeff();
    const double wscale = mx > 0 ? o.weight_range / mx : 0.0;  // dW / dS under the STE
    for (Eigen::Index i = 0; i < sig.size(); ++i)
      w.data()[i] =
          mx > 0
              ? static_cast<float>(o.weight_range * quantize_weight(sig.data()[i] / mx,
                                                                    o.weight_bits, o.weight_levels))
              : 0.0f;
    gs.setZero();
    grad.setZero();
    for (std::size_t k = b0; k < b1; ++k) {
      const float* q = data.queries.data() + k * nd;
      double umax = 0;
      for (std::size_t i = 0; i < dim; ++i) {
        double a = 0;
        for (std::size_t j = 0; j < nd; ++j) a += static_cast<double>(p[i * nd + j]) * q[j];
        u[i] = a;
        umax = std::max(umax, std::abs(a));
      }
      for (std::size_t i = 0; i < dim; ++i)
        vq[i] = quantize_unit(umax > 0 ? 0.5 * (1.0 + u[i] / umax) : 0.5, levels) - 0.5;
      if (o.score_noise > 0) {
        RandomStream noise(
            seed, {kQatStream, stream_id, static_cast<std::uint64_t>(epoch), data.steps[k]});
        noise.fill_normal(std::span<double>(z));
      }
      double smax = -std::numeric_limits<double>::infinity();
      for (std::size_t b = 0; b < nb; ++b) {
        if (!data.is_candidate[b]) continue;
        double a = 0;
        for (std::size_t i = 0; i < dim; ++i) a += static_cast<double>(w(b, i)) * vq[i];
        s[b] = (a + (o.score_noise > 0 ? o.score_noise * z[b] : 0.0)) / o.temperature;
        smax = std::max(smax, s[b]);
      }
      double zsum = 0;
      for (std::size_t b = 0; b < nb; ++b)
        if (data.is_candidate[b]) zsum += std::exp(s[b] - smax);
      const double logz = smax + std::log(zsum);
      std::fill(du.begin(), du.end(), 0.0);
      const double* target = data.mass.data() + k * nb;
      for (std::size_t b = 0; b < nb; ++b) {
        if (!data.is_candidate[b]) continue;
        loss_sum -= target[b] * (s[b] - logz);
        const double g = (std::exp(s[b] - logz) - target[b]) / o.temperature;  // dL / ds_b
        for (std::size_t i = 0; i < dim; ++i) {
          gs(b, i) += static_cast<float>(g * vq[i]);  // dL / dW_b
          du[i] += g * w(b, i);                       // dL / dv
        }
      }
      // v = Qx((1 + u / umax) / 2) - 1/2: dv / du = 1 / (2 umax) under the STE.
      for (std::size_t i = 0; i < dim; ++i) {
        const double gu = umax > 0 ? du[i] / (2.0 * umax) : 0.0;
        for (std::size_t j = 0; j < nd; ++j) grad(i, j) += gu * q[j];
      }
    }
    // dL / dP from the signatures: (dL / dS)^T Mb, dL / dS = wscale dL / dW (STE).
    grad += wscale * (gs.transpose() * means).cast<double>();
    grad /= static_cast<double>(b1 - b0);
    ++t;
    // The loss is invariant to the scale of P (both normalizers scale with it), so the step is
    // relative: learning_rate x the RMS entry of P.
    double p2 = 0;
    for (float e : p) p2 += static_cast<double>(e) * e;
    const double step = o.learning_rate * std::sqrt(p2 / static_cast<double>(p.size()));
    const double c1 = 1.0 - std::pow(o.beta1, static_cast<double>(t));
    const double c2 = 1.0 - std::pow(o.beta2, static_cast<double>(t));
    for (std::size_t i = 0; i < dim; ++i)
      for (std::size_t j = 0; j < nd; ++j) {
        const std::size_t e = i * nd + j;
        const double g = grad(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
        m[e] = o.beta1 * m[e] + (1 - o.beta1) * g;
        v[e] = o.beta2 * v[e] + (1 - o.beta2) * g * g;
        p[e] -= static_cast<float>(step * (m[e] / c1) / (std::sqrt(v[e] / c2) + o.adam_epsilon));
      }
  }
  return ns > 0 ? loss_sum / static_cast<double>(ns) : 0.0;
}

QatResult train_qat(const QatData& data, const kv::ProjectionMatrix& init, const QatOptions& o,
                    std::uint64_t seed, std::uint64_t stream_id) {
  LIGHTSIM_CHECK_AS(InputError, init.head_dim == data.head_dim,
                    "QAT: the initial projection is {} wide but the head has D = {}", init.head_dim,
                    data.head_dim);
  LIGHTSIM_CHECK_AS(InputError, o.epochs >= 0, "QAT: epochs must be >= 0");
  QatResult r;
  r.projection = init;
  std::vector<double> m(init.rows.size(), 0.0), v(init.rows.size(), 0.0);
  long t = 0;
  for (int e = 0; e < o.epochs; ++e)
    r.loss.push_back(qat_epoch(data, o, r.projection.rows, init.dim, m, v, t, seed, stream_id, e));
  return r;
}

double measure_score_noise(const AcceleratorSpec& a, std::uint64_t seed, int rows, int queries) {
  const int d = a.device.grid.channels;
  LIGHTSIM_CHECK_AS(InputError, rows > 0 && queries > 1, "measure_score_noise: rows {} queries {}",
                    rows, queries);
  RandomStream draw(seed, {kQatStream, 0x4e4f495345 /* "NOISE" */});
  std::vector<float> weights(static_cast<std::size_t>(rows) * d);
  const double range = a.device.requirements.weight_range;
  for (float& x : weights) x = static_cast<float>(range * (2.0 * draw.uniform() - 1.0));
  photonics::MvmKernel kernel(a.device, kernel_impairments(a), weights);
  std::vector<float> x(static_cast<std::size_t>(d)), s1(static_cast<std::size_t>(rows)),
      s2(s1.size());
  double sum = 0, sum2 = 0;
  std::size_t n = 0;
  for (int k = 0; k < queries; ++k) {
    draw.fill_uniform(std::span<float>(x));
    RandomStream n1(seed, {kQatStream, 1, static_cast<std::uint64_t>(k)});
    RandomStream n2(seed, {kQatStream, 2, static_cast<std::uint64_t>(k)});
    kernel.score(x, s1, n1);
    kernel.score(x, s2, n2);
    for (std::size_t r = 0; r < s1.size(); ++r) {
      const double e = static_cast<double>(s1[r]) - s2[r];
      sum += e;
      sum2 += e * e;
      ++n;
    }
  }
  const double mean = sum / static_cast<double>(n);
  const double var = std::max(0.0, sum2 / static_cast<double>(n) - mean * mean);
  return std::sqrt(var / 2.0);
}

std::size_t qat_training_steps(std::size_t steps, double train_fraction) {
  const auto n = static_cast<std::size_t>(std::floor(train_fraction * static_cast<double>(steps)));
  return std::max<std::size_t>(n, 1);
}

kv::ProjectionFitter qat_projection(const QatOptions& options, double train_fraction,
                                    const kv::BlockOptions& blocks) {
  return [options, train_fraction, blocks](const kv::ProjectionInput& in) {
    const kv::HeadView& h = *in.head;
    const kv::BlockLayout layout(h.tokens, blocks);
    std::vector<std::size_t> steps(qat_training_steps(h.steps, train_fraction));
    for (std::size_t i = 0; i < steps.size(); ++i) steps[i] = i;
    const kv::ProjectionMatrix init = kv::pca_projection(h.keys, h.tokens, h.head_dim, in.dim);
    const QatData data = make_qat_data(h, layout, steps);
    const std::uint64_t id = (static_cast<std::uint64_t>(in.layer) << 32) | in.kv_head;
    // The noise seed comes from the head's own stream (deterministic per head).
    std::uint64_t seed = 0;
    if (in.rng != nullptr)
      seed = (static_cast<std::uint64_t>(in.rng->next_u32()) << 32) | in.rng->next_u32();
    return train_qat(data, init, options, seed, id).projection;
  };
}

void register_qat_projection(kv::ProjectionFamily& family, const QatOptions& options,
                             double train_fraction) {
  family.add("qat",
             "PCA, then quantization-aware training through the bank's quantizers and noise on "
             "the first part of the head's decode queries (prism module)",
             qat_projection(options, train_fraction));
}

}  // namespace lightsim::prism
