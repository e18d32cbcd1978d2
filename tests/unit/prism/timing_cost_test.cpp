// Controller timeline and cost model: latency is the sum of the states, state durations follow
// their formulas, energy components add up to the total, multiplexing and fan-out scale.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>

#include "lightsim/core/json.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/timing.h"
#include "shipped_configs.h"

namespace lightsim::prism {
namespace {

AcceleratorSpec timing_preset(const std::string& name) {
  return load_accelerator(name, testing::shipped_configs());
}

TEST(Timeline, LatencyIsTheSumOfItsStates) {
  for (const char* name : {"seed", "seed_fit", "scaled", "multichip", "soi"}) {
    AcceleratorSpec a = timing_preset(name);
    for (int rerank : {0, 64}) {
      a.selection.rerank_k = rerank;
      const Timeline t = timeline(a);
      double sum = 0, clock = 0;
      for (const Phase& p : t.phases) {
        EXPECT_DOUBLE_EQ(p.start, clock) << name;
        clock += p.duration;
        sum += p.duration;
      }
      EXPECT_DOUBLE_EQ(t.latency, sum) << name;
      EXPECT_LE(t.interval, t.latency * (1 + 1e-12)) << name;
      EXPECT_DOUBLE_EQ(t.qps, 1.0 / t.interval);
    }
  }
}

TEST(Timeline, StateDurationsFollowTheComponents) {
  const AcceleratorSpec a = timing_preset("seed");
  const Timeline t = timeline(a);
  EXPECT_EQ(t.passes, 1);
  EXPECT_DOUBLE_EQ(t.integrate, a.device.tia.integration_window.si());
  EXPECT_DOUBLE_EQ(t.adc_conv, 1.0 / a.electronics.adc_sample_rate.si());
  EXPECT_DOUBLE_EQ(t.dac_setup,
                   std::log(std::ldexp(1.0, a.electronics.query_bits + 1)) /
                       (2 * std::numbers::pi * a.electronics.query_dac_bandwidth.si()));
  // 256 rows, k = 32: levels merge lists of 1, 2, ..., 32, 32, 32 -> 1+2+3+4+5+6+6+6 stages.
  EXPECT_EQ(t.pass_tree.stages, 33);
  EXPECT_DOUBLE_EQ(t.topk, 33 * a.selection.comparator_delay.si());
  EXPECT_EQ(t.duration_of(State::weight_load), 0.0);  // one bank per KV head
  EXPECT_EQ(t.duration_of(State::merge), 0.0);
}

TEST(Timeline, MergeTreeOfOneLevelIsOneComparator) {
  const MergeTree t = merge_tree(2, 1, 1);
  EXPECT_EQ(t.stages, 1);
  EXPECT_DOUBLE_EQ(t.comparisons, 1);
  // k = 1 over 1024 leaves: a plain max tree, 1023 comparisons over 10 levels.
  const MergeTree m = merge_tree(1024, 1, 1);
  EXPECT_EQ(m.stages, 10);
  EXPECT_DOUBLE_EQ(m.comparisons, 1023);
}

TEST(Timeline, PassesRepeatTheBankAndChipsAddHops) {
  const Timeline one = timeline(timing_preset("seed_fit"));
  const Timeline scaled = timeline(timing_preset("scaled"));
  EXPECT_EQ(scaled.passes, 8);
  int integrations = 0;
  for (const Phase& p : scaled.phases) integrations += p.state == State::integrate;
  EXPECT_EQ(integrations, 8);
  EXPECT_GT(scaled.latency, 8 * one.integrate);
  EXPECT_GT(scaled.duration_of(State::merge), 0.0);
  const Timeline multi = timeline(timing_preset("multichip"));
  EXPECT_EQ(multi.passes, 2);
  EXPECT_EQ(multi.hops, 2);
  EXPECT_NEAR(multi.fanout_loss_db, 2 * 3.0 + 10 * std::log10(4.0), 1e-12);
  EXPECT_LT(multi.latency, scaled.latency);
}

TEST(Cost, ComponentsAddUpToTheTotal) {
  for (const char* name : {"seed", "seed_fit", "scaled", "multichip", "soi"}) {
    const CostReport r = cost(timing_preset(name));
    double sum = 0;
    for (const CostItem& c : r.energy) {
      EXPECT_GE(c.value, 0.0) << name << " " << c.name;
      EXPECT_FALSE(c.provenance.empty());
      sum += c.value;
    }
    EXPECT_NEAR(r.total_energy, sum, 1e-12 * sum) << name;
    double stat = 0;
    for (const CostItem& c : r.static_power) stat += c.value;
    EXPECT_NEAR(r.static_power_total, stat, 1e-12 * stat);
    EXPECT_NEAR(r.total_energy, r.dynamic_energy + stat / r.system_qps, 1e-9 * sum) << name;
    double area = 0;
    for (const CostItem& c : r.area) area += c.value;
    EXPECT_NEAR(r.area_total, area, 1e-12 * area);
  }
}

TEST(Cost, DerivedFromTheConfiguration) {
  const AcceleratorSpec a = timing_preset("seed");
  const CostReport r = cost(a, 2.0);
  EXPECT_DOUBLE_EQ(r.tec_power, 2.0);
  EXPECT_DOUBLE_EQ(r.tec_over_latency, 2.0 * r.timeline.latency);
  // Doubling the laser power doubles the laser energy only.
  AcceleratorSpec b = a;
  b.device.laser.power_per_line = Power::si(2 * a.device.laser.power_per_line.si());
  const CostReport rb = cost(b, 2.0);
  EXPECT_NEAR(rb.energy[0].value, 2 * r.energy[0].value, 1e-9 * r.energy[0].value);
  EXPECT_EQ(r.energy[0].name, "laser");
  // DAC area: one 0.01 mm^2 channel per ring, 8 banks x 256 x 32 rings.
  EXPECT_NEAR(r.area[1].value, 8 * 256 * 32 * 0.01e-6, 1e-15);
  // SOI heaters hold weights with mW per ring: static tuning dwarfs TFLN's.
  const CostReport soi = cost(timing_preset("soi"));
  const CostReport tfln = cost(timing_preset("seed_fit"));
  EXPECT_GT(soi.static_power[0].value, 1000 * tfln.static_power[0].value);
}

}  // namespace
}  // namespace lightsim::prism

namespace lightsim::prism {
namespace {

TEST(Cost, TecPowerComesFromTheThermalSteadyState) {
  const AcceleratorSpec a = load_accelerator("seed", testing::shipped_configs());
  const CostReport r = cost(a);
  EXPECT_GT(r.dissipated_power, 0.0);
  const ThermalOperatingPoint op = steady_state(a.thermal, Power::si(r.dissipated_power));
  EXPECT_DOUBLE_EQ(r.tec_power, op.tec_power);
  EXPECT_TRUE(r.tec_included);
  int tec_items = 0;
  for (const CostItem& c : r.static_power) tec_items += c.name == "tec";
  EXPECT_EQ(tec_items, 1);
  EXPECT_DOUBLE_EQ(r.tec_over_latency, op.tec_power * r.timeline.latency);
  // SOI's heaters dissipate more; more than the TEC can pump at all (next test).
  const CostReport soi = cost(load_accelerator("soi", testing::shipped_configs()));
  EXPECT_GT(soi.dissipated_power, r.dissipated_power);
}

// SOI's heaters put ~100 W on the chip: the two-stage TEC has no steady state there, so its
// power is not a figure and the cost model leaves it out of every item and total.
TEST(Cost, AnInfeasibleTecIsLeftOutOfEveryFigure) {
  const AcceleratorSpec a = load_accelerator("soi", testing::shipped_configs());
  const CostReport r = cost(a);
  ASSERT_FALSE(r.thermal.feasible);
  EXPECT_FALSE(r.tec_included);
  EXPECT_NE(r.thermal.reason.find("no steady state"), std::string::npos) << r.thermal.reason;
  EXPECT_EQ(r.tec_power, 0.0);
  EXPECT_EQ(r.tec_over_latency, 0.0);
  double stat = 0;
  for (const CostItem& c : r.static_power) {
    EXPECT_NE(c.name, "tec");
    stat += c.value;
  }
  for (const CostItem& c : r.energy) EXPECT_NE(c.name, "tec");
  EXPECT_NEAR(r.static_power_total, stat, 1e-12 * stat);
  // static tuning (the heaters) is the whole static power: no ungated laser on this preset.
  ASSERT_EQ(r.static_power.size(), 1u);
  EXPECT_EQ(r.static_power[0].name, "static_tuning");
  EXPECT_NEAR(r.total_energy, r.dynamic_energy + stat / r.system_qps, 1e-12 * r.total_energy);
  // The JSON cost table: null, flag and reason.
  const Json j = to_json(r);
  EXPECT_TRUE(j.at("tec_power_w").is_null());
  EXPECT_TRUE(j.at("tec_over_latency_j").is_null());
  EXPECT_TRUE(j.at("thermal").at("tec_power_w").is_null());
  EXPECT_FALSE(j.at("tec_included").get<bool>());
  EXPECT_EQ(j.at("tec_reason").get<std::string>(), r.thermal.reason);
  // The TFLN seed keeps its TEC, equal to the explicit-power report at the steady state's.
  const AcceleratorSpec seed = load_accelerator("seed", testing::shipped_configs());
  const CostReport s = cost(seed);
  ASSERT_TRUE(s.tec_included);
  const CostReport explicit_tec = cost(seed, s.thermal.tec_power);
  EXPECT_DOUBLE_EQ(s.total_energy, explicit_tec.total_energy);
  EXPECT_DOUBLE_EQ(s.static_power_total, explicit_tec.static_power_total);
  EXPECT_TRUE(to_json(s).at("tec_power_w").is_number());
}

TEST(Timeline, BalancedEncodingIntegratesTwiceAndPaysTwiceForWindowsAndSymbols) {
  AcceleratorSpec a = timing_preset("seed");
  const Timeline t1 = timeline(a);
  const CostReport r1 = cost(a, 0.0);
  a.electronics.query_encoding = QueryEncoding::balanced;
  const Timeline t2 = timeline(a);
  const CostReport r2 = cost(a, 0.0);
  EXPECT_EQ(t1.rails, 1);
  EXPECT_EQ(t2.rails, 2);
  EXPECT_DOUBLE_EQ(t2.duration_of(State::integrate), 2 * t1.duration_of(State::integrate));
  EXPECT_DOUBLE_EQ(t2.duration_of(State::adc_conv), 2 * t1.duration_of(State::adc_conv));
  EXPECT_NEAR(t2.latency - t1.latency, t1.integrate + t1.adc_conv, 1e-15);
  auto item = [](const CostReport& r, const std::string& name) {
    for (const CostItem& c : r.energy)
      if (c.name == name) return c.value;
    ADD_FAILURE() << name;
    return 0.0;
  };
  for (const char* name : {"modulators", "detectors", "tia_adc"})
    EXPECT_NEAR(item(r2, name), 2 * item(r1, name), 1e-12 * item(r1, name)) << name;
  EXPECT_DOUBLE_EQ(item(r2, "query_dacs"), item(r1, "query_dacs"));  // one code per channel
  EXPECT_GT(item(r2, "laser"), item(r1, "laser"));  // the light stays on for both windows
}

}  // namespace
}  // namespace lightsim::prism
