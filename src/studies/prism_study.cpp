// Study `prism`: the accelerator's cost model and controller timeline for each preset
// (prism::cost, prism::timeline), the seed's figures (configs/references/prism_seed.yaml)
// beside ours, and TFLN against SOI like for like (docs/studies.md, "prism"; the model:
// docs/prism.md).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "lightsim/prism/cost.h"
#include "lightsim/prism/programming.h"
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

constexpr double kPico = 1e12, kNano = 1e9;

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

void judge(report::Claim& c, double seed, double band, const std::string& why) {
  const double ours = *c.ours;
  if (std::abs(ours - seed) <= band * std::abs(seed)) {
    c.verdict = report::Verdict::holds;
    c.explanation = why;
    return;
  }
  c.verdict = report::Verdict::does_not_hold;
  c.explanation = fmt::format("ours is {:.3g}x the seed's figure: {}", ours / seed, why);
}

void add_claims(report::StudyResult& r, const std::vector<Costed>& all, const PrismStudySpec& spec,
                const prism::PrismSeedReference& seed) {
  const auto find = [&](const std::string& name) -> const Costed* {
    for (const auto& c : all)
      if (c.name == name) return &c;
    return nullptr;
  };
  const std::string doc = "docs/prism.md, \"Our figures beside the seed's\", explains it";
  if (const Costed* s = find(spec.seed_preset)) {
    const prism::CostReport& c = s->cost;
    report::Claim& e = r.add_claim("dynamic_energy", "dynamic energy per query", "pJ");
    e.seed_value = report::SeedValue::point(seed.dynamic_energy.si() * kPico);
    e.ours = c.dynamic_energy * kPico;
    judge(e, e.seed_value.lo, spec.agreement,
          fmt::format("largest components on {}: {}; {}", s->name, largest(c, true), doc));

    // A claim that needs the TEC's power, on a design whose TEC has no steady state.
    auto tec_not_a_figure = [&](report::Claim& claim) {
      claim.verdict = report::Verdict::not_comparable;
      claim.explanation = fmt::format(
          "{}'s TEC cannot hold its chip at {:.3g} W of on-chip dissipation at full rate ({}), "
          "so its power is not a figure",
          s->name, c.dissipated_power, c.thermal.reason);
    };
    report::Claim& t = r.add_claim("energy_with_tec", "energy per query with the TEC", "pJ");
    t.seed_value = report::SeedValue::point(seed.energy_with_tec.si() * kPico);
    if (c.tec_included) {
      t.ours = (c.dynamic_energy + c.tec_over_latency) * kPico;
      judge(t, t.seed_value.lo, spec.agreement,
            fmt::format("the seed's convention, dynamic + TEC power x one query's latency: TEC "
                        "{:.3g} W x {:.3g} ns; with static shares at full rate ({:.3g} "
                        "queries/s) the total is {:.4g} pJ; {}",
                        c.tec_power, c.timeline.latency * kNano, c.system_qps,
                        c.total_energy * kPico, doc));
    } else {
      tec_not_a_figure(t);
    }

    report::Claim& l = r.add_claim("latency", "latency per query (one pass)", "ns");
    l.seed_value = report::SeedValue::point(seed.latency.si() * kNano);
    l.ours = c.timeline.latency * kNano;
    judge(l, l.seed_value.lo, spec.agreement,
          fmt::format("sum of the controller states on {}: integrate {:.3g} ns, ADC {:.3g} ns, "
                      "top-k {:.3g} ns, DAC setup {:.3g} ns, optics {:.3g} ns; {}",
                      s->name, c.timeline.integrate * kNano, c.timeline.adc_conv * kNano,
                      c.timeline.topk * kNano, c.timeline.dac_setup * kNano,
                      c.timeline.optical_prop * kNano, doc));

    report::Claim& w = r.add_claim("switch_energy", "energy per ring (weight) switch", "fJ");
    w.seed_value = report::SeedValue::point(seed.switch_energy.si() * 1e15);
    const prism::ProgrammingCost p = prism::programming_cost(s->spec);
    w.ours = p.switch_energy * 1e15;
    judge(w, w.seed_value.lo, spec.agreement,
          fmt::format("weight-DAC conversion {:.3g} fJ + driver charge (2/3) C V^2 {:.3g} fJ; {}",
                      p.dac_energy * 1e15, p.drive_energy * 1e15, doc));

    report::Claim& tec = r.add_claim("tec_power", "TEC power", "W");
    tec.seed_value = report::SeedValue::point(seed.tec_power.si());
    if (c.tec_included) {
      tec.ours = c.tec_power;
      judge(tec, tec.seed_value.lo, spec.agreement,
            fmt::format("steady state for {:.3g} W dissipated on chip at full rate",
                        c.dissipated_power));
    } else {
      tec_not_a_figure(tec);
    }
  }
  const Costed* multiplexed = nullptr;
  for (const auto& c : all)
    if (c.cost.timeline.passes == seed.multiplexed_passes) multiplexed = &c;
  report::Claim& m = r.add_claim(
      "multiplexed_latency",
      fmt::format("latency with {} passes of time multiplexing", seed.multiplexed_passes), "ns");
  m.seed_value = report::SeedValue::point(seed.multiplexed_latency.si() * kNano);
  if (multiplexed == nullptr) {
    m.explanation = "no preset of this run has that many passes (the `scaled` preset has)";
  } else {
    const prism::Timeline& t = multiplexed->cost.timeline;
    m.ours = t.latency * kNano;
    judge(m, m.seed_value.lo, spec.agreement,
          fmt::format("{}: each pass reloads the bank ({:.3g} ns) and repeats integrate / ADC / "
                      "top-k, then the {} sorted lists merge ({:.3g} ns); {}",
                      multiplexed->name, t.weight_load * kNano, t.passes, t.merge * kNano, doc));
  }
  const Costed* tfln = find(spec.seed_preset);
  const Costed* soi = spec.soi_preset.empty() ? nullptr : find(spec.soi_preset);
  if (tfln != nullptr && soi != nullptr) {
    report::Claim& x =
        r.add_claim("soi_power_ratio", "total system power of TFLN is 2400x lower than SOI", "");
    x.seed_value = report::SeedValue::point(seed.soi_power_ratio);
    const TecComparison tec = tec_comparison(tfln->cost, tfln->name, soi->cost, soi->name);
    const double p_soi = full_rate_power(soi->cost, tec.with_tec);
    const double p_tfln = full_rate_power(tfln->cost, tec.with_tec);
    x.ours = p_soi / p_tfln;
    judge(x, x.seed_value.lo, spec.agreement,
          fmt::format("{}power at full rate (every per-query energy x system rate{}): {} {:.4g} W "
                      "(static {:.4g} W), {} {:.4g} W (static {:.4g} W); {}",
                      tec.note, tec.with_tec ? "" : ", TEC excluded", soi->name, p_soi,
                      soi->cost.static_power_total - (tec.with_tec ? 0.0 : soi->cost.tec_power),
                      tfln->name, p_tfln,
                      tfln->cost.static_power_total - (tec.with_tec ? 0.0 : tfln->cost.tec_power),
                      doc));
  }
}

void add_tables(report::StudyResult& r, const std::vector<Costed>& all) {
  Table sum({{"preset", ""},
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
  Table energy(
      {{"preset", ""}, {"component", ""}, {"energy", "pJ"}, {"share", ""}, {"provenance", ""}});
  Table timeline({{"preset", ""},
                  {"state", ""},
                  {"pass", ""},
                  {"start", "ns"},
                  {"end", "ns"},
                  {"duration", "ns"}});
  for (const auto& c : all) {
    const prism::CostReport& k = c.cost;
    sum.add_row({c.name, std::int64_t{k.timeline.passes}, std::int64_t{k.timeline.chips},
                 std::int64_t{k.banks}, k.timeline.latency * kNano, k.timeline.interval * kNano,
                 k.timeline.qps, k.system_qps, k.dynamic_energy * kPico, k.total_energy * kPico,
                 k.static_power_total, k.tec_power, k.tec_included, k.area_total * 1e6,
                 k.feasibility.feasible && k.thermal.feasible});
    for (const auto& e : k.energy)
      energy.add_row({c.name, e.name, e.value * kPico, e.value / k.total_energy, e.provenance});
    for (const auto& p : k.timeline.phases)
      timeline.add_row({c.name, prism::to_string(p.state), std::int64_t{p.pass}, p.start * kNano,
                        (p.start + p.duration) * kNano, p.duration * kNano});
  }
  r.tables.push_back({"summary", "Cost and timing per preset", std::move(sum)});
  r.tables.push_back({"energy", "Energy per query by component", std::move(energy)});
  r.tables.push_back({"timeline", "Controller timeline of one query", std::move(timeline)});
}

void add_charts(report::StudyResult& r) {
  r.add_chart(
      "Energy per query by component (static tuning and TEC shared over the full query "
      "rate)",
      "energy", Json::parse(R"json({
    "mark": "bar",
    "encoding": {
      "x": {"field": "preset", "type": "nominal"},
      "y": {"field": "share", "type": "quantitative", "stack": "normalize",
            "title": "share of the energy per query"},
      "color": {"field": "component", "type": "nominal"},
      "tooltip": [{"field": "preset"}, {"field": "component"},
                  {"field": "energy", "format": ".4g", "title": "pJ"}]
    }
  })json"));
  r.add_chart("Prism controller timeline of one query (Gantt)", "timeline", Json::parse(R"json({
    "mark": "bar",
    "encoding": {
      "x": {"field": "start", "type": "quantitative", "title": "time (ns)"},
      "x2": {"field": "end"},
      "y": {"field": "state", "type": "nominal", "sort": null},
      "color": {"field": "state", "type": "nominal", "legend": null},
      "row": {"field": "preset", "type": "nominal"},
      "tooltip": [{"field": "state"}, {"field": "pass"}, {"field": "start", "format": ".3f"},
                  {"field": "duration", "format": ".3f"}]
    },
    "resolve": {"scale": {"x": "independent", "y": "independent"}}
  })json"));
}

}  // namespace

report::StudyResult run_prism_study(const StudyInput& in, Context& ctx) {
  const auto spec = config::read_spec<PrismStudySpec>(in.document, in.load);
  config::LoadOptions plain = in.load;  // --set applies to the study's config only
  plain.assignments.clear();
  std::filesystem::path reference;
  for (const auto& root : in.load.config_roots)
    if (const auto f = root / "references" / "prism_seed.yaml"; std::filesystem::exists(f)) {
      reference = f;
      break;
    }
  LIGHTSIM_CHECK_AS(ConfigError, !reference.empty(),
                    "{}: no references/prism_seed.yaml under the config roots",
                    in.config_file.string());
  const auto seed = config::load_spec<prism::PrismSeedReference>(reference, plain);
  report::StudyResult r;
  r.study = in.name;
  r.title = "Prism accelerator: energy, latency, area and timeline per preset";
  r.spec_section = "SPEC 1.2, 1.3, 1.7";
  r.seed = ctx.seed();
  r.config = config::to_yaml(in.document);

  std::vector<Costed> all;
  for (const std::string& name : spec.presets) {
    ctx.throw_if_cancelled(fmt::format("prism study (before preset '{}')", name));
    Costed c{name, prism::load_accelerator(name, plain), {}};
    c.cost = prism::cost(c.spec);
    all.push_back(std::move(c));
  }
  add_claims(r, all, spec, seed);
  add_tables(r, all);
  add_charts(r);
  return r;
}

}  // namespace lightsim::studies
