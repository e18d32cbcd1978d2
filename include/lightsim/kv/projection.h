// d-dimensional block signatures: a linear projection P (d x D, row-major) fitted per KV head.
// A block's signature is P * mean_key(block); a query scores it as (P q) . signature, i.e.
// q^T P^T P mean_key. With orthonormal rows and d = D this is exactly q . mean_key.
//
// Implementations (family "kv_projection", registered in register.cpp):
//   pca      top-d principal directions of the head's keys (centered), Eigen eigensolver
//   pca_qk   the same fitted on keys and the head's decode queries together
//   random   Gaussian N(0, 1/d) entries (Johnson-Lindenstrauss), from the head's stream
//   first    the first d channels
//   learned  P read from a file ([layers, kv_heads, d, D] .npy; trained elsewhere, e.g. with
//            quantization-aware training by the prism module)
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/core/npy.h"
#include "lightsim/core/registry.h"
#include "lightsim/core/rng.h"
#include "lightsim/kv/cache.h"

namespace lightsim::kv {

struct ProjectionMatrix {
  std::size_t dim = 0;       // d
  std::size_t head_dim = 0;  // D
  std::vector<float> rows;   // [d, D]

  // out[i] = sum_j rows[i, j] x[j], out of length d.
  void apply(const float* x, float* out) const;
};

// Everything a projection may need for one head.
struct ProjectionInput {
  const HeadView* head = nullptr;
  std::size_t dim = 32;   // d, in [1, head_dim]
  std::size_t layer = 0;  // index into the cache's held layers
  std::size_t kv_head = 0;
  RandomStream* rng = nullptr;        // the head's stream (random projection)
  const NpyArray* learned = nullptr;  // learned projections [layers, kv_heads, d, D]
};

using ProjectionFitter = std::function<ProjectionMatrix(const ProjectionInput&)>;
using ProjectionFamily = Family<ProjectionFitter>;

void register_projections(ProjectionFamily& family);

// One of kv's own projections by name (pca, pca_qk, random, first, learned), for callers that
// hold no registry (the studies); an unknown name is a ConfigError listing the known ones.
ProjectionFitter standard_projection(std::string_view name);

// The random stream a head's projection fit draws from: (seed, {"sig", layer, kv_head}), the
// same for a scorer fitting its own projection and for fit_head_projections.
RandomStream projection_stream(std::uint64_t seed, std::size_t layer, std::size_t kv_head);

// The d x D projection of every head of `cache`, shape [layers, kv_heads, d, D] (the
// "learned" layout), fitted by `fit` with projection_stream(ctx.seed(), layer, kv_head), so a
// scorer fitting the same head itself gets the same matrix. Heads in parallel; identical for
// any thread count.
NpyArray fit_head_projections(const KvCache& cache, const ProjectionFitter& fit, std::size_t dim,
                              Context& ctx);

// Top-d eigenvectors (descending eigenvalue) of the covariance of `rows` vectors of length D
// (row-major), as the rows of a ProjectionMatrix.
ProjectionMatrix pca_projection(const float* data, std::size_t rows, std::size_t head_dim,
                                std::size_t dim);

}  // namespace lightsim::kv
