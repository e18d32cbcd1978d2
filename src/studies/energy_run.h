// Private to the energy study (energy_study.cpp, energy_claims.cpp): the figures of one run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lightsim/report/result.h"
#include "lightsim/studies/energy.h"
#include "lightsim/studies/runner.h"

namespace lightsim::studies::energy_detail {

inline constexpr double kNano = 1e9, kMicro = 1e6;

using EnergyRun = Run<EnergyStudySpec, EnergySeedReference>;

// One system's figure at one context (energy J, latency s, bytes B; gpu "" for Prism/LPDDR5).
struct Point {
  std::int64_t context = 0;
  std::string system, gpu;
  double bytes = 0, energy = 0, latency = 0;
};

// The Prism line energies: dynamic, and with the TEC in the seed's convention (TEC power x
// one query's latency, as the prism study's energy_with_tec claim).
inline double with_tec(const prism::CostReport& c) {
  return c.dynamic_energy + c.tec_over_latency;
}

struct Figures {
  std::vector<Point> points;
  std::map<std::int64_t, PrismAtContext> prism;
  std::map<std::int64_t, kv::IvfPqTouch> faiss;
};

// The point of `system` on `gpu` ("" for Prism and LPDDR5) at `context`; null when absent.
const Point* find(const Figures& f, std::int64_t context, const std::string& system,
                  const std::string& gpu);

// TFLN vs SOI system power (table `power`, claim soi_power_ratio).
void add_power(EnergyRun& run);
// The seed's table row by row at the seed's context (the chart GPU for the GPU rows).
void add_claims(EnergyRun& run, const Figures& f);
// The claim rules: every figure of configs/references/energy_seed.yaml.
std::vector<ClaimRule<EnergyStudySpec, EnergySeedReference>> claim_rules();

}  // namespace lightsim::studies::energy_detail
