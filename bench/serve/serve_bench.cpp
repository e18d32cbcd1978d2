// Simulated requests per CPU second of the serving simulator with a cached step model
// (issue #21: >= 10^5 requests per second of CPU on one core). Requests are generated once,
// outside the timed loop; the step models' caches are warm after the first iteration.
// docs/performance.md, "serve".
#include <benchmark/benchmark.h>

#include "lightsim/serve/run.h"
#include "lightsim/serve/simulate.h"
#include "shipped_configs.h"

namespace lightsim::serve {
namespace {

// 10^5 chat-like requests on 8 colocated instances at ~70% load; a fixed step model with
// per-token and per-sequence costs behind the grid cache.
void BM_ServeCachedFixed(benchmark::State& state) {
  FixedStepSpec f;
  f.prefill_base = Time::si(0.004);
  f.prefill_per_token = Time::si(2e-6);
  f.decode_base = Time::si(0.003);
  f.decode_per_sequence = Time::si(2e-5);
  SimConfig c;
  c.colocated = {.steps = std::make_shared<CachedStepModel>(std::make_shared<FixedStepModel>(f)),
                 .memory = {.kv_bytes_per_token = f.kv_bytes_per_token.si(),
                            .kv_capacity = f.kv_capacity.si()},
                 .instances = 8,
                 .gpus_per_instance = 1};
  ArrivalSpec a;
  a.rate = Frequency::si(400);
  a.requests = 100000;
  a.prompt = {.distribution = LengthDistribution::lognormal,
              .median = 1024,
              .min = 16,
              .max = 16384,
              .sigma = 0.8};
  a.output = {.distribution = LengthDistribution::lognormal,
              .median = 128,
              .min = 1,
              .max = 4096,
              .sigma = 0.8};
  const std::vector<Request> requests = generate_requests(a, 1);
  for (auto _ : state) benchmark::DoNotOptimize(simulate(requests, c).goodput);
  state.SetItemsProcessed(state.iterations() * a.requests);
}
BENCHMARK(BM_ServeCachedFixed)->Unit(benchmark::kMillisecond);

// The shipped chat_nvl72 preset (20000 requests, 72 instances, roofline step model: the
// prefill Evaluator and the one-GPU decode step behind the cache).
void BM_ServeChatNvl72(benchmark::State& state) {
  const ServeSetup setup = prepare("chat_nvl72", testing::shipped_configs(), 1);
  for (auto _ : state) benchmark::DoNotOptimize(run(setup).sim.goodput);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(setup.requests.size()));
}
BENCHMARK(BM_ServeChatNvl72)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lightsim::serve

BENCHMARK_MAIN();
