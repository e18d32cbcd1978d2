// Study `prism`: the accelerator's cost model and controller timeline for each preset
// (prism::cost, prism::timeline), the seed's figures (configs/references/prism_seed.yaml)
// beside ours, and TFLN against SOI like for like (docs/studies.md, "prism"; the model:
// docs/prism.md).
#include <algorithm>
#include <cmath>

#include "lightsim/prism/cost.h"
#include "lightsim/prism/programming.h"
#include "lightsim/studies/runner.h"
#include "lightsim/studies/system.h"

namespace lightsim::studies {

void PrismStudySpec::describe(config::Schema<PrismStudySpec>& s) {
  s.help(
      "Study `prism`: energy, latency, area and the controller timeline of accelerator presets, "
      "beside the seed's figures (docs/studies.md).");
  s.field("presets", &PrismStudySpec::presets,
          "accelerators (configs/accelerators/NAME.yaml or files) to cost")
      .min_items(1);
  s.field("seed_preset", &PrismStudySpec::seed_preset,
          "the accelerator whose single-pass figures are set beside the seed's");
  s.field("soi_preset", &PrismStudySpec::soi_preset,
          "the SOI (thermo-optic) accelerator compared with seed_preset like for like; empty = "
          "no comparison");
  s.field("agreement", &PrismStudySpec::agreement,
          "relative band around a seed figure within which ours counts as reproducing it")
      .range(0.0, 1.0);
}

double full_rate_power(const prism::CostReport& r, bool with_tec) {
  // tec_power is 0 when the cost model left an infeasible TEC out (prism/cost.h).
  return r.total_energy * r.system_qps - (with_tec ? 0.0 : r.tec_power);
}

TecComparison tec_comparison(const prism::CostReport& tfln, std::string_view tfln_name,
                             const prism::CostReport& soi, std::string_view soi_name) {
  TecComparison c;
  for (const auto& [r, name] : {std::pair{&tfln, tfln_name}, std::pair{&soi, soi_name}})
    if (!r->tec_included) {
      c.with_tec = false;
      c.note += fmt::format(
          "{}'s TEC cannot hold its chip at {:.3g} W of on-chip dissipation ({}), so its power "
          "is not a figure: the TECs are left out of both sides; ",
          name, r->dissipated_power, r->thermal.reason);
    }
  return c;
}

namespace {

constexpr double kPico = 1e12, kNano = 1e9, kFemto = 1e15;
using report::SeedValue;
using Seed = prism::PrismSeedReference;
using PrismRun = Run<PrismStudySpec, Seed>;

struct Costed {
  std::string name;
  prism::AcceleratorSpec spec;
  prism::CostReport cost;
};

// The two largest energy components as "name x pJ, name y pJ".
std::string largest(const prism::CostReport& r, bool dynamic_only) {
  std::vector<prism::CostItem> items;
  for (const auto& c : r.energy)
    if (!dynamic_only || (c.name != "static_tuning" && c.name != "tec")) items.push_back(c);
  std::sort(items.begin(), items.end(),
            [](const auto& a, const auto& b) { return a.value > b.value; });
  std::string out;
  for (std::size_t i = 0; i < std::min<std::size_t>(2, items.size()); ++i)
    out += fmt::format("{}{} {:.3g} pJ", i ? ", " : "", items[i].name, items[i].value * kPico);
  return out;
}

// The claim `id` judged with our figure; a claim that does not hold says by what factor.
void judged(PrismRun& run, std::string_view id, double ours, const std::string& why) {
  report::Claim& c = run.claim(id, ours);
  c.explanation =
      c.verdict == report::Verdict::holds
          ? why
          : fmt::format("ours is {:.3g}x the seed's figure: {}", ours / c.seed_value.lo, why);
}

void add_claims(PrismRun& run, const std::vector<Costed>& all) {
  const PrismStudySpec& spec = run.spec;
  const Seed& seed = run.seed;
  const auto find = [&](const std::string& name) -> const Costed* {
    for (const auto& c : all)
      if (c.name == name) return &c;
    return nullptr;
  };
  const std::string doc = "docs/prism.md, \"Our figures beside the seed's\", explains it";
  if (const Costed* s = find(spec.seed_preset)) {
    const prism::CostReport& c = s->cost;
    judged(run, "dynamic_energy", c.dynamic_energy * kPico,
           fmt::format("largest components on {}: {}; {}", s->name, largest(c, true), doc));

    // A claim that needs the TEC's power, on a design whose TEC has no steady state.
    const auto tec_not_a_figure = [&](std::string_view id) {
      run.claim(id, std::nullopt).explanation = fmt::format(
          "{}'s TEC cannot hold its chip at {:.3g} W of on-chip dissipation at full rate ({}), "
          "so its power is not a figure",
          s->name, c.dissipated_power, c.thermal.reason);
    };
    if (c.tec_included)
      judged(run, "energy_with_tec", (c.dynamic_energy + c.tec_over_latency) * kPico,
             fmt::format("the seed's convention, dynamic + TEC power x one query's latency: TEC "
                         "{:.3g} W x {:.3g} ns; with static shares at full rate ({:.3g} "
                         "queries/s) the total is {:.4g} pJ; {}",
                         c.tec_power, c.timeline.latency * kNano, c.system_qps,
                         c.total_energy * kPico, doc));
    else
      tec_not_a_figure("energy_with_tec");

    judged(run, "latency", c.timeline.latency * kNano,
           fmt::format("sum of the controller states on {}: integrate {:.3g} ns, ADC {:.3g} ns, "
                       "top-k {:.3g} ns, DAC setup {:.3g} ns, optics {:.3g} ns; {}",
                       s->name, c.timeline.integrate * kNano, c.timeline.adc_conv * kNano,
                       c.timeline.topk * kNano, c.timeline.dac_setup * kNano,
                       c.timeline.optical_prop * kNano, doc));

    const prism::ProgrammingCost p = prism::programming_cost(s->spec);
    judged(run, "switch_energy", p.switch_energy * kFemto,
           fmt::format("weight-DAC conversion {:.3g} fJ + driver charge (2/3) C V^2 {:.3g} fJ; {}",
                       p.dac_energy * kFemto, p.drive_energy * kFemto, doc));

    if (c.tec_included)
      judged(run, "tec_power", c.tec_power,
             fmt::format("steady state for {:.3g} W dissipated on chip at full rate",
                         c.dissipated_power));
    else
      tec_not_a_figure("tec_power");
  }
  const Costed* multiplexed = nullptr;
  for (const auto& c : all)
    if (c.cost.timeline.passes == seed.multiplexed_passes) multiplexed = &c;
  if (multiplexed == nullptr) {
    run.claim("multiplexed_latency", std::nullopt).explanation =
        "no preset of this run has that many passes (the `scaled` preset has)";
  } else {
    const prism::Timeline& t = multiplexed->cost.timeline;
    judged(run, "multiplexed_latency", t.latency * kNano,
           fmt::format("{}: each pass reloads the bank ({:.3g} ns) and repeats integrate / ADC / "
                       "top-k, then the {} sorted lists merge ({:.3g} ns); {}",
                       multiplexed->name, t.weight_load * kNano, t.passes, t.merge * kNano, doc));
  }
  const Costed* tfln = find(spec.seed_preset);
  const Costed* soi = spec.soi_preset.empty() ? nullptr : find(spec.soi_preset);
  if (tfln != nullptr && soi != nullptr) {
    const TecComparison tec = tec_comparison(tfln->cost, tfln->name, soi->cost, soi->name);
    const double p_soi = full_rate_power(soi->cost, tec.with_tec);
    const double p_tfln = full_rate_power(tfln->cost, tec.with_tec);
    judged(run, "soi_power_ratio", p_soi / p_tfln,
           fmt::format("{}power at full rate (every per-query energy x system rate{}): {} {:.4g} W "
                       "(static {:.4g} W), {} {:.4g} W (static {:.4g} W); {}",
                       tec.note, tec.with_tec ? "" : ", TEC excluded", soi->name, p_soi,
                       soi->cost.static_power_total - (tec.with_tec ? 0.0 : soi->cost.tec_power),
                       tfln->name, p_tfln,
                       tfln->cost.static_power_total - (tec.with_tec ? 0.0 : tfln->cost.tec_power),
                       doc));
  }
}

void add_tables(PrismRun& run, const std::vector<Costed>& all) {
  run.table("summary", "Cost and timing per preset",
            {{"preset", ""},
             {"passes", ""},
             {"chips", ""},
             {"banks", ""},
             {"latency", "ns"},
             {"interval", "ns"},
             {"queries_per_s_per_bank", "1/s"},
             {"system_queries_per_s", "1/s"},
             {"dynamic_energy", "pJ"},
             {"total_energy", "pJ"},
             {"static_power", "W"},
             {"tec_power", "W"},
             {"tec_included", ""},
             {"area", "mm^2"},
             {"feasible", ""}});
  run.table(
      "energy", "Energy per query by component",
      {{"preset", ""}, {"component", ""}, {"energy", "pJ"}, {"share", ""}, {"provenance", ""}});
  run.table("timeline", "Controller timeline of one query",
            {{"preset", ""},
             {"state", ""},
             {"pass", ""},
             {"start", "ns"},
             {"end", "ns"},
             {"duration", "ns"}});
  for (const auto& c : all) {
    const prism::CostReport& k = c.cost;
    run.add_row("summary", {{"preset", c.name},
                            {"passes", std::int64_t{k.timeline.passes}},
                            {"chips", std::int64_t{k.timeline.chips}},
                            {"banks", std::int64_t{k.banks}},
                            {"latency", k.timeline.latency * kNano},
                            {"interval", k.timeline.interval * kNano},
                            {"queries_per_s_per_bank", k.timeline.qps},
                            {"system_queries_per_s", k.system_qps},
                            {"dynamic_energy", k.dynamic_energy * kPico},
                            {"total_energy", k.total_energy * kPico},
                            {"static_power", k.static_power_total},
                            {"tec_power", k.tec_power},
                            {"tec_included", k.tec_included},
                            {"area", k.area_total * 1e6},
                            {"feasible", k.feasibility.feasible && k.thermal.feasible}});
    for (const auto& e : k.energy)
      run.add_row("energy", {{"preset", c.name},
                             {"component", e.name},
                             {"energy", e.value * kPico},
                             {"share", e.value / k.total_energy},
                             {"provenance", e.provenance}});
    for (const auto& p : k.timeline.phases)
      run.add_row("timeline", {{"preset", c.name},
                               {"state", std::string(prism::to_string(p.state))},
                               {"pass", std::int64_t{p.pass}},
                               {"start", p.start * kNano},
                               {"end", (p.start + p.duration) * kNano},
                               {"duration", p.duration * kNano}});
  }
}

void add_charts(PrismRun& run) {
  Chart energy{.title =
                   "Energy per query by component (static tuning and TEC shared over the "
                   "full query rate)",
               .table = "energy",
               .mark = Mark::bar};
  energy.x = Channel{.field = "preset", .type = "nominal"};
  energy.y = Channel{.field = "share",
                     .type = "quantitative",
                     .title = "share of the energy per query",
                     .stack = "normalize"};
  energy.color = Channel{.field = "component", .type = "nominal"};
  energy.tooltip = {tip("preset"), tip("component"), tip("energy", ".4g", "pJ")};
  run.chart(energy);

  Chart gantt{.title = "Prism controller timeline of one query (Gantt)",
              .table = "timeline",
              .mark = Mark::bar};
  gantt.x = Channel{.field = "start", .type = "quantitative", .title = "time (ns)"};
  gantt.x2 = Channel{.field = "end"};
  gantt.y = Channel{.field = "state", .type = "nominal", .unsorted = true};
  gantt.color = Channel{.field = "state", .type = "nominal", .no_legend = true};
  gantt.row = Channel{.field = "preset", .type = "nominal"};
  gantt.tooltip = {tip("state"), tip("pass"), tip("start", ".3f"), tip("duration", ".3f")};
  gantt.independent = {"x", "y"};
  run.chart(gantt);
}

void evaluate(PrismRun& run) {
  const std::vector<Costed> all = run.map(run.spec.presets, [&](const std::string& name) {
    Costed c{name, prism::load_accelerator(name, run.presets), {}};
    c.cost = prism::cost(c.spec);
    return c;
  });
  add_claims(run, all);
  add_tables(run, all);
  add_charts(run);
}

// A claim of the seed's figure `field` (in SI units) shown in the claim's unit (x `scale`).
template <class Q>
ClaimRule<PrismStudySpec, Seed> figure(std::string id, std::string text, std::string unit,
                                       Q Seed::*field, double scale) {
  return {
      .id = std::move(id),
      .unit = std::move(unit),
      .tolerance = &PrismStudySpec::agreement,
      .text = [text = std::move(text)](const Seed&) { return text; },
      .seed = [field, scale](const Seed& s) { return SeedValue::point((s.*field).si() * scale); }};
}

}  // namespace

void add_prism_study(Registry& registry) {
  add_study(
      registry,
      Definition<PrismStudySpec, Seed>{
          .name = "prism",
          .help = "Prism accelerator: energy, latency and area per preset beside the seed",
          .title = "Prism accelerator: energy, latency, area and timeline per preset",
          .spec_section = "SPEC 1.2, 1.3, 1.7",
          .reference = "references/prism_seed.yaml",
          .claims = {figure("dynamic_energy", "dynamic energy per query", "pJ",
                            &Seed::dynamic_energy, kPico),
                     figure("energy_with_tec", "energy per query with the TEC", "pJ",
                            &Seed::energy_with_tec, kPico),
                     figure("latency", "latency per query (one pass)", "ns", &Seed::latency, kNano),
                     figure("switch_energy", "energy per ring (weight) switch", "fJ",
                            &Seed::switch_energy, kFemto),
                     figure("tec_power", "TEC power", "W", &Seed::tec_power, 1.0),
                     {.id = "multiplexed_latency",
                      .unit = "ns",
                      .tolerance = &PrismStudySpec::agreement,
                      .text =
                          [](const Seed& s) {
                            return fmt::format("latency with {} passes of time multiplexing",
                                               s.multiplexed_passes);
                          },
                      .seed =
                          [](const Seed& s) {
                            return SeedValue::point(s.multiplexed_latency.si() * kNano);
                          }},
                     {.id = "soi_power_ratio",
                      .unit = "",
                      .tolerance = &PrismStudySpec::agreement,
                      .text =
                          [](const Seed& s) {
                            return fmt::format("total system power of TFLN is {:g}x lower than SOI",
                                               s.soi_power_ratio);
                          },
                      .seed = [](const Seed& s) { return SeedValue::point(s.soi_power_ratio); }}},
          .evaluate = evaluate});
}

}  // namespace lightsim::studies
