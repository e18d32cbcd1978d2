// Unit tests of the serve module: arrivals, traces, the cached step model and the scheduler's
// bookkeeping on cases whose times follow by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "lightsim/core/error.h"
#include "lightsim/decode/scale.h"
#include "lightsim/serve/run.h"
#include "lightsim/serve/simulate.h"
#include "lightsim/serve/step_model.h"
#include "lightsim/serve/workload.h"
#include "scratch_dir.h"
#include "shipped_configs.h"

namespace lightsim::serve {
namespace {

FixedStepSpec fixed(double prefill_base, double prefill_per_token, double decode_base,
                    double decode_per_seq, double kv_capacity = 1e12) {
  FixedStepSpec f;
  f.prefill_base = Time::si(prefill_base);
  f.prefill_per_token = Time::si(prefill_per_token);
  f.decode_base = Time::si(decode_base);
  f.decode_per_sequence = Time::si(decode_per_seq);
  f.kv_bytes_per_token = DataSize::si(1000);
  f.kv_capacity = DataSize::si(kv_capacity);
  return f;
}

SimPool pool(const FixedStepSpec& f, std::int64_t instances = 1) {
  return {.steps = std::make_shared<FixedStepModel>(f),
          .memory = {.kv_bytes_per_token = f.kv_bytes_per_token.si(),
                     .kv_capacity = f.kv_capacity.si()},
          .instances = instances,
          .gpus_per_instance = 1};
}

TEST(Distribution, PercentilesInterpolateOrderStatistics) {
  const Distribution d = distribution({4, 1, 3, 2, 5});
  EXPECT_EQ(d.count, 5);
  EXPECT_DOUBLE_EQ(d.mean, 3);
  EXPECT_DOUBLE_EQ(d.p50, 3);
  EXPECT_DOUBLE_EQ(d.p90, 4.6);
  EXPECT_DOUBLE_EQ(d.max, 5);
  const Distribution empty = distribution({});
  EXPECT_EQ(empty.count, 0);
  EXPECT_EQ(empty.p99, 0);
}

TEST(CachedStepModel, GridBracketsEveryValue) {
  for (double x : {0.0, 1.0, 15.0, 16.0, 17.0, 100.0, 2047.0, 2048.0, 1e6}) {
    const int i = grid_index(x);
    EXPECT_LE(grid_value(i), x) << x;
    EXPECT_GT(grid_value(i + 1), x) << x;
  }
}

TEST(CachedStepModel, InterpolatesALinearModelExactlyWithFewInnerCalls) {
  auto inner = std::make_shared<FixedStepModel>(fixed(0.01, 1e-5, 0.002, 1e-4));
  CachedStepModel cached(inner);
  for (std::int64_t t = 1; t <= 4096; t += 7)
    EXPECT_NEAR(cached.prefill(t, 100), inner->prefill(t, 100), 1e-15);
  for (std::int64_t b = 1; b <= 512; b += 3)
    EXPECT_NEAR(cached.decode(b, 1500), inner->decode(b, 1500), 1e-15);
  EXPECT_LT(cached.inner_calls(), 400u);
}

TEST(Arrivals, PoissonAndGammaHaveTheirMeanAndCv) {
  ArrivalSpec a;
  a.rate = Frequency::si(100);
  a.requests = 40000;
  for (double cv : {1.0, 3.0, 0.5}) {
    a.process = cv == 1.0 ? ArrivalProcess::poisson : ArrivalProcess::gamma;
    a.cv = cv;
    const std::vector<Request> r = generate_requests(a, 7);
    ASSERT_EQ(r.size(), 40000u);
    double sum = 0, sq = 0, prev = 0;
    for (const Request& q : r) {
      const double gap = q.arrival - prev;
      ASSERT_GE(gap, 0);
      prev = q.arrival;
      sum += gap;
      sq += gap * gap;
    }
    const double n = 40000, mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
    EXPECT_NEAR(mean, 0.01, 0.01 * 0.05 * cv) << cv;
    EXPECT_NEAR(sd / mean, cv, 0.06 * cv) << cv;
  }
}

TEST(Arrivals, DeterministicPerSeedAndLengthsWithinBounds) {
  ArrivalSpec a;
  a.requests = 500;
  a.prompt = {.distribution = LengthDistribution::lognormal,
              .median = 1000,
              .min = 10,
              .max = 4000,
              .sigma = 1.5};
  a.output = {
      .distribution = LengthDistribution::uniform, .median = 1, .min = 3, .max = 9, .sigma = 1};
  const auto x = generate_requests(a, 3), y = generate_requests(a, 3), z = generate_requests(a, 4);
  ASSERT_EQ(x.size(), 500u);
  bool differs = false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].arrival, y[i].arrival);
    EXPECT_EQ(x[i].prompt, y[i].prompt);
    EXPECT_GE(x[i].prompt, 10);
    EXPECT_LE(x[i].prompt, 4000);
    EXPECT_GE(x[i].output, 3);
    EXPECT_LE(x[i].output, 9);
    differs = differs || x[i].arrival != z[i].arrival;
  }
  EXPECT_TRUE(differs);
  a.rate = Frequency::si(0);
  EXPECT_TRUE(generate_requests(a, 3).empty());
}

class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::scratch_dir(); }
  std::filesystem::path write(const std::string& text) {
    const auto p = dir_ / "trace.csv";
    std::ofstream(p) << text;
    return p;
  }
  std::string error_of(const std::string& text, const ArrivalSpec& spec = {}) {
    try {
      read_trace(write(text), spec);
    } catch (const DataFormatError& e) {
      return e.what();
    }
    return "";
  }
  std::filesystem::path dir_;
};

TEST_F(TraceTest, ReadsColumnsByNameAndAzureTimestamps) {
  const auto r =
      read_trace(write("prompt_tokens,extra,arrival_s,output_tokens\n5,x,0.5,2\n7,y,0.5,1\n"), {});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].prompt, 5);
  EXPECT_EQ(r[0].output, 2);
  EXPECT_DOUBLE_EQ(r[1].arrival, 0.5);
  ArrivalSpec azure;
  azure.time_column = "TIMESTAMP";
  azure.prompt_column = "ContextTokens";
  azure.output_column = "GeneratedTokens";
  const auto a = read_trace(write("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                  "2023-11-16 18:15:46.6805900,374,44\n"
                                  "2023-11-16 18:15:50.9951690,396,109\n"
                                  "2023-11-17 00:00:00,10,1\n"),
                            azure);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_DOUBLE_EQ(a[0].arrival, 0);
  EXPECT_NEAR(a[1].arrival, 4.314579, 1e-6);
  EXPECT_NEAR(a[2].arrival, 86400 - (18 * 3600 + 15 * 60 + 46.68059), 1e-6);
}

TEST_F(TraceTest, BadLinesNameTheFileAndLine) {
  const std::string head = "arrival_s,prompt_tokens,output_tokens\n";
  EXPECT_NE(
      error_of("arrival_s,prompt_tokens\n0,1\n").find("trace.csv:1: no column 'output_tokens'"),
      std::string::npos);
  EXPECT_NE(error_of(head + "0,10,2\n1,-5,2\n").find("trace.csv:3: prompt_tokens: '-5'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "0,10,2.5\n").find("trace.csv:2: output_tokens: '2.5'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "0,10,0\n").find("trace.csv:2: output_tokens"), std::string::npos);
  EXPECT_NE(error_of(head + "1,10,2\n0.5,10,2\n").find("trace.csv:3: arrival_s: 0.5 is before"),
            std::string::npos);
  EXPECT_NE(error_of(head + "-1,10,2\n").find("trace.csv:2: arrival_s: -1 is negative"),
            std::string::npos);
  EXPECT_NE(error_of(head + "0,10\n").find("trace.csv:2: 2 fields"), std::string::npos);
  EXPECT_NE(error_of(head + "0,10,2\n1e308,10,2\n").find("trace.csv:3: arrival_s: 1e308 is beyond"),
            std::string::npos);
  EXPECT_NE(error_of("").find("trace.csv:1: empty trace"), std::string::npos);
  EXPECT_NE(error_of(head).find("header but no requests"), std::string::npos);
}

TEST_F(TraceTest, WrittenTracesReadBack) {
  ArrivalSpec a;
  a.requests = 50;
  a.prompt = {
      .distribution = LengthDistribution::uniform, .median = 1, .min = 1, .max = 100, .sigma = 1};
  const auto r = generate_requests(a, 1);
  const auto back = read_trace(write(trace_csv(r)), {});
  ASSERT_EQ(back.size(), r.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_NEAR(back[i].arrival, r[i].arrival, 1e-6);
    EXPECT_EQ(back[i].prompt, r[i].prompt);
  }
}

TEST(Simulate, OneRequestColocatedTimesByHand) {
  SimConfig c;
  c.colocated = pool(fixed(0.1, 1e-4, 0.02, 0.001));
  c.token_budget = 2048;
  // 5000 prompt tokens: chunks of 2048, 2048, 904; then 9 decode steps of batch 1.
  const SimResult r = simulate({{.arrival = 1.0, .prompt = 5000, .output = 10}}, c);
  const double ttft = 3 * 0.1 + 5000 * 1e-4;
  EXPECT_NEAR(r.ttft.mean, ttft, 1e-12);
  EXPECT_NEAR(r.tpot.mean, 0.021, 1e-12);
  EXPECT_NEAR(r.e2e.mean, ttft + 9 * 0.021, 1e-12);
  EXPECT_NEAR(r.makespan, 1.0 + ttft + 9 * 0.021, 1e-12);
  EXPECT_EQ(r.colocated.steps, 12);
  EXPECT_EQ(r.colocated.prefill_tokens, 5000);
  EXPECT_EQ(r.colocated.decode_tokens, 9);
}

TEST(Simulate, SerialHostTimeAddsToEveryStep) {
  SimConfig c;
  c.colocated = pool(fixed(0.1, 1e-4, 0.02, 0.001));
  c.token_budget = 2048;
  c.host = HostSpec{.step_base = Time::si(0.004),
                    .per_sequence = Time::si(0.0005),
                    .per_prefill_token = Time::si(1e-6),
                    .overlap = HostOverlap::serial};
  // The same request as above: 3 prefill chunks of one sequence (5000 tokens in all), then 9
  // decode steps of batch 1; each step pays base + one sequence (+ its prompt tokens).
  const SimResult r = simulate({{.arrival = 1.0, .prompt = 5000, .output = 10}}, c);
  const double ttft = 3 * 0.1 + 5000 * 1e-4 + 3 * (0.004 + 0.0005) + 5000 * 1e-6;
  const double tpot = 0.021 + 0.004 + 0.0005;
  EXPECT_NEAR(r.ttft.mean, ttft, 1e-12);
  EXPECT_NEAR(r.tpot.mean, tpot, 1e-12);
  EXPECT_NEAR(r.host_work, 12 * 0.0045 + 5000 * 1e-6, 1e-12);
  EXPECT_NEAR(r.host_exposed, r.host_work, 1e-12);  // serial: all of it is exposed
  EXPECT_NEAR(r.colocated.busy, ttft + 9 * tpot, 1e-12);
}

TEST(Simulate, OverlappedHostTimeShowsOnlyWhereItExceedsTheGpu) {
  SimConfig c;
  c.colocated = pool(fixed(0.1, 0, 0.02, 0.001));
  // Host 30 ms per step: hidden under the 100 ms prefill step, 9 ms longer than the 21 ms
  // decode step of batch 1.
  c.host = HostSpec{.step_base = Time::si(0.03), .overlap = HostOverlap::overlapped};
  const SimResult r = simulate({{.arrival = 0, .prompt = 100, .output = 5}}, c);
  EXPECT_NEAR(r.ttft.mean, 0.1, 1e-12);
  EXPECT_NEAR(r.tpot.mean, 0.03, 1e-12);
  EXPECT_NEAR(r.host_exposed, 4 * (0.03 - 0.021), 1e-12);
  EXPECT_LT(r.little.relative_error, 1e-12);
}

TEST(Simulate, HostOffChangesNothing) {
  SimConfig a;
  a.colocated = pool(fixed(0.01, 1e-5, 0.005, 1e-4));
  SimConfig b = a;
  b.host = std::nullopt;
  std::vector<Request> reqs;
  for (int i = 0; i < 50; ++i)
    reqs.push_back({.arrival = 0.01 * i, .prompt = 100 + 7 * i, .output = 20 + i});
  const SimResult x = simulate(reqs, a), y = simulate(reqs, b);
  EXPECT_EQ(x.makespan, y.makespan);
  EXPECT_EQ(x.tpot.mean, y.tpot.mean);
  EXPECT_EQ(y.host_work, 0.0);
}

TEST(Simulate, KvMemoryMakesTheSecondRequestWait) {
  SimConfig c;
  // Room for 100 blocks of 16 tokens: one request of 1000 + 600 tokens at a time.
  c.colocated = pool(fixed(0.1, 0, 0.01, 0, 100 * 16 * 1000.0));
  const SimResult r = simulate({{.arrival = 0, .prompt = 1000, .output = 600},
                                {.arrival = 0, .prompt = 1000, .output = 600}},
                               c);
  ASSERT_EQ(r.completed, 2);
  EXPECT_NEAR(r.times[1].admitted, r.times[0].finished, 1e-12);
  EXPECT_GT(r.queue_wait.max, 5.0);
}

TEST(Simulate, RequestsAboveTheKvCapacityAreRejectedNotStuck) {
  SimConfig c;
  c.colocated = pool(fixed(0.1, 0, 0.01, 0, 10 * 16 * 1000.0));
  const SimResult r = simulate(
      {{.arrival = 0, .prompt = 10, .output = 5}, {.arrival = 1, .prompt = 1000, .output = 5}}, c);
  EXPECT_EQ(r.completed, 1);
  EXPECT_EQ(r.rejected, 1);
  EXPECT_LT(r.little.relative_error, 1e-12);
}

TEST(Simulate, DisaggregatedOneRequestPaysTheTransfer) {
  SimConfig c;
  c.disaggregated = true;
  c.prefill = pool(fixed(0.05, 0, 0.01, 0));
  c.decode = pool(fixed(0.05, 0, 0.01, 0));
  c.kv_bandwidth = 1e6;  // B/s: 500 tokens x 1000 B = 0.5 s
  c.kv_latency = 0.002;
  const SimResult r = simulate({{.arrival = 0, .prompt = 500, .output = 4}}, c);
  EXPECT_NEAR(r.ttft.mean, 0.05, 1e-12);
  EXPECT_NEAR(r.kv_transfer_time, 0.502, 1e-12);
  EXPECT_NEAR(r.e2e.mean, 0.05 + 0.502 + 3 * 0.01, 1e-12);
  EXPECT_EQ(r.prefill.decode_tokens, 0);
  EXPECT_EQ(r.decode.decode_tokens, 3);
}

TEST(Simulate, MaxBatchBoundsTheDecodeBatch) {
  SimConfig c;
  c.colocated = pool(fixed(0.01, 0, 0.01, 0));
  c.max_batch = 4;
  std::vector<Request> reqs(20, Request{.arrival = 0, .prompt = 10, .output = 50});
  const SimResult r = simulate(reqs, c);
  EXPECT_EQ(r.completed, 20);
  EXPECT_LE(r.colocated.mean_decode_batch, 4.0);
  EXPECT_GT(r.colocated.mean_decode_batch, 3.0);
}

TEST(Serve, ShippedChatScenarioRunsOnTheRooflineModel) {
  config::LoadOptions load = testing::shipped_configs();
  load.assignments = config::Assignments({"arrivals.requests=300"});
  const ServeSetup setup = prepare("chat_nvl72", load, 1);
  const ServeReport r = run(setup);
  EXPECT_EQ(r.sim.completed, 300);
  EXPECT_GT(r.sim.tokens_per_s_per_gpu, 0);
  EXPECT_GT(r.sim.tpot.p50, 1e-4);  // a 7B decode step on one GPU is not free
  EXPECT_LT(r.sim.tpot.p50, 0.05);
  EXPECT_LT(r.sim.little.relative_error, 1e-9);
  EXPECT_GT(r.step_model_calls, 0);
}

}  // namespace
}  // namespace lightsim::serve

namespace lightsim::serve {
namespace {

// A prompt whose whole-prompt activations exceed HBM is still prefilled in chunks: the
// Evaluator's whole-prompt memory check does not refuse chunked steps.
TEST(Serve, LongPromptsArePrefilledInChunks) {
  config::LoadOptions load = testing::shipped_configs();
  load.assignments = config::Assignments({"arrivals.requests=2", "arrivals.prompt.median=1000000",
                                          "arrivals.prompt.max=2000000", "arrivals.prompt.sigma=0",
                                          "arrivals.output.sigma=0"});
  const ServeReport r = run(prepare("chat_nvl72", load, 1));
  EXPECT_EQ(r.sim.completed, 2);
  EXPECT_GT(r.sim.ttft.p50, 10.0);  // a million tokens on one GPU take tens of seconds
}

}  // namespace
}  // namespace lightsim::serve

namespace lightsim::serve {
namespace {

// A pool with a decode_plan decodes on the decode-at-scale model: its decode step is
// `decode step`'s for the same model, fabric, GPUs and plan, and a run completes.
TEST(Serve, DecodePlanTimesDecodeStepsAtScale) {
  config::LoadOptions load = testing::shipped_configs();
  load.assignments = config::Assignments({"arrivals.requests=200", "colocated.instances=18",
                                          "colocated.gpus_per_instance=4", "colocated.plan=TP=4",
                                          "colocated.decode_plan=TP=4"});
  const ServeSetup setup = prepare("chat_nvl72", load, 1);
  // The same instance as `decode step` reads it (bf16 Qwen2.5-7B, HBM fraction 0.9, cost
  // analysis at 4096 keys in both).
  config::LoadOptions same = testing::shipped_configs();
  same.assignments = config::Assignments({"fabric=gb200_nvl72", "gpus=4", "context=4096"});
  const decode::StepEvaluator ev(
      decode::prepare(decode::load_scale_scenario("qwen2_5_7b_h100", same), same));
  const decode::DecodePlan tp4 = decode::parse_plan("TP=4", 4);
  // Below 16 the step cache holds integers exactly; above, it interpolates its grid.
  const decode::StepBreakdown small = ev.step_time(tp4, 8, 12);
  ASSERT_TRUE(small.feasible) << small.reason;
  EXPECT_DOUBLE_EQ(setup.config.colocated.steps->decode(8, 12), small.step_time);
  const decode::StepBreakdown want = ev.step_time(tp4, 8, 3000);
  EXPECT_NEAR(setup.config.colocated.steps->decode(8, 3000), want.step_time, 1e-3 * want.step_time);
  const ServeReport r = run(setup);
  EXPECT_EQ(r.sim.completed, 200);
  EXPECT_LT(r.sim.little.relative_error, 1e-9);

  // Without a decode plan a pool of 4-GPU instances cannot decode; a bad plan is named.
  load.assignments = config::Assignments({"colocated.gpus_per_instance=4", "colocated.plan=TP=4"});
  EXPECT_THROW(prepare("chat_nvl72", load, 1), ConfigError);
  load.assignments = config::Assignments(
      {"colocated.gpus_per_instance=4", "colocated.plan=TP=4", "colocated.decode_plan=TP=3"});
  EXPECT_THROW(prepare("chat_nvl72", load, 1), ConfigError);
}

}  // namespace
}  // namespace lightsim::serve
