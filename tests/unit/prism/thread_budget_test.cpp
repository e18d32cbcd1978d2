// One thread budget (docs/performance.md, "One thread budget"): at one thread the process runs
// one thread. Eigen's products (the QAT epoch, src/prism/qat.cpp) and FAISS's k-means (the
// IVF-PQ index, src/kv/ivfpq.cpp) start no OpenMP team of their own, whatever the core count:
// the Context's pool, sized by --threads, is the only parallelism.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/kv/ivfpq.h"
#include "lightsim/prism/qat.h"

namespace lightsim::prism {
namespace {

// Threads of this process now (Linux: one entry per thread in /proc/self/task). Threads that
// an OpenMP runtime starts stay alive after their parallel region, so a count after the work
// sees every team it started.
std::size_t process_threads() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task"))
    ++n;
  return n;
}

std::vector<float> normals(std::size_t n, std::uint64_t id) {
  RandomStream s(5, {id});
  std::vector<float> v(n);
  s.fill_normal(std::span<float>(v));
  return v;
}

// A QAT epoch whose signature product (blocks x D times D x d = 1024 x 128 x 32, 4 M
// multiply-adds) is far above the size at which a parallel Eigen splits a product.
void run_qat_epoch() {
  constexpr std::size_t kBlocks = 1024, kDim = 128, kSig = 32, kSteps = 16;
  QatData data;
  data.head_dim = kDim;
  data.blocks = kBlocks;
  data.block_means = normals(kBlocks * kDim, 1);
  data.queries = normals(kSteps * kDim, 2);
  for (std::size_t k = 0; k < kSteps; ++k) data.steps.push_back(k);
  data.is_candidate.assign(kBlocks, 1);
  data.mass.assign(kSteps * kBlocks, 1.0 / kBlocks);
  std::vector<float> p = normals(kSig * kDim, 3);
  std::vector<double> m(p.size(), 0.0), v(p.size(), 0.0);
  long t = 0;
  QatOptions o;
  o.batch = 4;
  const double loss = qat_epoch(data, o, p, kSig, m, v, t, 1, 0, 0);
  EXPECT_TRUE(std::isfinite(loss));
}

TEST(ThreadBudget, OneThreadRunsOneThread) {
  ASSERT_EQ(process_threads(), 1u) << "the test starts with threads already running";
  Context ctx(ContextOptions{.seed = 1, .threads = 1});
  run_qat_epoch();
  const std::vector<float> keys = normals(4096 * 32, 4);
  const kv::IvfPqIndex index(keys.data(), 4096, 32,
                             kv::IvfPqParams{.nlist = 16,
                                             .pq_m = 4,
                                             .pq_nbits = 8,
                                             .seed = 1,
                                             .coarse_min_points = 1,
                                             .pq_min_points = 1});
  std::vector<float> distances(8);
  std::vector<std::int64_t> labels(8);
  index.search(keys.data(), 8, 4, distances.data(), labels.data());
  EXPECT_EQ(process_threads(), 1u);
}

TEST(ThreadBudget, APoolOfTwoRunsTwoThreadsAndNoMore) {
  Context ctx(ContextOptions{.seed = 1, .threads = 2});
  const std::size_t before = process_threads();
  EXPECT_EQ(before, 2u);
  // Each of the pool's threads runs Eigen products; none of them starts a team.
  parallel_for(
      ctx, 2, [&](std::size_t) { run_qat_epoch(); }, 1);
  EXPECT_EQ(process_threads(), before);
}

}  // namespace
}  // namespace lightsim::prism
