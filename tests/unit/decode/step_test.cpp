// The decode step model: KV bytes against the closed form, monotonicity, Prism's bounds, the
// roofline and power limits, infeasible HBM, and bad configs.
#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "lightsim/decode/step.h"
#include "scratch_dir.h"
#include "shipped_configs.h"

namespace lightsim::decode {
namespace {

const DecodeSetup& step_setup() {
  static const DecodeSetup s = [] {
    const config::LoadOptions load = lightsim::testing::shipped_configs();
    return prepare(load_scenario("qwen2_5_7b", load), load);
  }();
  return s;
}

const GpuOption& gpu(const std::string& name) {
  for (const GpuOption& g : step_setup().scenario.gpus)
    if (g.gpu.name == name) return g;
  throw std::runtime_error("no gpu " + name);
}

const GpuOption& h100() {
  return gpu("H100 SXM");
}

TEST(DecodeStep, FullAttentionKvBytesMatchTheClosedForm) {
  // Qwen2.5-7B config.json: 28 layers, 4 KV heads, head_dim 3584 / 28 = 128; BF16 = 2 B.
  const double layers = 28, kv_heads = 4, head_dim = 128, bytes = 2;
  for (std::int64_t batch : {1, 3, 8})
    for (std::int64_t context : {4096, 12345, 65536}) {
      const StepReport r = evaluate_step(step_setup(), h100(), Attention::full, batch, context);
      ASSERT_TRUE(r.feasible) << r.reason;
      const double closed = 2 * layers * kv_heads * head_dim * bytes * double(context);
      EXPECT_DOUBLE_EQ(r.kv_bytes_read, double(batch) * closed) << batch << " x " << context;
      // The step's HBM traffic holds every weight and that KV read, plus small activations.
      EXPECT_GE(r.hbm_bytes, r.weight_bytes + r.kv_bytes_read);
      EXPECT_LT(r.hbm_bytes, 1.01 * (r.weight_bytes + r.kv_bytes_read));
    }
}

TEST(DecodeStep, LatencyGrowsWithContextAndBatch) {
  for (Attention a : {Attention::full, Attention::prism}) {
    double previous = 0;
    for (std::int64_t context : {4096, 8192, 16384, 32768, 65536, 131072}) {
      const StepReport r = evaluate_step(step_setup(), h100(), a, 1, context);
      // Full attention reads every key, so it grows strictly. Prism reads a fixed number of
      // keys; only its own query time grows (a pass per 1024 blocks), so it may stay flat.
      if (a == Attention::full)
        EXPECT_GT(r.step_time, previous) << context;
      else
        EXPECT_GE(r.step_time, previous) << context;
      previous = r.step_time;
    }
    previous = 0;
    for (std::int64_t batch : {1, 2, 4, 8, 16}) {
      const StepReport r = evaluate_step(step_setup(), h100(), a, batch, 16384);
      EXPECT_GT(r.step_time, previous) << to_string(a) << " batch " << batch;
      previous = r.step_time;
    }
  }
}

TEST(DecodeStep, PrismNeverReadsMoreKvThanFullAttention) {
  for (const Comparison& c : evaluate_grid(step_setup())) {
    if (!c.full.feasible) {
      EXPECT_FALSE(c.prism.feasible);  // the KV cache stays in HBM either way
      continue;
    }
    EXPECT_LE(c.prism.kv_bytes_read, c.full.kv_bytes_read) << c.full.batch << " " << c.full.context;
    EXPECT_LE(c.prism.attended_tokens, c.full.attended_tokens);
  }
}

TEST(DecodeStep, SelectionCoveringTheContextIsFullAttention) {
  // 128 sinks + 256 recent + 32 x 128 selected = 4480 tokens >= 4096: Prism is not asked.
  const PrismSelection sel = prism_selection(step_setup(), 4096);
  EXPECT_FALSE(sel.used);
  const StepReport full = evaluate_step(step_setup(), h100(), Attention::full, 2, 4096);
  const StepReport prism = evaluate_step(step_setup(), h100(), Attention::prism, 2, 4096);
  EXPECT_EQ(prism.prism_queries, 0);
  EXPECT_DOUBLE_EQ(prism.step_time, full.step_time);
  EXPECT_DOUBLE_EQ(prism.system_power, full.system_power);
}

TEST(DecodeStep, PrismReadsTheSelectedBlocksAndAsksOneQueryPerKvHeadAndLayer) {
  const StepReport r = evaluate_step(step_setup(), h100(), Attention::prism, 4, 131072);
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_EQ(r.attended_tokens, 128 + 256 + 32 * 128);
  EXPECT_EQ(r.prism_queries, 4 * 28 * 4);
  EXPECT_EQ(r.selection.blocks, 1024);
  EXPECT_GT(r.prism_time, 0.0);
  EXPECT_GT(r.prism_power, 0.0);
  EXPECT_DOUBLE_EQ(r.step_time, r.gpu_time + r.prism_time);
}

TEST(DecodeStep, BatchOneIsMemoryBoundOnTheRoofline) {
  // Every operator of a batch-1 step is memory-bound: time = bytes / (B_hbm eff(bytes)) with
  // eff <= memory_efficiency_max, so the sum is at least bytes / (B_hbm eff_max).
  const fabric::GpuSpec& g = h100().gpu;
  const StepReport r = evaluate_step(step_setup(), h100(), Attention::full, 1, 32768);
  const double floor = r.hbm_bytes / (g.hbm_bandwidth.si() * g.memory_efficiency_max);
  EXPECT_GE(r.gpu_time, floor);
  EXPECT_LT(r.gpu_time, 1.15 * floor);
  EXPECT_LT(r.compute_utilization, 0.05);
}

TEST(DecodeStep, PowerStaysBetweenIdleAndTdpAndCostFollowsTime) {
  for (const Comparison& c : evaluate_grid(step_setup()))
    for (const StepReport* r : {&c.full, &c.prism}) {
      if (!r->feasible) continue;
      const GpuOption& g = gpu(r->gpu);
      EXPECT_GE(r->gpu_power, g.gpu.idle_power->si());
      EXPECT_LE(r->gpu_power, g.gpu.tdp->si());
      EXPECT_LE(r->memory_utilization, 1.0);
      EXPECT_LE(r->compute_utilization, 1.0);
      EXPECT_NEAR(r->energy_per_token, r->system_power * r->step_time / double(r->batch),
                  1e-12 * r->energy_per_token);
      // Prism is not priced in the scenario: cost is the GPU's price over the tokens.
      EXPECT_NEAR(r->cost_per_million_tokens,
                  g.price_per_hour_usd / 3600 * r->step_time / double(r->batch) * 1e6,
                  1e-9 * r->cost_per_million_tokens);
    }
}

TEST(DecodeStep, KvCacheBeyondHbmIsAnInfeasibleResult) {
  // 64 x 128K tokens x 57344 B = 481 GB of KV cache on a 40 GB A100.
  const StepReport r =
      evaluate_step(step_setup(), gpu("A100 SXM4 40GB"), Attention::full, 64, 131072);
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("HBM"), std::string::npos) << r.reason;
  EXPECT_NEAR(r.hbm_footprint, 64.0 * 131072 * 57344 + 7.6e9 * 2, 0.02 * r.hbm_footprint);
}

TEST(DecodeScenario, GpuWithoutPowerFiguresIsAConfigError) {
  const auto dir = lightsim::testing::scratch_dir();
  const auto file = dir / "no_power.yaml";
  lightsim::testing::write_bytes(file,
                                 "schema_version: 1\n"
                                 "kind: decode_scenario\n"
                                 "name: t\n"
                                 "model: qwen2_5_7b\n"
                                 "gpus:\n"
                                 "  - gpu: {preset: h20}\n"
                                 "    price_per_hour_usd: 1\n"
                                 "prism: {accelerator: scaled}\n");
  try {
    (void)load_scenario(file.string(), lightsim::testing::shipped_configs());
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no_power.yaml"), std::string::npos) << what;
    EXPECT_NE(what.find("tdp"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace lightsim::decode
