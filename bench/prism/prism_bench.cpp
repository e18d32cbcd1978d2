// One query through the Prism scorer at N = 1024 logical rows, d = 32 (issue 5 target:
// <= 6 us on one core): summed group query, projection P q, intensity encoding, the MVM kernel
// (balanced currents, detector noise, TIA, ADC), the digital offset and the top-32 of the
// digital interface. Impairment state: the seed_fit accelerator's (DAC codes, crosstalk,
// noise) with a 2 pm calibration residual. One thread; items = queries.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <vector>

#include "lightsim/core/rng.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/cache.h"
#include "lightsim/kv/kernels.h"
#include "lightsim/kv/projection.h"
#include "lightsim/kv/register.h"
#include "lightsim/prism/scorer.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

constexpr std::size_t kRows = 1024, kBlock = 16, kHeadDim = 128, kSteps = 64;

void BM_PrismQuery(benchmark::State& state) {
  AcceleratorSpec acc = load_accelerator("seed_fit", testing::shipped_configs());
  acc.device.bank.rows = static_cast<int>(kRows);
  acc.impairments.calibration_residual = Length::si(2e-12);
  kv::KvCache cache({1, 1, 1, kHeadDim, kRows * kBlock, kSteps});
  RandomStream rng(5, {1});
  rng.fill_normal(std::span<float>(cache.key_data()));
  rng.fill_normal(std::span<float>(cache.query_data()));
  const kv::BlockLayout layout(kRows * kBlock, kv::BlockOptions{kBlock, 0, 0});
  auto scorer = make_prism_scorer(acc, {.dim = 32, .fit = kv::standard_projection("random")});
  const kv::HeadView head = cache.head(0, 0);
  scorer->prepare(head, layout, {0, 0, 9});
  std::vector<float> scores(kRows);
  std::vector<std::uint32_t> order(32);
  kv::TopKScratch scratch;
  std::size_t step = 0;
  for (auto _ : state) {
    scorer->score(step, scores);
    kv::top_k_indices(scores, 32, scratch, order.data());
    benchmark::DoNotOptimize(order.data());
    step = (step + 1) % kSteps;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PrismQuery)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lightsim::prism

namespace lightsim::prism {
namespace {

// The digital interface's top-32 of 1024 scores alone.
void BM_PrismTopK(benchmark::State& state) {
  std::vector<float> scores(kRows);
  RandomStream rng(6, {1});
  rng.fill_normal(std::span<float>(scores));
  std::vector<std::uint32_t> order(32);
  kv::TopKScratch scratch;
  for (auto _ : state) {
    kv::top_k_indices(scores, 32, scratch, order.data());
    benchmark::DoNotOptimize(order.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PrismTopK)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lightsim::prism
