#include "lightsim/kv/projection.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/ranges.h>

#include "lightsim/core/error.h"
#include "lightsim/core/parallel.h"
#include "lightsim/kv/register.h"

namespace lightsim::kv {

void ProjectionMatrix::apply(const float* x, float* out) const {
  for (std::size_t i = 0; i < dim; ++i) {
    const float* row = rows.data() + i * head_dim;
    float s = 0;
    for (std::size_t j = 0; j < head_dim; ++j) s += row[j] * x[j];
    out[i] = s;
  }
}

namespace {

// cov (column-major n x n, n = head_dim) += sum_r x_r x_r^T over the lower triangle, with
// x_r = row r of data minus mean, in double. Each element is summed over r in order with one
// product x_i * x_j and one add per row, exactly what successive rank-1 updates
// (Eigen's cov.selfadjointView<Lower>().rankUpdate(x_r)) compute, so the result is
// bit-identical to them; but each 4 x 4 tile of cov stays in registers over a chunk of
// centred rows instead of the whole triangle streaming through memory once per row. The
// diagonal tiles also fill some upper elements, which the caller overwrites from the lower.
void accumulate_covariance(const float* data, std::size_t rows, std::size_t n, const double* mean,
                           double* cov) {
  constexpr std::size_t kChunk = 256, kTile = 4;
  std::vector<double> x(kChunk * n);
  for (std::size_t r0 = 0; r0 < rows; r0 += kChunk) {
    const std::size_t nr = std::min(kChunk, rows - r0);
    for (std::size_t r = 0; r < nr; ++r)
      for (std::size_t j = 0; j < n; ++j) x[r * n + j] = data[(r0 + r) * n + j] - mean[j];
    for (std::size_t i0 = 0; i0 < n; i0 += kTile)
      for (std::size_t j0 = i0; j0 < n; j0 += kTile) {
        if (i0 + kTile > n || j0 + kTile > n) {  // edge tile: one element at a time
          for (std::size_t i = i0; i < std::min(n, i0 + kTile); ++i)
            for (std::size_t j = std::max(i, j0); j < std::min(n, j0 + kTile); ++j) {
              double c = cov[i * n + j];
              for (std::size_t r = 0; r < nr; ++r) c += x[r * n + i] * x[r * n + j];
              cov[i * n + j] = c;
            }
          continue;
        }
        double acc[kTile][kTile];  // acc[a][b]: element (row j0 + b, column i0 + a)
        for (std::size_t a = 0; a < kTile; ++a)
          for (std::size_t b = 0; b < kTile; ++b) acc[a][b] = cov[(i0 + a) * n + j0 + b];
        for (std::size_t r = 0; r < nr; ++r) {
          const double* xr = x.data() + r * n;
          for (std::size_t a = 0; a < kTile; ++a)
            for (std::size_t b = 0; b < kTile; ++b) acc[a][b] += xr[i0 + a] * xr[j0 + b];
        }
        for (std::size_t a = 0; a < kTile; ++a)
          for (std::size_t b = 0; b < kTile; ++b) cov[(i0 + a) * n + j0 + b] = acc[a][b];
      }
  }
}

}  // namespace

ProjectionMatrix pca_projection(const float* data, std::size_t rows, std::size_t head_dim,
                                std::size_t dim) {
  const auto n = static_cast<Eigen::Index>(head_dim);
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(n);
  for (std::size_t r = 0; r < rows; ++r)
    for (Eigen::Index j = 0; j < n; ++j)
      mean[j] += data[r * head_dim + static_cast<std::size_t>(j)];
  mean /= static_cast<double>(rows);
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(n, n);
  accumulate_covariance(data, rows, head_dim, mean.data(), cov.data());
  cov = cov.selfadjointView<Eigen::Lower>();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(cov);
  LIGHTSIM_CHECK(eig.info() == Eigen::Success, "PCA eigensolver failed");
  ProjectionMatrix p{dim, head_dim, std::vector<float>(dim * head_dim)};
  for (std::size_t i = 0; i < dim; ++i) {
    const Eigen::Index col = n - 1 - static_cast<Eigen::Index>(i);  // ascending eigenvalues
    for (Eigen::Index j = 0; j < n; ++j)
      p.rows[i * head_dim + static_cast<std::size_t>(j)] =
          static_cast<float>(eig.eigenvectors()(j, col));
  }
  return p;
}

namespace {

void check_dim(const ProjectionInput& in) {
  LIGHTSIM_CHECK_AS(InputError, in.dim >= 1 && in.dim <= in.head->head_dim,
                    "projection dimension d = {} must be in [1, head_dim = {}]", in.dim,
                    in.head->head_dim);
}

ProjectionMatrix fit_pca(const ProjectionInput& in) {
  check_dim(in);
  return pca_projection(in.head->keys, in.head->tokens, in.head->head_dim, in.dim);
}

ProjectionMatrix fit_pca_qk(const ProjectionInput& in) {
  check_dim(in);
  const HeadView& h = *in.head;
  std::vector<float> data(h.keys, h.keys + h.tokens * h.head_dim);
  data.insert(data.end(), h.queries, h.queries + h.group * h.steps * h.head_dim);
  return pca_projection(data.data(), h.tokens + h.group * h.steps, h.head_dim, in.dim);
}

ProjectionMatrix fit_random(const ProjectionInput& in) {
  check_dim(in);
  ProjectionMatrix p{in.dim, in.head->head_dim, std::vector<float>(in.dim * in.head->head_dim)};
  in.rng->fill_normal(std::span<float>(p.rows), 0.0f,
                      static_cast<float>(1.0 / std::sqrt(static_cast<double>(in.dim))));
  return p;
}

ProjectionMatrix fit_first(const ProjectionInput& in) {
  check_dim(in);
  ProjectionMatrix p{in.dim, in.head->head_dim, std::vector<float>(in.dim * in.head->head_dim)};
  for (std::size_t i = 0; i < in.dim; ++i) p.rows[i * in.head->head_dim + i] = 1.0f;
  return p;
}

ProjectionMatrix fit_learned(const ProjectionInput& in) {
  check_dim(in);
  LIGHTSIM_CHECK_AS(InputError, in.learned != nullptr,
                    "the learned projection needs a projection file (--projection-file)");
  const NpyArray& a = *in.learned;
  const std::size_t dim = in.head->head_dim;
  LIGHTSIM_CHECK_AS(DataFormatError,
                    a.shape.size() == 4 && a.shape[1] > in.kv_head && a.shape[0] > in.layer &&
                        a.shape[2] == in.dim && a.shape[3] == dim,
                    "{}: learned projection has shape [{}] but needs [>{}, >{}, {}, {}] "
                    "(layers, kv_heads, d, head_dim)",
                    a.source.string(), fmt::join(a.shape, ", "), in.layer, in.kv_head, in.dim, dim);
  const std::size_t off = (in.layer * a.shape[1] + in.kv_head) * in.dim * dim;
  ProjectionMatrix p{in.dim, dim, {}};
  p.rows.assign(a.values.begin() + static_cast<std::ptrdiff_t>(off),
                a.values.begin() + static_cast<std::ptrdiff_t>(off + in.dim * dim));
  return p;
}

}  // namespace

ProjectionFitter standard_projection(std::string_view name) {
  ProjectionFamily family(std::string(kProjectionFamily), "");
  register_projections(family);
  return family.get(name);
}

RandomStream projection_stream(std::uint64_t seed, std::size_t layer, std::size_t kv_head) {
  return RandomStream(seed, {0x7369670000ull, layer, kv_head});
}

NpyArray fit_head_projections(const KvCache& cache, const ProjectionFitter& fit, std::size_t dim,
                              Context& ctx) {
  const KvGeometry& g = cache.geometry();
  NpyArray a;
  a.shape = {g.layers, g.kv_heads, dim, g.head_dim};
  a.values.resize(g.layers * g.kv_heads * dim * g.head_dim);
  a.source = "per-head projection";
  parallel_for(
      ctx, g.layers * g.kv_heads,
      [&](std::size_t h) {
        const std::size_t layer = h / g.kv_heads, kv_head = h % g.kv_heads;
        const HeadView head = cache.head(layer, kv_head);
        RandomStream rng = projection_stream(ctx.seed(), layer, kv_head);
        const ProjectionMatrix p = fit(ProjectionInput{&head, dim, layer, kv_head, &rng, nullptr});
        std::copy(p.rows.begin(), p.rows.end(),
                  a.values.begin() + static_cast<std::ptrdiff_t>(h * dim * g.head_dim));
      },
      1);
  return a;
}

void register_projections(ProjectionFamily& family) {
  family.add("pca", "top-d principal directions of the head's keys", fit_pca);
  family.add("pca_qk", "top-d principal directions of keys and decode queries", fit_pca_qk);
  family.add("random", "Gaussian random projection, N(0, 1/d) entries", fit_random);
  family.add("first", "the first d channels", fit_first);
  family.add("learned", "a trained projection read from an .npy file", fit_learned);
}

}  // namespace lightsim::kv
