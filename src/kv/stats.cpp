// Calibration statistics (stats.h).
#include "lightsim/kv/stats.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "lightsim/kv/attention.h"
#include "lightsim/kv/generator.h"

namespace lightsim::kv {

std::size_t rank_for_variance(const float* data, std::size_t rows, std::size_t dim,
                              double fraction) {
  const auto n = static_cast<Eigen::Index>(dim);
  Eigen::MatrixXd x(static_cast<Eigen::Index>(rows), n);
  for (std::size_t r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < n; ++c)
      x(static_cast<Eigen::Index>(r), c) = data[r * dim + static_cast<std::size_t>(c)];
  x.rowwise() -= x.colwise().mean();
  const Eigen::MatrixXd cov = x.transpose() * x;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(cov, Eigen::EigenvaluesOnly);
  const Eigen::VectorXd ev = eig.eigenvalues().reverse().cwiseMax(0.0);
  const double total = ev.sum();
  if (total <= 0) return 0;
  double acc = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    acc += ev[i];
    if (acc >= fraction * total * (1 - 1e-12)) return static_cast<std::size_t>(i + 1);
  }
  return dim;
}

std::vector<double> channel_kurtosis(const float* data, std::size_t rows, std::size_t dim) {
  std::vector<double> out(dim, 0.0);
  for (std::size_t c = 0; c < dim; ++c) {
    double mean = 0;
    for (std::size_t r = 0; r < rows; ++r) mean += data[r * dim + c];
    mean /= static_cast<double>(rows);
    double m2 = 0, m4 = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      const double d = data[r * dim + c] - mean;
      m2 += d * d;
      m4 += d * d * d * d;
    }
    m2 /= static_cast<double>(rows);
    m4 /= static_cast<double>(rows);
    out[c] = m2 > 0 ? m4 / (m2 * m2) : 0.0;
  }
  return out;
}

std::vector<std::size_t> outlier_channels(const float* data, std::size_t rows, std::size_t dim,
                                          double ratio) {
  std::vector<double> rms(dim, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < dim; ++c)
      rms[c] += static_cast<double>(data[r * dim + c]) * data[r * dim + c];
  for (auto& v : rms) v = std::sqrt(v / static_cast<double>(rows));
  std::vector<double> sorted = rms;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(dim / 2),
                   sorted.end());
  const double median = sorted[dim / 2];
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < dim; ++c)
    if (rms[c] > ratio * median) out.push_back(c);
  return out;
}

std::size_t tokens_for_mass(std::span<const double> p, double fraction) {
  std::vector<double> s(p.begin(), p.end());
  std::sort(s.begin(), s.end(), std::greater<>());
  const double total = std::accumulate(s.begin(), s.end(), 0.0);
  double acc = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    acc += s[i];
    if (acc >= fraction * total * (1 - 1e-12)) return i + 1;
  }
  return s.size();
}

double adjacent_cosine(const float* data, std::size_t rows, std::size_t dim, bool centered) {
  if (rows < 2) return 0.0;
  std::vector<double> mean(dim, 0.0);
  if (centered) {
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < dim; ++c) mean[c] += data[r * dim + c];
    for (auto& m : mean) m /= static_cast<double>(rows);
  }
  double sum = 0;
  for (std::size_t r = 0; r + 1 < rows; ++r) {
    double ab = 0, aa = 0, bb = 0;
    for (std::size_t c = 0; c < dim; ++c) {
      const double a = data[r * dim + c] - mean[c], b = data[(r + 1) * dim + c] - mean[c];
      ab += a * b;
      aa += a * a;
      bb += b * b;
    }
    sum += aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
  }
  return sum / static_cast<double>(rows - 1);
}

std::size_t key_rank(const HeadView& h, double rope_base, bool pre_rope, double fraction,
                     std::size_t max_tokens) {
  if (pre_rope && rope_base <= 0) return 0;
  const std::size_t dim = h.head_dim;
  const std::size_t stride = std::max<std::size_t>(1, (h.tokens + max_tokens - 1) / max_tokens);
  std::vector<float> keys;
  for (std::size_t t = 0; t < h.tokens; t += stride) {
    keys.insert(keys.end(), h.key(t), h.key(t) + dim);
    if (pre_rope)
      apply_rope(keys.data() + keys.size() - dim, dim, static_cast<double>(t), rope_base, true);
  }
  return rank_for_variance(keys.data(), keys.size() / dim, dim, fraction);
}

namespace {

std::vector<double> tokens90_edges() {
  return {0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0};
}

HeadStats head_stats(const KvCache& cache, std::size_t layer, std::size_t kv_head,
                     const StatsOptions& o, std::vector<std::size_t>& hist) {
  const HeadView h = cache.head(layer, kv_head);
  const std::size_t dim = h.head_dim;
  HeadStats s;
  s.layer = cache.layer_ids[layer];
  s.kv_head = kv_head;
  s.rank_post = key_rank(h, cache.rope_base, false, o.variance_fraction, o.max_rank_tokens);
  s.rank_pre = key_rank(h, cache.rope_base, true, o.variance_fraction, o.max_rank_tokens);
  const std::vector<double> kurt = channel_kurtosis(h.keys, h.tokens, dim);
  s.kurtosis_mean = std::accumulate(kurt.begin(), kurt.end(), 0.0) / static_cast<double>(dim);
  s.kurtosis_max = *std::max_element(kurt.begin(), kurt.end());
  s.key_outliers = outlier_channels(h.keys, h.tokens, dim, o.outlier_ratio);
  s.value_outliers = outlier_channels(h.values, h.tokens, dim, o.outlier_ratio);
  s.adjacent_cos = adjacent_cosine(h.keys, h.tokens, dim, false);
  s.adjacent_cos_centered = adjacent_cosine(h.keys, h.tokens, dim, true);
  // Attention statistics over the group's queries and steps.
  std::vector<double> p, knorm(h.tokens);
  for (std::size_t t = 0; t < h.tokens; ++t) {
    double n = 0;
    for (std::size_t c = 0; c < dim; ++c) n += static_cast<double>(h.key(t)[c]) * h.key(t)[c];
    knorm[t] = std::sqrt(n);
  }
  const std::vector<double> edges = tokens90_edges();
  const double samples = static_cast<double>(h.group * h.steps);
  const std::size_t recent = std::min(o.recent_tokens, h.tokens);
  for (std::size_t g = 0; g < h.group; ++g)
    for (std::size_t step = 0; step < h.steps; ++step) {
      attention_weights(h, g, step, p);
      s.sink_mass += p[0] / samples;
      s.recent_mass +=
          std::accumulate(p.end() - static_cast<std::ptrdiff_t>(recent), p.end(), 0.0) / samples;
      const double frac =
          static_cast<double>(tokens_for_mass(p, o.mass_fraction)) / static_cast<double>(h.tokens);
      s.tokens90_fraction += frac / samples;
      std::size_t bin = 0;
      while (bin + 2 < edges.size() && frac > edges[bin + 1]) ++bin;
      ++hist[bin];
      const float* q = h.query(g, step);
      double qn = 0;
      for (std::size_t c = 0; c < dim; ++c) qn += static_cast<double>(q[c]) * q[c];
      qn = std::sqrt(qn);
      double mean_cos = 0, max_cos = -1;
      for (std::size_t t = 0; t < h.tokens; ++t) {
        double d = 0;
        for (std::size_t c = 0; c < dim; ++c) d += static_cast<double>(q[c]) * h.key(t)[c];
        const double cs = qn > 0 && knorm[t] > 0 ? d / (qn * knorm[t]) : 0.0;
        mean_cos += cs / static_cast<double>(h.tokens);
        max_cos = std::max(max_cos, cs);
      }
      s.qk_cos_mean += mean_cos / samples;
      s.qk_cos_max += max_cos / samples;
    }
  return s;
}

}  // namespace

StatsReport calibration_report(const KvCache& cache, const StatsOptions& o, Context& ctx) {
  const KvGeometry& g = cache.geometry();
  StatsReport r;
  r.source = cache.source;
  r.geometry = g;
  r.rope_base = cache.rope_base;
  r.options = o;
  r.tokens90_edges = tokens90_edges();
  const std::size_t heads = g.layers * g.kv_heads;
  r.heads.resize(heads);
  std::vector<std::vector<std::size_t>> hists(
      heads, std::vector<std::size_t>(r.tokens90_edges.size() - 1));
  parallel_for(
      ctx, heads,
      [&](std::size_t i) {
        r.heads[i] = head_stats(cache, i / g.kv_heads, i % g.kv_heads, o, hists[i]);
      },
      1);
  r.tokens90_hist.assign(r.tokens90_edges.size() - 1, 0);
  for (const auto& hh : hists)
    for (std::size_t b = 0; b < hh.size(); ++b) r.tokens90_hist[b] += hh[b];
  return r;
}

}  // namespace lightsim::kv
