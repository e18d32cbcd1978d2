// Steady state of the thermal model: passive chip, TEC power, loop suppression.
#include <cmath>

#include <gtest/gtest.h>

#include "lightsim/prism/thermal.h"

namespace lightsim::prism {
namespace {

TEST(ThermalSteady, TecOffChipIsAmbientPlusResistanceTimesPower) {
  ThermalSpec spec;
  spec.tec.enabled = false;
  spec.ambient = TemperatureDelta::si(30.0);
  spec.package_resistance = ThermalResistance::si(0.5);
  spec.heatsink_resistance = ThermalResistance::si(0.0);
  const ThermalOperatingPoint op = steady_state(spec, Power::si(4.0));
  EXPECT_DOUBLE_EQ(op.chip, 32.0);
  EXPECT_EQ(op.tec_power, 0.0);
  spec.heatsink_resistance = ThermalResistance::si(0.25);
  EXPECT_DOUBLE_EQ(steady_state(spec, Power::si(4.0)).chip, 33.0);
}

TEST(ThermalSteady, TecHoldsSetpointAndPowerRisesWithLoad) {
  ThermalSpec spec;
  spec.ambient = TemperatureDelta::si(35.0);
  spec.setpoint = TemperatureDelta::si(25.0);
  double last = 0.0;
  for (double p : {0.1, 0.5, 1.0, 2.0}) {
    const ThermalOperatingPoint op = steady_state(spec, Power::si(p));
    ASSERT_TRUE(op.feasible) << op.reason;
    EXPECT_DOUBLE_EQ(op.chip, 25.0);
    EXPECT_DOUBLE_EQ(op.fine.cold, 25.0 - 0.5 * p);
    EXPECT_GT(op.tec_power, last);
    // Energy balance: heat rejected = chip heat + pumping power of both stages.
    const double pump =
        op.tec_power - spec.tec.fine.driver_power.si() - spec.tec.coarse.driver_power.si();
    EXPECT_NEAR(op.coarse.hot, 35.0 + 0.1 * (p + pump), 1e-9);
    last = op.tec_power;
  }
}

TEST(ThermalSteady, TecPowerRisesWithTemperatureDifference) {
  ThermalSpec spec;
  spec.setpoint = TemperatureDelta::si(25.0);
  spec.tec.coarse.max_cop = spec.tec.fine.max_cop = 1e3;  // Ioffe's COP alone
  double last = 0.0;
  for (double amb : {30.0, 40.0, 50.0}) {
    spec.ambient = TemperatureDelta::si(amb);
    const ThermalOperatingPoint op = steady_state(spec, Power::si(1.0));
    ASSERT_TRUE(op.feasible) << op.reason;
    EXPECT_GT(op.tec_power, last);
    last = op.tec_power;
  }
}

TEST(ThermalSteady, InfeasibleWhenAStageCannotPump) {
  ThermalSpec spec;
  spec.ambient = TemperatureDelta::si(120.0);
  spec.setpoint = TemperatureDelta::si(0.0);
  spec.tec.coarse.zt = 0.1;
  spec.tec.fine.zt = 0.1;
  const ThermalOperatingPoint op = steady_state(spec, Power::si(1.0));
  EXPECT_FALSE(op.feasible);
  EXPECT_NE(op.reason.find("cannot pump"), std::string::npos) << op.reason;
}

// 100 W through R_pkg = 0.5 K/W: the cold side sits at 25 - 50 = -25 C. The first step pumps
// with COP < 1 at each stage, so the heat rejected more than doubles and the hot side (through
// R_sink) climbs until a stage's COP is 0: there is no steady state, and the reason quotes the
// cold side and the first step, not the temperatures where the iteration stopped.
TEST(ThermalSteady, RunawayPumpingHasNoSteadyState) {
  ThermalSpec spec;
  const ThermalOperatingPoint op = steady_state(spec, Power::si(100.0));
  ASSERT_FALSE(op.feasible);
  EXPECT_NE(op.reason.find("no steady state at 100 W"), std::string::npos) << op.reason;
  EXPECT_NE(op.reason.find("-25.00 C"), std::string::npos) << op.reason;
  EXPECT_NE(op.reason.find("runs away"), std::string::npos) << op.reason;
  // At 1 W the same TEC settles (the seed's operating point).
  EXPECT_TRUE(steady_state(spec, Power::si(1.0)).feasible);
}

TEST(ThermalSteady, IoffeCopLimits) {
  // Carnot limit as ZT -> infinity: COP -> T_c / dT.
  EXPECT_NEAR(tec_cop(290.0, 300.0, 1e8, 1e9), 29.0, 0.01);
  // Maximum temperature difference: COP = 0 at dT_max = Z T_c^2 / 2 (ZT at the mean).
  EXPECT_LT(tec_cop(200.0, 400.0, 0.8, 10.0), 0.0);
  EXPECT_DOUBLE_EQ(tec_cop(300.0, 290.0, 0.8, 3.0), 3.0);
}

TEST(ThermalSteady, LoopSuppressionOfFirstOrderLoop) {
  EXPECT_NEAR(loop_suppression(1.0, 1.0, 1.0), 1.0 / std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(loop_suppression(2.0, 1e-3, 1.0), 2e-3, 1e-8);
  EXPECT_NEAR(loop_suppression(1.0, 1e6, 1.0), 1.0, 1e-9);
}

TEST(ThermalSteady, StabilityMissedIsReported) {
  ThermalSpec spec;
  spec.ambient_swing = TemperatureDelta::si(5.0);
  spec.ambient_period = Time::si(1.0);
  spec.tec.coarse.bandwidth = Frequency::si(0.01);
  spec.tec.fine.bandwidth = Frequency::si(0.01);
  const ThermalOperatingPoint op = steady_state(spec, Power::si(0.5));
  EXPECT_FALSE(op.feasible);
  EXPECT_NE(op.reason.find("holds"), std::string::npos) << op.reason;
}

}  // namespace
}  // namespace lightsim::prism
