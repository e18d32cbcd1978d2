// `lightsim prism cost|timeline CONFIG`: the accelerator's cost breakdown beside the seed's
// figures, and the controller's per-state timeline (docs/prism.md).
#include <cmath>
#include <filesystem>
#include <iostream>

#include "cli.h"
#include "lightsim/core/config_files.h"
#include "lightsim/core/json.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/programming.h"
#include "lightsim/prism/relock.h"
#include "lightsim/prism/timing.h"

namespace lightsim::cli {
namespace {

// The relock downtime over a drift run of `duration` (prism::simulate_drift at the cost
// model's on-chip heat; relock.h), applied to `qps`.
prism::RelockThroughput relocks(const prism::AcceleratorSpec& a, const std::string& duration,
                                double heat, double qps, std::uint64_t seed) {
  prism::DriftOptions d;
  try {
    d.duration = parse<dims::time>(duration);
  } catch (const UnitError& e) {
    LIGHTSIM_THROW(UsageError, "--drift-duration: {}", e.what());
  }
  LIGHTSIM_CHECK_AS(UsageError, d.duration.si() >= d.trace_interval.si(),
                    "--drift-duration must be at least {} (got {})", to_string(d.trace_interval),
                    duration);
  d.heat = Power::si(heat);
  d.seed = seed;
  const prism::DriftRun run = prism::simulate_drift(a.device, a.thermal, a.calibration, d);
  return prism::relock_throughput(run, a.calibration, d.duration.si(), qps);
}

void print_relocks(const prism::RelockThroughput& r, const char* what) {
  if (!r.available) {
    fmt::print("  {:<28} n/a: the drift run stopped ({})\n", "net of relocks", r.reason);
    return;
  }
  fmt::print(
      "  {:<28} {:>10.4g} /s {} ({} relock(s) in {:.3g} s of drift: {:.3g} per s x "
      "{:.3g} us ({:.3g} iterations x {}) = {:.3g}% busy)\n",
      "net of relocks", r.qps_net, what, r.relocks, r.duration, r.relock_rate, r.lock_time * 1e6,
      r.iterations, "iteration_time", r.busy_fraction * 100);
}

std::string deviation(double ours, double seed) {
  return fmt::format("{:+.0f}%", 100.0 * (ours - seed) / seed);
}

void print_cost(const std::string& name, const prism::AcceleratorSpec& a,
                const prism::CostReport& r, const prism::PrismSeedReference& seed,
                const prism::RelockThroughput& relock) {
  const prism::Timeline& t = r.timeline;
  fmt::print("Prism accelerator {}: {}\n", name, a.description);
  fmt::print(
      "  d = {} channels, {} physical rows x {} chip(s), {} logical rows, {} pass(es), "
      "{} bank(s) ({})\n",
      a.device.grid.channels, prism::physical_rows(a), a.interposer.chips, prism::scored_rows(a),
      t.passes, r.banks, prism::to_string(a.programming.banks));
  if (!r.feasibility.feasible) {
    fmt::print("  device NOT feasible (figures below are still computed from its parameters):\n");
    for (const std::string& s : r.feasibility.reasons()) fmt::print("    - {}\n", s);
  }
  fmt::print("\nEnergy per query                 ours        | seed\n");
  for (const prism::CostItem& c : r.energy)
    fmt::print("  {:<28} {:>10.2f} pJ\n", c.name, c.value * 1e12);
  fmt::print("  {:<28} {:>10.2f} pJ | {:.0f} pJ ({})\n", "dynamic", r.dynamic_energy * 1e12,
             seed.dynamic_energy.si() * 1e12,
             deviation(r.dynamic_energy, seed.dynamic_energy.si()));
  fmt::print("  {:<28} {:>10.2f} pJ   (static shares at {:.3g} queries/s over {} bank(s))\n",
             "total", r.total_energy * 1e12, r.system_qps, r.banks);
  if (r.tuner.heater)
    fmt::print(
        "  heaters idle at weight {:+.3g}: {:.4g} mW per ring, lock range [{:.4g}, {:.4g}] "
        "pm{}\n",
        r.tuner.bias_weight, r.tuner.power * 1e3, r.tuner.lock.lo * 1e12, r.tuner.lock.hi * 1e12,
        r.tuner.covers ? "" : "\n    NOT covered: " + r.tuner.reason);
  if (r.tec_included) {
    const double seed_style = r.dynamic_energy + r.tec_over_latency;
    fmt::print("  {:<28} {:>10.2f} pJ | {:.0f} pJ ({})\n", "dynamic + TEC x latency",
               seed_style * 1e12, seed.energy_with_tec.si() * 1e12,
               deviation(seed_style, seed.energy_with_tec.si()));
  } else {
    fmt::print(
        "  {:<28} {:>10} | {:.0f} pJ (not comparable: the TEC is infeasible, so it is "
        "left out of every figure; see Static power)\n",
        "dynamic + TEC x latency", "n/a", seed.energy_with_tec.si() * 1e12);
  }
  fmt::print("\nLatency and rate\n");
  std::string seed_lat = "n/a (seed states 1 and 8 passes)";
  if (t.passes == 1)
    seed_lat = fmt::format("{:.0f} ns ({})", seed.latency.si() * 1e9,
                           deviation(t.latency, seed.latency.si()));
  else if (t.passes == seed.multiplexed_passes)
    seed_lat = fmt::format("{:.0f} ns ({})", seed.multiplexed_latency.si() * 1e9,
                           deviation(t.latency, seed.multiplexed_latency.si()));
  fmt::print("  {:<28} {:>10.2f} ns | {}\n", "latency per query", t.latency * 1e9, seed_lat);
  fmt::print("  {:<28} {:>10.2f} ns   ({})\n", "interval (back-to-back)", t.interval * 1e9,
             a.electronics.pipelined ? "pipelined" : "not pipelined");
  fmt::print("  {:<28} {:>10.3g} /s per bank, {:.3g} /s in all\n", "queries per second", t.qps,
             r.system_qps);
  print_relocks(relock, "in all");
  if (t.chips > 1)
    fmt::print("  {:<28} {:>10.2f} dB over {} hop(s) (laser scaled to make it up)\n",
               "interposer fan-out loss", t.fanout_loss_db, t.hops);
  fmt::print("\nStatic power\n");
  for (const prism::CostItem& c : r.static_power)
    fmt::print("  {:<28} {:>10.4g} W\n", c.name, c.value);
  if (!r.tec_included)
    fmt::print("  {:<28} {:>10} ({}); left out of the totals\n", "tec", "infeasible",
               r.thermal.reason);
  fmt::print("  {:<28} {:>10.4g} W | TEC {:.3g} W{}\n", "total", r.static_power_total,
             seed.tec_power.si(), r.tec_included ? "" : " (ours without the TEC)");
  fmt::print("  laser wall power while on    {:>10.4g} W\n", r.laser_wall_power);
  if (r.thermal.feasible)
    fmt::print(
        "  on-chip dissipation at full rate {:.4g} W -> chip {:.2f} C, TEC {:.4g} W, +-{:.3g} K\n",
        r.dissipated_power, r.thermal.chip, r.thermal.tec_power, r.thermal.stability);
  else
    fmt::print(
        "  on-chip dissipation at full rate {:.4g} W: the TEC cannot hold the chip at its "
        "{:.2f} C setpoint (why: tec, above)\n",
        r.dissipated_power, r.thermal.chip);
  fmt::print("\nArea\n");
  for (const prism::CostItem& c : r.area)
    fmt::print("  {:<28} {:>10.3f} mm^2\n", c.name, c.value * 1e6);
  fmt::print("  {:<28} {:>10.3f} mm^2\n", "total", r.area_total * 1e6);
  const auto other = a.programming.banks == prism::BankSharing::per_kv_head
                         ? prism::BankSharing::time_shared
                         : prism::BankSharing::per_kv_head;
  const prism::ProgrammingCost mine = prism::programming_cost(a);
  const prism::ProgrammingCost alt = prism::programming_cost(a, other);
  fmt::print("\nGQA bank mapping ({} KV heads; switch energy {:.3g} fJ, seed {:.3g} fJ)\n",
             a.programming.kv_heads, mine.switch_energy * 1e15, seed.switch_energy.si() * 1e15);
  fmt::print("  {:<14} programming {:>10.3f} pJ/query, {} bank load(s) in the latency\n",
             prism::to_string(a.programming.banks), mine.energy_per_query() * 1e12,
             mine.loads_per_query);
  fmt::print("  {:<14} programming {:>10.3f} pJ/query, {} bank load(s) in the latency\n",
             prism::to_string(other), alt.energy_per_query() * 1e12, alt.loads_per_query);
  fmt::print("\nSee docs/prism.md for why each figure differs from the seed's.\n");
}

void print_timeline(const std::string& name, const prism::Timeline& t,
                    const prism::RelockThroughput& relock) {
  fmt::print("Controller timeline of one query on {} ({} pass(es), {} chip(s))\n", name, t.passes,
             t.chips);
  fmt::print("  {:<14} {:>4} {:>10} {:>10}\n", "state", "pass", "start ns", "length ns");
  for (const prism::Phase& p : t.phases)
    fmt::print("  {:<14} {:>4} {:>10.3f} {:>10.3f}\n", prism::to_string(p.state), p.pass,
               p.start * 1e9, p.duration * 1e9);
  fmt::print("  latency {:.3f} ns (sum of the states), interval {:.3f} ns, {:.4g} queries/s\n",
             t.latency * 1e9, t.interval * 1e9, t.qps);
  print_relocks(relock, "per bank");
}

}  // namespace

void add_prism_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  CLI::App* prism = app.add_subcommand("prism", "The Prism photonic KV-block selector");
  prism->require_subcommand(1);
  add_prism_thermal_commands(*prism, options, registry);  // thermal, calibrate

  auto* cost = prism->add_subcommand(
      "cost", "Energy per query by component, static power, latency and area (JSON: cost table)");
  auto cost_name = std::make_shared<std::string>();
  auto cost_drift = std::make_shared<std::string>("10 s");
  cost->add_option("CONFIG", *cost_name, "Accelerator name (configs/accelerators/) or YAML file")
      ->required();
  cost->add_option("--drift-duration", *cost_drift,
                   "Simulated drift time that sets the relock rate (throughput net of relocks)")
      ->capture_default_str();
  cost->callback([cost_name, cost_drift, &options] {
    const auto load = options.load_options();
    const prism::AcceleratorSpec a = prism::load_accelerator(*cost_name, load);
    // The seed's figures are another file: --set is the accelerator's, not theirs.
    config::LoadOptions plain = load;
    plain.assignments.clear();
    const auto seed = config::load_spec<prism::PrismSeedReference>(
        config::find_named("prism_seed", "references", ".yaml", plain, "reference"), plain);
    options.require_all_used();
    const prism::CostReport r = prism::cost(a);
    const prism::RelockThroughput relock =
        relocks(a, *cost_drift, r.dissipated_power, r.system_qps, options.seed);
    if (options.json) {
      Json j = prism::to_json(r);
      j["accelerator"] = *cost_name;
      j["relocks"] = prism::to_json(relock);
      j["seed"] = {{"dynamic_energy_j", seed.dynamic_energy.si()},
                   {"energy_with_tec_j", seed.energy_with_tec.si()},
                   {"latency_s", seed.latency.si()},
                   {"multiplexed_latency_s", seed.multiplexed_latency.si()},
                   {"multiplexed_passes", seed.multiplexed_passes}};
      std::cout << dump_json(j);
      return;
    }
    print_cost(*cost_name, a, r, seed, relock);
  });

  auto* tl = prism->add_subcommand("timeline", "Per-state timeline of one query, latency, QPS");
  auto tl_name = std::make_shared<std::string>();
  auto tl_drift = std::make_shared<std::string>("10 s");
  tl->add_option("CONFIG", *tl_name, "Accelerator name (configs/accelerators/) or YAML file")
      ->required();
  tl->add_option("--drift-duration", *tl_drift,
                 "Simulated drift time that sets the relock rate (throughput net of relocks)")
      ->capture_default_str();
  tl->callback([tl_name, tl_drift, &options] {
    const prism::AcceleratorSpec a = prism::load_accelerator(*tl_name, options.load_options());
    options.require_all_used();
    const prism::Timeline t = prism::timeline(a);
    const prism::RelockThroughput relock =
        relocks(a, *tl_drift, prism::cost(a).dissipated_power, t.qps, options.seed);
    if (options.json) {
      Json j = prism::to_json(t);
      j["relocks"] = prism::to_json(relock);
      std::cout << dump_json(j);
      return;
    }
    print_timeline(*tl_name, t, relock);
  });
}

}  // namespace lightsim::cli
