// Physics-style limits of the serving simulator (issue #21 acceptance): M/D/1 against
// Pollaczek-Khinchine, Little's law on every run, a free KV transfer with an ideal link, and
// zero arrivals.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "lightsim/core/json.h"
#include "lightsim/serve/run.h"
#include "lightsim/serve/simulate.h"
#include "shipped_configs.h"

namespace lightsim::serve {
namespace {

SimPool fixed_pool(double prefill, double decode, double decode_per_seq = 0) {
  FixedStepSpec f;
  f.prefill_base = Time::si(prefill);
  f.decode_base = Time::si(decode);
  f.decode_per_sequence = Time::si(decode_per_seq);
  return {.steps = std::make_shared<FixedStepModel>(f),
          .memory = {.kv_bytes_per_token = f.kv_bytes_per_token.si(),
                     .kv_capacity = f.kv_capacity.si()},
          .instances = 1,
          .gpus_per_instance = 1};
}

// M/D/1: Poisson arrivals at lambda, one server, deterministic service D (one prefill step per
// request, one output token, batch 1). Pollaczek-Khinchine mean wait in queue:
// W_q = lambda E[S^2] / (2 (1 - rho)) = rho D / (2 (1 - rho)) (the Pollaczek-Khinchine mean
// value formula for M/G/1 with E[S^2] = D^2; Kleinrock, Queueing Systems Vol. 1, 1975, ch. 5).
TEST(ServeQueue, MD1MeanWaitMatchesPollaczekKhinchine) {
  const double d = 0.01, rho = 0.6, lambda = rho / d;
  const double pk = rho * d / (2 * (1 - rho));
  SimConfig c;
  c.colocated = fixed_pool(d, d);
  c.max_batch = 1;
  ArrivalSpec a;
  a.rate = Frequency::si(lambda);
  a.requests = 60000;
  a.prompt.median = 64;
  a.output.median = 1;
  // Independent replications (seeds 1..R): their means are i.i.d., so a t interval applies.
  constexpr int R = 10;
  double sum = 0, sq = 0;
  for (int k = 1; k <= R; ++k) {
    const SimResult r = simulate(generate_requests(a, static_cast<std::uint64_t>(k)), c);
    ASSERT_EQ(r.completed, a.requests);
    EXPECT_NEAR(r.e2e.mean - r.queue_wait.mean, d, 1e-12);  // service is exactly D
    sum += r.queue_wait.mean;
    sq += r.queue_wait.mean * r.queue_wait.mean;
  }
  const double mean = sum / R, sd = std::sqrt((sq - R * mean * mean) / (R - 1));
  const double half = 2.262 * sd / std::sqrt(double(R));  // 95%, t with 9 degrees of freedom
  EXPECT_LT(std::abs(mean - pk) / pk, 0.02) << "mean " << mean << " P-K " << pk;
  EXPECT_LT(std::abs(mean - pk), half) << "P-K outside the 95% CI " << mean << " +- " << half;
  EXPECT_LT(half / pk, 0.02);  // the interval is tight enough for the 2% claim to mean something
}

// Little's law L = lambda W (Little, Operations Research 9(3), 1961) on runs of every kind:
// colocated with batching and chunking, bursty arrivals, disaggregated with a finite link,
// KV-limited admission.
TEST(ServeQueue, LittlesLawHoldsOnEveryRun) {
  ArrivalSpec a;
  a.rate = Frequency::si(300);
  a.requests = 3000;
  a.prompt = {.distribution = LengthDistribution::lognormal,
              .median = 800,
              .min = 1,
              .max = 8000,
              .sigma = 1};
  a.output = {.distribution = LengthDistribution::lognormal,
              .median = 60,
              .min = 1,
              .max = 1000,
              .sigma = 1};
  std::vector<SimConfig> configs(4);
  configs[0].colocated = fixed_pool(0.004, 0.003, 1e-5);
  configs[0].colocated.instances = 4;
  configs[1] = configs[0];
  configs[1].colocated.memory.kv_capacity = 2e8;  // ~1500 tokens: admission-limited
  configs[2].disaggregated = true;
  configs[2].prefill = fixed_pool(0.004, 0.003);
  configs[2].decode = fixed_pool(0.004, 0.003, 1e-5);
  configs[2].decode.instances = 3;
  configs[2].kv_bandwidth = 50e9;
  configs[2].kv_latency = 5e-6;
  configs[3] = configs[0];
  configs[3].token_budget = 256;
  for (ArrivalProcess p : {ArrivalProcess::poisson, ArrivalProcess::gamma}) {
    a.process = p;
    a.cv = 4;
    const std::vector<Request> reqs = generate_requests(a, 11);
    for (const SimConfig& c : configs) {
      const SimResult r = simulate(reqs, c);
      EXPECT_EQ(r.completed + r.rejected, a.requests);
      EXPECT_GT(r.little.l, 0);
      EXPECT_LT(r.little.relative_error, 1e-9)
          << r.little.l << " vs " << r.little.lambda * r.little.w;
      EXPECT_LT(r.little.queue_relative_error, 1e-9);
    }
  }
}

std::string disaggregated(const std::string& kv_fabric) {
  return "schema_version: 1\nkind: serve_scenario\nname: kv\nmodel: qwen2_5_7b\n"
         "arrivals: {rate: 200 Hz, requests: 400, prompt: {distribution: uniform, min: 200, max: "
         "4000},"
         " output: {median: 20}}\n"
         "mode: disaggregated\n"
         "prefill: {fabric: gb200_nvl72, instances: 2}\ndecode: {fabric: gb200_nvl72, instances: "
         "2}\n"
         "kv_transfer: {fabric: " +
         kv_fabric + ", tier: 1}\n";
}

// With an ideal link (infinite bandwidth, no latency) the KV transfer costs nothing, so the
// fabric it crosses changes nothing; with the fabrics' own tiers it does.
TEST(ServeQueue, InfiniteBandwidthMakesTheFabricIrrelevant) {
  const config::LoadOptions load = testing::shipped_configs();
  const auto setup = [&](const std::string& fabric) {
    LoadedScenario s{.spec = config::read_spec<ScenarioSpec>(
                         config::parse_document(disaggregated(fabric), "kv.yaml"), load),
                     .file = "kv.yaml"};
    return prepare(std::move(s), load, 1);
  };
  ServeSetup copper = setup("gb200_nvl72"), photonic = setup("photonic_4x_1152");
  ASSERT_NE(copper.config.kv_bandwidth, photonic.config.kv_bandwidth);
  const SimResult real_c = run(copper).sim, real_p = run(photonic).sim;
  EXPECT_NE(real_c.e2e.mean, real_p.e2e.mean);
  EXPECT_GT(real_c.kv_transfer_time, 0);
  for (ServeSetup* s : {&copper, &photonic}) {
    s->config.kv_bandwidth = std::numeric_limits<double>::infinity();
    s->config.kv_latency = 0;
  }
  const SimResult ideal_c = run(copper).sim, ideal_p = run(photonic).sim;
  EXPECT_EQ(ideal_c.kv_transfer_time, 0);
  ASSERT_EQ(ideal_c.times.size(), ideal_p.times.size());
  for (std::size_t i = 0; i < ideal_c.times.size(); ++i) {
    EXPECT_EQ(ideal_c.times[i].finished, ideal_p.times[i].finished) << i;
    EXPECT_EQ(ideal_c.times[i].first_token, ideal_p.times[i].first_token) << i;
  }
  EXPECT_EQ(ideal_c.goodput, ideal_p.goodput);
  EXPECT_LE(ideal_c.e2e.mean, real_c.e2e.mean);
}

// No arrivals: no load, no NaN anywhere in the output.
TEST(ServeQueue, ZeroArrivalsGiveZeroLoadAndNoNan) {
  config::LoadOptions load = testing::shipped_configs();
  load.assignments = config::Assignments({"arrivals.rate=0 Hz"});
  const ServeReport r = run(prepare("chat_nvl72", load, 1));
  EXPECT_EQ(r.sim.requests, 0);
  EXPECT_EQ(r.sim.completed, 0);
  EXPECT_EQ(r.sim.colocated.utilization, 0);
  EXPECT_EQ(r.sim.goodput, 0);
  EXPECT_EQ(r.sim.little.l, 0);
  const std::string text = to_json(r).dump();
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_EQ(text.find("null"), std::string::npos);
}

}  // namespace
}  // namespace lightsim::serve
