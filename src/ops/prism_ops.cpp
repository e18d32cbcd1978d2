// The Prism accelerator (docs/prism.md): prism_cost (energy per query by component, static
// power, latency and area beside the seed's figures) and prism_timeline (the controller's
// per-state timeline), each with the throughput net of relocks over a simulated drift run.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <ostream>

#include "lightsim/core/config_files.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/die.h"
#include "lightsim/prism/lock_power.h"
#include "lightsim/prism/montecarlo.h"
#include "lightsim/prism/programming.h"
#include "lightsim/prism/relock.h"
#include "lightsim/prism/timing.h"

namespace lightsim::ops {

// The request of prism_cost and prism_timeline.
struct AcceleratorRequest {
  static constexpr std::string_view kind = "prism_request";
  std::string accelerator{};
  Time drift_duration = Time::si(10.0);
  static void describe(config::Schema<AcceleratorRequest>& s) {
    s.help("Request of prism cost and prism timeline: one accelerator.");
    s.field("accelerator", &AcceleratorRequest::accelerator,
            "accelerator name (configs/accelerators/) or YAML file")
        .required();
    // At least one drift trace interval (prism::DriftOptions::trace_interval, 10 ms).
    s.field("drift_duration", &AcceleratorRequest::drift_duration,
            "simulated drift time that sets the relock rate (throughput net of relocks)")
        .range("10 ms", "1e6 s");
  }
};

// The request of prism_montecarlo (prism/montecarlo.h).
struct MonteCarloRequest {
  static constexpr std::string_view kind = "prism_montecarlo_request";
  std::string accelerator{};
  std::int64_t dim = 64, rows = 1024, top_k = 32, trials = 24, queries = 8;
  std::vector<std::int64_t> bits{4, 5, 6, 7, 8};
  std::vector<double> weight_noise{0.0, 0.02, 0.05};
  static void describe(config::Schema<MonteCarloRequest>& s) {
    using R = MonteCarloRequest;
    s.help(
        "Request of prism montecarlo: the abstract Monte-Carlo (unit-Gaussian signatures, "
        "Recall@k against weight bits and weight-space noise) beside the physical model.");
    s.field("accelerator", &R::accelerator,
            "accelerator name (configs/accelerators/) or YAML file; re-gridded to dim channels")
        .required();
    s.field("dim", &R::dim, "signature dimension d").range(std::int64_t{1}, std::int64_t{4096});
    s.field("rows", &R::rows, "signatures N").range(std::int64_t{1}, std::int64_t{1} << 20);
    s.field("top_k", &R::top_k, "k of Recall@k (<= rows)")
        .range(std::int64_t{1}, std::int64_t{1} << 20);
    s.field("trials", &R::trials, "bank states per point (signatures and weight noise)")
        .range(std::int64_t{2}, std::int64_t{1} << 16);
    s.field("queries", &R::queries, "queries per trial")
        .range(std::int64_t{1}, std::int64_t{1} << 16);
    s.field("bits", &R::bits, "weight bits of the points").min_items(1);
    s.field("weight_noise", &R::weight_noise,
            "weight-space noise sigma of the points, fraction of full scale")
        .min_items(1);
    s.rule([](const R& v) -> std::optional<std::string> {
      if (v.top_k > v.rows) return fmt::format("top_k ({}) exceeds rows ({})", v.top_k, v.rows);
      for (std::int64_t b : v.bits)
        if (b < 2 || b > 24) return fmt::format("bits: {} is outside [2, 24]", b);
      for (double w : v.weight_noise)
        if (!(w >= 0 && w <= 10)) return fmt::format("weight_noise: {} is outside [0, 10]", w);
      return std::nullopt;
    });
  }
};

namespace {

// The relock downtime over a drift run of `duration` (prism::simulate_drift at the cost
// model's on-chip heat; relock.h), applied to `qps`.
prism::RelockThroughput relocks(const prism::AcceleratorSpec& a, Time duration, double heat,
                                double qps, std::uint64_t seed) {
  prism::DriftOptions d;
  d.duration = duration;
  d.heat = Power::si(heat);
  d.seed = seed;
  const prism::DriftRun run = prism::simulate_drift(a.device, a.thermal, a.calibration, d);
  return prism::relock_throughput(run, a.calibration, d.duration.si(), qps);
}

void print_relocks(const prism::RelockThroughput& r, const char* what, std::ostream& out) {
  if (!r.available) {
    fmt::print(out, "  {:<28} n/a: the drift run stopped ({})\n", "net of relocks", r.reason);
    return;
  }
  fmt::print(out,
             "  {:<28} {:>10.4g} /s {} ({} relock(s) in {:.3g} s of drift: {:.3g} per s x "
             "{:.3g} us ({:.3g} iterations x {}) = {:.3g}% busy)\n",
             "net of relocks", r.qps_net, what, r.relocks, r.duration, r.relock_rate,
             r.lock_time * 1e6, r.iterations, "iteration_time", r.busy_fraction * 100);
}

std::string deviation(double ours, double seed) {
  return fmt::format("{:+.0f}%", 100.0 * (ours - seed) / seed);
}

void print_cost(const std::string& name, const prism::AcceleratorSpec& a,
                const prism::CostReport& r, const prism::PrismSeedReference& seed,
                const prism::RelockThroughput& relock, const prism::LockPower& lock,
                std::ostream& out) {
  const prism::Timeline& t = r.timeline;
  fmt::print(out, "Prism accelerator {}: {}\n", name, a.description);
  fmt::print(out,
             "  d = {} channels, {} physical rows x {} chip(s), {} logical rows, {} pass(es), "
             "{} bank(s) ({})\n",
             a.device.grid.channels, prism::physical_rows(a), a.interposer.chips,
             prism::scored_rows(a), t.passes, r.banks, prism::to_string(a.programming.banks));
  if (!r.feasibility.feasible) {
    fmt::print(out,
               "  device NOT feasible (figures below are still computed from its parameters):\n");
    for (const std::string& s : r.feasibility.reasons()) fmt::print(out, "    - {}\n", s);
  }
  fmt::print(out, "\nEnergy per query                 ours        | seed\n");
  for (const prism::CostItem& c : r.energy)
    fmt::print(out, "  {:<28} {:>10.2f} pJ\n", c.name, c.value * 1e12);
  fmt::print(out, "  {:<28} {:>10.2f} pJ | {:.0f} pJ ({})\n", "dynamic", r.dynamic_energy * 1e12,
             seed.dynamic_energy.si() * 1e12,
             deviation(r.dynamic_energy, seed.dynamic_energy.si()));
  fmt::print(out, "  {:<28} {:>10.2f} pJ   (static shares at {:.3g} queries/s over {} bank(s))\n",
             "total", r.total_energy * 1e12, r.system_qps, r.banks);
  if (r.tuner.heater)
    fmt::print(out,
               "  heaters idle at weight {:+.3g}: {:.4g} mW per ring, lock range [{:.4g}, {:.4g}] "
               "pm{}\n",
               r.tuner.bias_weight, r.tuner.power * 1e3, r.tuner.lock.lo * 1e12,
               r.tuner.lock.hi * 1e12,
               r.tuner.covers ? "" : "\n    NOT covered: " + r.tuner.reason);
  if (r.tec_included) {
    const double seed_style = r.dynamic_energy + r.tec_over_latency;
    fmt::print(out, "  {:<28} {:>10.2f} pJ | {:.0f} pJ ({})\n", "dynamic + TEC x latency",
               seed_style * 1e12, seed.energy_with_tec.si() * 1e12,
               deviation(seed_style, seed.energy_with_tec.si()));
  } else {
    fmt::print(out,
               "  {:<28} {:>10} | {:.0f} pJ (not comparable: the TEC is infeasible, so it is "
               "left out of every figure; see Static power)\n",
               "dynamic + TEC x latency", "n/a", seed.energy_with_tec.si() * 1e12);
  }
  fmt::print(out, "\nLatency and rate\n");
  std::string seed_lat = "n/a (seed states 1 and 8 passes)";
  if (t.passes == 1)
    seed_lat = fmt::format("{:.0f} ns ({})", seed.latency.si() * 1e9,
                           deviation(t.latency, seed.latency.si()));
  else if (t.passes == seed.multiplexed_passes)
    seed_lat = fmt::format("{:.0f} ns ({})", seed.multiplexed_latency.si() * 1e9,
                           deviation(t.latency, seed.multiplexed_latency.si()));
  fmt::print(out, "  {:<28} {:>10.2f} ns | {}\n", "latency per query", t.latency * 1e9, seed_lat);
  fmt::print(out, "  {:<28} {:>10.2f} ns   ({})\n", "interval (back-to-back)", t.interval * 1e9,
             a.electronics.pipelined ? "pipelined" : "not pipelined");
  fmt::print(out, "  {:<28} {:>10.3g} /s per bank, {:.3g} /s in all\n", "queries per second", t.qps,
             r.system_qps);
  print_relocks(relock, "in all", out);
  if (t.chips > 1)
    fmt::print(out, "  {:<28} {:>10.2f} dB over {} hop(s) (laser scaled to make it up)\n",
               "interposer fan-out loss", t.fanout_loss_db, t.hops);
  fmt::print(out, "\nStatic power\n");
  for (const prism::CostItem& c : r.static_power)
    fmt::print(out, "  {:<28} {:>10.4g} W\n", c.name, c.value);
  if (!r.tec_included)
    fmt::print(out, "  {:<28} {:>10} ({}); left out of the totals\n", "tec", "infeasible",
               r.thermal.reason);
  fmt::print(out, "  {:<28} {:>10.4g} W | TEC {:.3g} W{}\n", "total", r.static_power_total,
             seed.tec_power.si(), r.tec_included ? "" : " (ours without the TEC)");
  // The bias lock's relocks (lock_power.h): static like the rest, but not in the cost model's
  // total, which the decode model and the seed comparison read.
  if (lock.search.feasible)
    fmt::print(out,
               "  {:<28} {:>10.4g} W   ({} halvings x {:.3g} pJ per lock, {:.3g} relocks/s per "
               "ring, {:.4g} rings); total with the lock {:.4g} W\n",
               "bias lock (relocks)", lock.power, lock.search.halvings,
               a.calibration.iteration_energy.si() * 1e12, lock.relock_rate, lock.rings,
               r.static_power_total + lock.power);
  else
    fmt::print(out, "  {:<28} {:>10} ({})\n", "bias lock (relocks)", "infeasible",
               lock.search.reason);
  fmt::print(out, "  laser wall power while on    {:>10.4g} W\n", r.laser_wall_power);
  if (r.thermal.feasible)
    fmt::print(
        out,
        "  on-chip dissipation at full rate {:.4g} W -> chip {:.2f} C, TEC {:.4g} W, +-{:.3g} K\n",
        r.dissipated_power, r.thermal.chip, r.thermal.tec_power, r.thermal.stability);
  else
    fmt::print(out,
               "  on-chip dissipation at full rate {:.4g} W: the TEC cannot hold the chip at its "
               "{:.2f} C setpoint (why: tec, above)\n",
               r.dissipated_power, r.thermal.chip);
  fmt::print(out, "\nArea\n");
  for (const prism::CostItem& c : r.area)
    fmt::print(out, "  {:<28} {:>10.3f} mm^2\n", c.name, c.value * 1e6);
  fmt::print(out, "  {:<28} {:>10.3f} mm^2\n", "total", r.area_total * 1e6);
  const prism::DieReport die = prism::die_report(a, r.area_total);
  fmt::print(out,
             "  {:<28} {:>10.3f} mm^2 per chip (reticle limit {:.0f} mm^2): {}; yield {:.1f}% "
             "Poisson, {:.1f}% negative binomial (D0 {:.3g} /cm^2, alpha {:.3g})\n",
             "die", die.die_area * 1e6, die.reticle_limit * 1e6, die.fits ? "fits" : "NOT feasible",
             100 * die.yield_poisson, 100 * die.yield_negative_binomial, a.area.defect_density,
             a.area.defect_clustering);
  if (!die.fits) fmt::print(out, "    - {}\n", die.reason);
  const auto other = a.programming.banks == prism::BankSharing::per_kv_head
                         ? prism::BankSharing::time_shared
                         : prism::BankSharing::per_kv_head;
  const prism::ProgrammingCost mine = prism::programming_cost(a);
  const prism::ProgrammingCost alt = prism::programming_cost(a, other);
  fmt::print(out, "\nGQA bank mapping ({} KV heads; switch energy {:.3g} fJ, seed {:.3g} fJ)\n",
             a.programming.kv_heads, mine.switch_energy * 1e15, seed.switch_energy.si() * 1e15);
  fmt::print(out, "  {:<14} programming {:>10.3f} pJ/query, {} bank load(s) in the latency\n",
             prism::to_string(a.programming.banks), mine.energy_per_query() * 1e12,
             mine.loads_per_query);
  fmt::print(out, "  {:<14} programming {:>10.3f} pJ/query, {} bank load(s) in the latency\n",
             prism::to_string(other), alt.energy_per_query() * 1e12, alt.loads_per_query);
  fmt::print(out, "\nSee docs/prism.md for why each figure differs from the seed's.\n");
}

void print_timeline(const std::string& name, const prism::Timeline& t,
                    const prism::RelockThroughput& relock, std::ostream& out) {
  fmt::print(out, "Controller timeline of one query on {} ({} pass(es), {} chip(s))\n", name,
             t.passes, t.chips);
  fmt::print(out, "  {:<14} {:>4} {:>10} {:>10}\n", "state", "pass", "start ns", "length ns");
  for (const prism::Phase& p : t.phases)
    fmt::print(out, "  {:<14} {:>4} {:>10.3f} {:>10.3f}\n", prism::to_string(p.state), p.pass,
               p.start * 1e9, p.duration * 1e9);
  fmt::print(out, "  latency {:.3f} ns (sum of the states), interval {:.3f} ns, {:.4g} queries/s\n",
             t.latency * 1e9, t.interval * 1e9, t.qps);
  print_relocks(relock, "per bank", out);
}

struct CostResult {
  std::string name{};
  prism::AcceleratorSpec accelerator{};
  prism::CostReport report{};
  prism::PrismSeedReference seed{};
  prism::RelockThroughput relock{};
  prism::LockPower lock{};
};

CostResult evaluate_cost(const AcceleratorRequest& q, Env& env) {
  CostResult r{.name = q.accelerator,
               .accelerator = prism::load_accelerator(q.accelerator, env.load)};
  // The seed's figures are another file: --set is the accelerator's, not theirs.
  config::LoadOptions plain;
  plain.config_roots = env.load.config_roots;
  r.seed = config::load_spec<prism::PrismSeedReference>(
      config::find_named("prism_seed", "references", plain, "reference"), plain);
  env.inputs_read();
  r.report = prism::cost(r.accelerator);
  r.relock = relocks(r.accelerator, q.drift_duration, r.report.dissipated_power,
                     r.report.system_qps, env.ctx.seed());
  r.lock = prism::lock_power(r.accelerator, r.report);
  return r;
}

Json cost_json(const CostResult& r) {
  Json j = prism::to_json(r.report);
  j["accelerator"] = r.name;
  j["relocks"] = prism::to_json(r.relock);
  j["lock"] = prism::to_json(r.lock);
  j["die"] = prism::to_json(prism::die_report(r.accelerator, r.report.area_total));
  j["seed"] = {{"source", r.seed.source},
               {"dynamic_energy_j", r.seed.dynamic_energy.si()},
               {"energy_with_tec_j", r.seed.energy_with_tec.si()},
               {"latency_s", r.seed.latency.si()},
               {"multiplexed_latency_s", r.seed.multiplexed_latency.si()},
               {"multiplexed_passes", r.seed.multiplexed_passes}};
  return j;
}

struct TimelineResult {
  std::string name{};
  prism::Timeline timeline{};
  prism::RelockThroughput relock{};
};

TimelineResult evaluate_timeline(const AcceleratorRequest& q, Env& env) {
  const prism::AcceleratorSpec a = prism::load_accelerator(q.accelerator, env.load);
  env.inputs_read();
  TimelineResult r{.name = q.accelerator, .timeline = prism::timeline(a)};
  r.relock =
      relocks(a, q.drift_duration, prism::cost(a).dissipated_power, r.timeline.qps, env.ctx.seed());
  return r;
}

Json timeline_json(const TimelineResult& r) {
  Json j = prism::to_json(r.timeline);
  j["relocks"] = prism::to_json(r.relock);
  return j;
}

struct MonteCarloResult {
  std::string name{};
  prism::MonteCarloOptions options{};
  std::vector<prism::MonteCarloPoint> points{};
  photonics::FeasibilityReport feasibility{};  // of the device re-gridded to dim channels
};

MonteCarloResult evaluate_montecarlo(const MonteCarloRequest& q, Env& env) {
  const prism::AcceleratorSpec a = prism::load_accelerator(q.accelerator, env.load);
  env.inputs_read();
  MonteCarloResult r{.name = q.accelerator};
  prism::MonteCarloOptions& o = r.options;
  o.dim = static_cast<int>(q.dim);
  o.rows = static_cast<int>(q.rows);
  o.top_k = static_cast<int>(q.top_k);
  o.trials = static_cast<int>(q.trials);
  o.queries = static_cast<int>(q.queries);
  o.bits.assign(q.bits.begin(), q.bits.end());
  o.weight_noise = q.weight_noise;
  o.seed = env.ctx.seed();
  r.points = prism::abstract_montecarlo(a, o);
  r.feasibility =
      photonics::check_feasibility(prism::at_dim(a, o.dim).device, a.calibration.heater_bias);
  return r;
}

Json montecarlo_json(const MonteCarloResult& r) {
  auto est = [](const prism::RecallEstimate& e) {
    return Json{{"mean", e.mean}, {"ci95", e.ci95}};
  };
  Json points = Json::array();
  for (const prism::MonteCarloPoint& p : r.points)
    points.push_back({{"bits", p.bits},
                      {"weight_noise", p.weight_noise},
                      {"abstract", est(p.abstract)},
                      {"model", est(p.model)},
                      {"impaired", est(p.impaired)}});
  const prism::MonteCarloOptions& o = r.options;
  return {{"accelerator", r.name}, {"dim", o.dim},
          {"rows", o.rows},        {"top_k", o.top_k},
          {"trials", o.trials},    {"queries", o.queries},
          {"points", points},      {"feasibility", photonics::to_json(r.feasibility)}};
}

void print_montecarlo(const MonteCarloResult& r, std::ostream& out) {
  const prism::MonteCarloOptions& o = r.options;
  fmt::print(out,
             "Abstract Prism Monte-Carlo on {}: unit-Gaussian signatures, d = {}, N = {}, "
             "Recall@{}, {} trials x {} queries (mean +- 95% CI)\n",
             r.name, o.dim, o.rows, o.top_k, o.trials, o.queries);
  fmt::print(out,
             "  abstract = Qb(s / max|s|) + sigma z; model = the bank with the weight noise only "
             "(balanced encoding); impaired = the accelerator's impairments + the weight noise\n");
  fmt::print(out, "  {:>4} {:>6}  {:>17}  {:>17}  {:>17}\n", "bits", "sigma", "abstract", "model",
             "impaired");
  auto cell = [](const prism::RecallEstimate& e) {
    return fmt::format("{:.4f} +- {:.4f}", e.mean, e.ci95);
  };
  for (const prism::MonteCarloPoint& p : r.points)
    fmt::print(out, "  {:>4} {:>6.3f}  {:>17}  {:>17}  {:>17}\n", p.bits, p.weight_noise,
               cell(p.abstract), cell(p.model), cell(p.impaired));
  if (!r.feasibility.feasible) {
    fmt::print(out, "  the device at d = {} channels is NOT feasible (so `impaired` is low):\n",
               o.dim);
    for (const std::string& s : r.feasibility.reasons()) fmt::print(out, "    - {}\n", s);
  }
}

}  // namespace

void register_prism_ops(Registry& registry) {
  add<MonteCarloRequest, MonteCarloResult>(
      registry, {.info = {.name = "prism_montecarlo",
                          .command = {"prism", "montecarlo"},
                          .help = "Abstract Monte-Carlo (Recall@k vs weight bits and weight "
                                  "noise) beside the physical model",
                          .positional = {"accelerator"}},
                 .evaluate = evaluate_montecarlo,
                 .to_json = montecarlo_json,
                 .print = print_montecarlo});
  add<AcceleratorRequest, CostResult>(
      registry, {.info = {.name = "prism_cost",
                          .command = {"prism", "cost"},
                          .help = "Energy per query by component, static power, latency and area "
                                  "(JSON: cost table)",
                          .positional = {"accelerator"}},
                 .evaluate = evaluate_cost,
                 .to_json = cost_json,
                 .print = [](const CostResult& r, std::ostream& out) {
                   print_cost(r.name, r.accelerator, r.report, r.seed, r.relock, r.lock, out);
                 }});
  add<AcceleratorRequest, TimelineResult>(
      registry, {.info = {.name = "prism_timeline",
                          .command = {"prism", "timeline"},
                          .help = "Per-state timeline of one query, latency, QPS",
                          .positional = {"accelerator"}},
                 .evaluate = evaluate_timeline,
                 .to_json = timeline_json,
                 .print = [](const TimelineResult& r, std::ostream& out) {
                   print_timeline(r.name, r.timeline, r.relock, out);
                 }});
}

}  // namespace lightsim::ops
