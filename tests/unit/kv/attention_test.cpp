// The exact-attention oracle's tiled logits (several tokens per pass) give the same bits as
// the one-token-at-a-time definition, including the tokens after the last full tile.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "lightsim/core/rng.h"
#include "lightsim/kv/attention.h"

namespace lightsim::kv {
namespace {

// The definition (attention.h): logits q . k / sqrt(D) summed over d in order, softmax in
// double with the max subtracted.
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

TEST(AttentionWeights, TiledLogitsAreBitIdenticalToTheDefinition) {
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

}  // namespace
}  // namespace lightsim::kv
