// The cost model: energy per query by component, static power, latency and area, all derived
// from the accelerator configuration with the provenance of each figure (docs/prism.md,
// "Cost model"). One query = one KV head's scoring of its logical rows on one bank.
//
// Per-query energy components (J):
//   laser        wall power d P_line 10^(fanout/10) / wpe over the light-on time
//                (passes x (OPTICAL_PROP + INTEGRATE)) when gated
//   modulators   d x modulator_energy (the query is held over all passes)
//   query_dacs   d x query_dac_step 2^query_bits
//   detectors    2 photodiodes per row: V_bias (I_thru + I_drop + 2 I_dark) x window, every
//                scored row (passes x physical rows x chips), photocurrents from the link budget
//   tia_adc      TIA power x window per row + ADC adc_step 2^adc_bits per conversion
//   topk         compare-and-swaps of the merge trees x comparator_energy
//   rerank       k' d (mac_energy + signature_bytes x sram_energy)
//   programming  ring switches per query x switch energy (programming.h)
//   static_tuning  banks x rings x the tuner's operating-point power (operating_point.h: the
//                heater power at the bias point, or the Pockels leakage) / system query rate
//   tec          TEC power / system query rate (only when the TEC is included, below)
// "dynamic" is the sum without static_tuning and tec (and without the laser when it is not
// gated); "total" is the sum of every component. The system query rate is banks x per-bank
// rate (per_kv_head banks work in parallel). The seed's own convention, TEC x one query's
// latency, is reported beside it.
//
// An infeasible TEC is never a number: when the thermal steady state has no solution
// (ThermalOperatingPoint::feasible false, e.g. SOI's heaters dissipate more than the TEC can
// pump), its power is not a figure (the fixed point of thermal.h has no solution, and the
// value where the iteration stopped means nothing). Then `tec_included` is false, there is no
// "tec" item in `static_power` or `energy`, `tec_power` and `tec_over_latency` are 0 and every
// total is without the TEC; `thermal.reason` says why (JSON: tec_power_w null).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/json_fwd.h"
#include "lightsim/photonics/feasibility.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/operating_point.h"
#include "lightsim/prism/thermal.h"
#include "lightsim/prism/timing.h"

namespace lightsim::prism {

struct CostItem {
  std::string name;
  double value = 0;        // J (energy), W (power) or m^2 (area)
  std::string provenance;  // which config keys and formula produced it
};

struct CostReport {
  std::vector<CostItem> energy;        // per query
  std::vector<CostItem> static_power;  // W, whole accelerator (every bank)
  std::vector<CostItem> area;          // m^2, whole accelerator
  double dynamic_energy = 0;           // J per query
  double total_energy = 0;             // J per query (sum of `energy`)
  double static_power_total = 0;       // W
  double area_total = 0;               // m^2
  // Whether the TEC is in the figures (see the contract above). When false, tec_power and
  // tec_over_latency are 0 and mean "left out", not "free"; thermal.reason says why.
  bool tec_included = true;
  double tec_power = 0;         // W (0 when !tec_included)
  double tec_over_latency = 0;  // J: TEC power x one query's latency (seed convention)
  double system_qps = 0;        // banks x per-bank queries per second
  int banks = 1;
  double laser_wall_power = 0;  // W while on (with the fan-out loss made up)
  Timeline timeline;
  photonics::FeasibilityReport feasibility;
  double dissipated_power = 0;    // W on chip the TEC removes (see cost(a))
  ThermalOperatingPoint thermal;  // steady state at that power (thermal.h)
  TunerOperatingPoint tuner;      // per ring: bias, holding power, lock range (operating_point.h)
};

// `tec_power`: the TEC's electrical power (W) at the operating point, given by the caller
// (tec_included true; `thermal` and `dissipated_power` are left at their defaults).
CostReport cost(const AcceleratorSpec& a, double tec_power);
// The TEC power from the thermal steady state (steady_state in thermal.h) at the on-chip
// dissipation of full-rate operation: static tuning + (dynamic energy - laser) x system rate
// (the laser sits off chip). An infeasible TEC point is a result, not an exception: `thermal`
// holds it with the reason and the TEC is left out (tec_included false, see above).
CostReport cost(const AcceleratorSpec& a);

// W: the heaters' (or Pockels tuners') holding power of every bank, the report's
// "static_tuning" static items summed (the part of the static power that sits on the chip).
double static_tuning_power(const CostReport& r);

// The cost table the decode model reads: energy/latency/area per operation with provenance.
// tec_power_w, tec_over_latency_j and thermal.tec_power_w are null when the TEC is infeasible
// (tec_included false, tec_reason = thermal.reason).
Json to_json(const CostReport& r);

// The seed's figures (../shared/SPEC.md sections 1.2, 1.3, 1.7, 3), printed beside ours by
// `lightsim prism cost`; never a model input (configs/references/prism_seed.yaml).
struct PrismSeedReference {
  static constexpr std::string_view kind = "prism_seed_reference";
  std::string source;
  Energy dynamic_energy = Energy::si(1.57e-9);
  Energy energy_with_tec = Energy::si(9e-9);
  Time latency = Time::si(9e-9);
  Time multiplexed_latency = Time::si(72e-9);
  int multiplexed_passes = 8;
  Energy optical_mvm_energy = Energy::si(58e-12);
  Energy switch_energy = Energy::si(5e-15);
  Power tec_power = Power::si(1.0);
  double soi_power_ratio = 0;  // SOI total system power / TFLN's (required in the file)
  static void describe(config::Schema<PrismSeedReference>& s);
};

}  // namespace lightsim::prism
