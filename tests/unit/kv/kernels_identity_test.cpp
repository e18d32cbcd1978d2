// The fast exact-attention and PCA kernels against the straightforward loops they replaced:
// equal bit for bit (the studies' outputs must not change with the kernels' speed).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "kv_test_util.h"
#include "lightsim/core/rng.h"
#include "lightsim/kv/attention.h"
#include "lightsim/kv/projection.h"

namespace lightsim::kv {
namespace {

// The one-token-at-a-time softmax attention_weights replaced.
std::vector<double> reference_weights(const HeadView& head, std::size_t g, std::size_t step) {
  std::vector<double> p(head.tokens);
  const float* q = head.query(g, step);
  const double scale = 1.0 / std::sqrt(static_cast<double>(head.head_dim));
  double mx = -INFINITY;
  for (std::size_t t = 0; t < head.tokens; ++t) {
    double s = 0;
    for (std::size_t d = 0; d < head.head_dim; ++d) s += static_cast<double>(q[d]) * head.key(t)[d];
    p[t] = s * scale;
    mx = std::max(mx, p[t]);
  }
  double z = 0;
  for (auto& x : p) z += (x = std::exp(x - mx));
  for (auto& x : p) x /= z;
  return p;
}

// The per-token resident check group_block_mass replaced.
std::vector<double> reference_mass(const HeadView& head, const BlockLayout& layout,
                                   std::size_t step) {
  std::vector<double> mass(layout.blocks(), 0.0);
  for (std::size_t g = 0; g < head.group; ++g) {
    const std::vector<double> p = reference_weights(head, g, step);
    for (std::size_t b = 0; b < layout.blocks(); ++b)
      for (std::size_t t = layout.begin(b); t < layout.end(b); ++t)
        if (!layout.resident(t)) mass[b] += p[t];
  }
  return mass;
}

// The rank-1-update PCA pca_projection replaced.
std::vector<float> reference_pca(const float* data, std::size_t rows, std::size_t head_dim,
                                 std::size_t dim) {
  const auto n = static_cast<Eigen::Index>(head_dim);
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(n);
  for (std::size_t r = 0; r < rows; ++r)
    for (Eigen::Index j = 0; j < n; ++j)
      mean[j] += data[r * head_dim + static_cast<std::size_t>(j)];
  mean /= static_cast<double>(rows);
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(n, n);
  Eigen::VectorXd x(n);
  for (std::size_t r = 0; r < rows; ++r) {
    for (Eigen::Index j = 0; j < n; ++j)
      x[j] = data[r * head_dim + static_cast<std::size_t>(j)] - mean[j];
    cov.selfadjointView<Eigen::Lower>().rankUpdate(x);
  }
  cov = cov.selfadjointView<Eigen::Lower>();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(cov);
  std::vector<float> rows_out(dim * head_dim);
  for (std::size_t i = 0; i < dim; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      rows_out[i * head_dim + static_cast<std::size_t>(j)] =
          static_cast<float>(eig.eigenvectors()(j, n - 1 - static_cast<Eigen::Index>(i)));
  return rows_out;
}

// 1029 tokens: not a multiple of 4 (attention's tail) and more than 4 chunks of 256 rows (PCA).
KvGeometry geometry(std::size_t head_dim) {
  KvGeometry g;
  g.layers = 1;
  g.kv_heads = 1;
  g.q_heads = 3;
  g.head_dim = head_dim;
  g.tokens = 1029;
  g.steps = 2;
  return g;
}

TEST(KernelIdentity, AttentionWeightsEqualTheOneTokenLoop) {
  const KvCache c = testing::random_cache(geometry(24), 7);
  const HeadView h = c.head(0, 0);
  std::vector<double> p;
  for (std::size_t g = 0; g < h.group; ++g)
    for (std::size_t s = 0; s < h.steps; ++s) {
      attention_weights(h, g, s, p);
      EXPECT_EQ(p, reference_weights(h, g, s)) << "g " << g << " step " << s;
    }
}

// Token counts that leave a partial tile (the kernel scores eight tokens per pass).
TEST(KernelIdentity, AttentionWeightsEqualTheLoopForPartialTiles) {
  for (std::size_t tokens : {1u, 7u, 8u, 61u, 130u}) {
    const std::size_t dim = 24, group = 2, steps = 3;
    std::vector<float> keys(tokens * dim), queries(group * steps * dim);
    RandomStream rng(5, {tokens});
    rng.fill_normal(std::span<float>(keys));
    rng.fill_normal(std::span<float>(queries));
    const HeadView head{tokens, dim, group, steps, keys.data(), keys.data(), queries.data()};
    std::vector<double> p;
    for (std::size_t g = 0; g < group; ++g)
      for (std::size_t s = 0; s < steps; ++s) {
        attention_weights(head, g, s, p);
        EXPECT_EQ(p, reference_weights(head, g, s)) << tokens << " tokens, g " << g << " s " << s;
      }
  }
}

// Head dimensions with and without a remainder of the kernel's eight-dimension steps, and the
// models' 128 (the SIMD path transposes 8 x 8 tiles and finishes dim % 8 per token).
TEST(KernelIdentity, AttentionWeightsEqualTheLoopAtEveryHeadDim) {
  for (std::size_t dim : {1u, 5u, 8u, 20u, 128u}) {
    const std::size_t tokens = 37, group = 1, steps = 2;
    std::vector<float> keys(tokens * dim), queries(group * steps * dim);
    RandomStream rng(6, {dim});
    rng.fill_normal(std::span<float>(keys));
    rng.fill_normal(std::span<float>(queries));
    const HeadView head{tokens, dim, group, steps, keys.data(), keys.data(), queries.data()};
    std::vector<double> p;
    for (std::size_t s = 0; s < steps; ++s) {
      attention_weights(head, 0, s, p);
      EXPECT_EQ(p, reference_weights(head, 0, s)) << "dim " << dim << " s " << s;
    }
  }
}

TEST(KernelIdentity, BlockMassAtSeveralLayoutsEqualsEachLayoutAlone) {
  const KvCache c = testing::random_cache(geometry(16), 9);
  const HeadView h = c.head(0, 0);
  BlockOptions a, b;
  a.block_tokens = 32;
  b.block_tokens = 100;
  b.sink_tokens = 0;
  b.recent_tokens = 7;
  const std::vector<BlockLayout> layouts{BlockLayout(h.tokens, a), BlockLayout(h.tokens, b)};
  std::vector<double> p;
  std::vector<std::vector<double>> masses;
  for (std::size_t s = 0; s < h.steps; ++s) {
    group_block_mass(h, layouts, s, p, masses);
    ASSERT_EQ(masses.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(masses[i], reference_mass(h, layouts[i], s)) << "layout " << i;
      EXPECT_EQ(masses[i], group_block_mass(h, layouts[i], s)) << "layout " << i;
    }
  }
}

TEST(KernelIdentity, PcaEqualsRankOneUpdates) {
  for (std::size_t head_dim : {std::size_t{16}, std::size_t{22}}) {  // 22: edge tiles
    const KvCache c = testing::random_cache(geometry(head_dim), 11);
    const HeadView h = c.head(0, 0);
    const ProjectionMatrix p = pca_projection(h.keys, h.tokens, head_dim, 5);
    EXPECT_EQ(p.rows, reference_pca(h.keys, h.tokens, head_dim, 5)) << "D = " << head_dim;
  }
}

}  // namespace
}  // namespace lightsim::kv
