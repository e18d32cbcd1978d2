// One epoch of quantization-aware training (qat.h) for one KV head at 32K context, block 128
// (256 blocks), head_dim 128, d = 32, a Qwen2.5-7B-like group of 7 query heads, 32 training
// decode queries in mini-batches of 8 (4 Adam steps), 4-bit weights with score noise on.
// The training data (block means, true block masses) are prepared outside the timed loop.
// One thread; items = training queries.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/kv/generator.h"
#include "lightsim/prism/qat.h"

namespace lightsim::prism {
namespace {

void BM_QatEpoch32K(benchmark::State& state) {
  kv::KvGeneratorSpec s;
  s.model_layers = 1;
  s.kv_heads = 1;
  s.q_heads = 7;
  s.head_dim = 128;
  s.tokens = 32768;
  s.steps = 32;
  s.dtype = "float32";
  Context ctx(ContextOptions{.seed = 1, .threads = 1});
  const kv::KvCache cache = kv::generate_kv_cache(s, ctx);
  const kv::HeadView head = cache.head(0, 0);
  const kv::BlockLayout layout(head.tokens, kv::BlockOptions{});
  std::vector<std::size_t> steps(32);
  for (std::size_t i = 0; i < steps.size(); ++i) steps[i] = i;
  const QatData data = make_qat_data(head, layout, steps);
  QatOptions o;
  o.score_noise = 0.02;
  kv::ProjectionMatrix p = kv::pca_projection(head.keys, head.tokens, head.head_dim, 32);
  std::vector<double> m(p.rows.size(), 0.0), v(p.rows.size(), 0.0);
  long t = 0;
  int epoch = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(qat_epoch(data, o, p.rows, 32, m, v, t, 1, 0, epoch++));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(steps.size()));
}
BENCHMARK(BM_QatEpoch32K)->Unit(benchmark::kMillisecond);

// Threads of this process now (one entry per thread in /proc/self/task).
std::size_t process_threads() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// The thread budget (docs/performance.md, "One thread budget"): two heads' QAT epochs (the
// Eigen products of BM_QatEpoch32K's data) run through a pool of range(0) threads, one head
// per chunk, as the studies parallelize over heads. Wall time (the work runs on the pool);
// items = epochs. Counter `threads`: the process's threads after the run, which is the pool's
// size when no library starts a thread team of its own.
void BM_QatEpochsInPool(benchmark::State& state) {
  kv::KvGeneratorSpec s;
  s.model_layers = 1;
  s.kv_heads = 2;
  s.q_heads = 14;
  s.head_dim = 128;
  s.tokens = 32768;
  s.steps = 32;
  s.dtype = "float32";
  Context gen(ContextOptions{.seed = 1, .threads = 1});
  const kv::KvCache cache = kv::generate_kv_cache(s, gen);
  std::vector<std::size_t> steps(32);
  for (std::size_t i = 0; i < steps.size(); ++i) steps[i] = i;
  struct Head {
    QatData data;
    kv::ProjectionMatrix p;
    std::vector<double> m, v;
    long t = 0;
  };
  std::vector<Head> heads;
  for (std::size_t h = 0; h < 2; ++h) {
    const kv::HeadView head = cache.head(0, h);
    const kv::BlockLayout layout(head.tokens, kv::BlockOptions{});
    Head x{make_qat_data(head, layout, steps),
           kv::pca_projection(head.keys, head.tokens, head.head_dim, 32),
           {},
           {},
           0};
    x.m.assign(x.p.rows.size(), 0.0);
    x.v.assign(x.p.rows.size(), 0.0);
    heads.push_back(std::move(x));
  }
  QatOptions o;
  o.score_noise = 0.02;
  Context ctx(ContextOptions{.seed = 1, .threads = static_cast<std::size_t>(state.range(0))});
  int epoch = 0;
  for (auto _ : state) {
    parallel_for(
        ctx, heads.size(),
        [&](std::size_t h) {
          Head& x = heads[h];
          benchmark::DoNotOptimize(qat_epoch(x.data, o, x.p.rows, 32, x.m, x.v, x.t, 1, h, epoch));
        },
        1);
    ++epoch;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(heads.size()));
  state.counters["threads"] = static_cast<double>(process_threads());
}
BENCHMARK(BM_QatEpochsInPool)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lightsim::prism
