// The energy study's claims beside the seed's table and its TFLN vs SOI power (energy_run.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "energy_run.h"
#include "lightsim/studies/system.h"

namespace lightsim::studies::energy_detail {

using report::SeedValue;
using Seed = EnergySeedReference;

void add_power(EnergyRun& run) {
  const EnergyStudySpec& spec = run.spec;
  run.table("power", "TFLN vs SOI total system power (cost model)",
            {{"preset", ""},
             {"static_power", "W"},
             {"tec_power", "W"},
             {"dynamic_energy", "nJ"},
             {"system_queries_per_s", "1/s"},
             {"power_full_rate", "W"},
             {"power_at_query_rate", "W"},
             {"tec_holds", ""},
             {"tec_note", ""}});
  const double rate = spec.query_rate.si();
  double full[2] = {0, 0}, at_rate[2] = {0, 0}, fixed[2] = {0, 0};
  const std::string names[2] = {spec.tfln_preset, spec.soi_preset};
  const prism::CostReport costs[2] = {prism::cost(prism::load_accelerator(names[0], run.presets)),
                                      prism::cost(prism::load_accelerator(names[1], run.presets))};
  // An infeasible TEC's power is not a figure: then both sides go without their TEC.
  const TecComparison tec = tec_comparison(costs[0], names[0], costs[1], names[1]);
  for (int i = 0; i < 2; ++i) {
    const prism::CostReport& c = costs[i];
    const double tec_power = tec.with_tec ? c.tec_power : 0.0;
    full[i] = full_rate_power(c, tec.with_tec);
    fixed[i] = c.static_power_total - c.tec_power + tec_power;
    at_rate[i] = fixed[i] + c.dynamic_energy * rate;
    // tec_power is 0 when the cost model left an infeasible TEC out; tec_holds says which.
    run.add_row("power", {{"preset", names[i]},
                          {"static_power", fixed[i]},
                          {"tec_power", c.tec_power},
                          {"dynamic_energy", c.dynamic_energy * kNano},
                          {"system_queries_per_s", c.system_qps},
                          {"power_full_rate", full[i]},
                          {"power_at_query_rate", at_rate[i]},
                          {"tec_holds", c.tec_included},
                          {"tec_note", c.thermal.reason}});
  }
  run.claim("soi_power_ratio", full[1] / full[0]).explanation = fmt::format(
      "{}power at full rate (every per-query energy x the system query "
      "rate{}, the prism study's figure): {} {:.4g} W, {} {:.4g} W; at the "
      "stated {:.3g} queries/s (static + dynamic x rate): {:.4g} W vs "
      "{:.4g} W, ratio {:.3g}; the ratio rises as the rate falls, to the "
      "static-power ratio {:.3g} at zero rate (SOI's static power: its "
      "heaters{}); docs/studies.md \"energy\"",
      tec.note, tec.with_tec ? "" : ", TEC excluded", names[1], full[1], names[0], full[0], rate,
      at_rate[1], at_rate[0], at_rate[1] / at_rate[0], fixed[1] / fixed[0],
      tec.with_tec ? " and the TEC pumping their heat" : "");
}

void add_claims(EnergyRun& run, const Figures& f) {
  const EnergyStudySpec& spec = run.spec;
  const Seed& seed = run.seed;
  const std::int64_t c = seed.context;
  const bool listed =
      std::find(spec.contexts.begin(), spec.contexts.end(), c) != spec.contexts.end();
  const std::string gpu = spec.chart_gpu;
  const auto point = [&](const std::string& system, const std::string& g) -> const Point* {
    return listed ? find(f, c, system, g) : nullptr;
  };
  const auto ours = [&](const std::string& system, const std::string& g) -> std::optional<double> {
    const Point* p = point(system, g);
    if (p == nullptr) return std::nullopt;
    return p->energy * kNano;
  };
  const std::string absent = fmt::format("the run has no {}-token point (the seed's context)", c);
  const std::int64_t blocks = (c + spec.block_tokens - 1) / spec.block_tokens;
  const std::string at = fmt::format("{} tokens = {} blocks of {}", c, blocks, spec.block_tokens);

  std::string prism_why = absent;
  if (listed) {
    const PrismAtContext& p = f.prism.at(c);
    prism_why = p.reason;
    if (p.fits) {
      std::vector<prism::CostItem> items;
      for (const auto& item : p.cost.energy)
        if (item.name != "static_tuning" && item.name != "tec") items.push_back(item);
      std::sort(items.begin(), items.end(),
                [](const auto& a, const auto& b) { return a.value > b.value; });
      prism_why = fmt::format(
          "{} on '{}' ({} pass(es), {} chip(s)); largest dynamic components {} {:.4g} nJ, {} "
          "{:.4g} nJ; {}; with the static shares at full rate {:.4g} nJ",
          at, p.accelerator, p.cost.timeline.passes, p.cost.timeline.chips, items.at(0).name,
          items.at(0).value * kNano, items.at(1).name, items.at(1).value * kNano,
          p.cost.tec_included ? fmt::format("TEC {:.3g} W x latency {:.3g} ns", p.cost.tec_power,
                                            p.cost.timeline.latency * kNano)
                              : "TEC infeasible, left out (" + p.cost.thermal.reason + ")",
          p.cost.total_energy * kNano);
      // The seed's own 256-row bank, at the largest context it holds (the prism study's figure).
      for (auto it = f.prism.rbegin(); it != f.prism.rend(); ++it)
        if (it->second.fits && it->second.accelerator == spec.accelerators.front()) {
          prism_why += fmt::format(
              "; '{}' at {} tokens: dynamic {:.4g} nJ, with TEC {:.4g} nJ (docs/prism.md)",
              it->second.accelerator, it->first, it->second.cost.dynamic_energy * kNano,
              with_tec(it->second.cost) * kNano);
          break;
        }
    }
  }
  run.claim("photonic_dynamic", ours("prism_dynamic", "")).explanation = prism_why;
  run.claim("photonic_with_tec", ours("prism_with_tec", "")).explanation = prism_why;

  for (std::int64_t dims : {128, 32}) {
    const std::string system = fmt::format("gpu_scan_minmax_{}", dims);
    const Point* p = point(system, gpu);
    run.claim(fmt::format("gpu_scan_{}", dims), ours(system, gpu),
              fmt::format("the seed's 'full scan' read as a scan of block summaries (min and "
                          "max, {} dims, {} B each) from HBM",
                          dims, spec.bytes_per_element))
        .explanation = p == nullptr ? absent
                                    : fmt::format(
                                          "{}: {:.4g} B x the {} HBM read energy; the seed's "
                                          "own check is 1024 x 2 x {} x 2 B x 31 pJ/B",
                                          at, p->bytes, gpu, dims);
  }

  std::string faiss_why = absent;
  if (const auto it = f.faiss.find(c); listed && it != f.faiss.end()) {
    const kv::IvfPqTouch& t = it->second;
    faiss_why = fmt::format(
        "{}: {:.4g} B touched per query on the built index (nlist {}, nprobe {}, m {}, {} bits): "
        "codes of the probed lists {:.4g} B, coarse centroids {:.4g} B, PQ codebook {:.4g} B "
        "(read to build the distance tables; without it {:.3g} nJ) x the {} HBM read energy; "
        "the seed's '~' figure is judged within +-{:.0f}%",
        at, t.bytes(), t.nlist, t.nprobe, t.pq_m, t.pq_nbits, t.codes, t.centroids, t.codebook,
        (t.codes + t.centroids) * (*ours("faiss_ivfpq", gpu)) / t.bytes(), gpu,
        spec.approx_agreement * 100);
  }
  run.claim("faiss_ivfpq", ours("faiss_ivfpq", gpu)).explanation = faiss_why;

  run.claim("icms_lpddr5", ours("lpddr5_minmax_128", ""),
            "the summaries (min+max, 128 dims) read from LPDDR5")
      .explanation = fmt::format("{} x {:.3g} pJ/B ({}); the seed gives no derivation", at,
                                 spec.lpddr_energy_per_byte.si() * 1e12, spec.lpddr_source);

  // "~5 us order": judged as an order of magnitude (within order_decades either way).
  const Point* sp = point("gpu_scan_minmax_128", gpu);
  report::Claim& s =
      run.claim("gpu_scan_latency", sp ? std::optional<double>(sp->latency * kMicro) : std::nullopt,
                fmt::format("'order' read as within a factor sqrt(10); our kernel launch "
                            "floor of {:.3g} us (an assumption) dominates",
                            spec.launch_floor.si() * kMicro));
  s.explanation = absent;
  if (sp != nullptr)
    s.explanation = fmt::format(
        "{}: launch floor {:.3g} us + {:.4g} B / {} HBM bandwidth "
        "({:.3g} us); reading the whole 32 MB KV of SPEC 1.1 instead "
        "would take {:.3g} us",
        at, spec.launch_floor.si() * kMicro, sp->bytes, gpu,
        (sp->latency - spec.launch_floor.si()) * kMicro,
        static_cast<double>(c) * static_cast<double>(spec.workload.head_dim) *
            spec.bytes_per_element / (sp->bytes / (sp->latency - spec.launch_floor.si())) * kMicro);

  // Qualitative: the seed's table implies Prism uses less energy than every alternative.
  report::Claim& w = run.qualitative(
      "prism_lowest", "photonic retrieval uses less energy per query than every GPU alternative");
  if (listed && f.prism.at(c).fits) {
    std::string loser;
    const double pe = with_tec(f.prism.at(c).cost);
    for (const Point& p : f.points)
      if (p.context == c && p.system.rfind("prism", 0) != 0 && p.energy <= pe)
        loser += fmt::format("{}{} {} {:.4g} nJ", loser.empty() ? "" : ", ", p.system, p.gpu,
                             p.energy * kNano);
    w.verdict = loser.empty() ? report::Verdict::holds : report::Verdict::does_not_hold;
    w.explanation = fmt::format(
        "at {}: Prism {} {:.4g} nJ; {}", at,
        f.prism.at(c).cost.tec_included ? "with TEC" : "without its TEC (infeasible, left out)",
        pe * kNano,
        loser.empty() ? "every alternative uses more (table per_query)"
                      : "these use less or the same: " + loser);
  } else {
    w.explanation = listed ? f.prism.at(c).reason : absent;
  }
}

namespace {

// A seed energy in nJ judged within `tolerance` (relative) of the spec.
ClaimRule<EnergyStudySpec, Seed> energy_rule(std::string id, std::string text, Energy Seed::*field,
                                             double EnergyStudySpec::*tolerance) {
  return {.id = std::move(id),
          .unit = "nJ",
          .tolerance = tolerance,
          .text = [text = std::move(text)](const Seed&) { return text; },
          .seed = [field](const Seed& s) { return SeedValue::point((s.*field).si() * kNano); }};
}

}  // namespace

std::vector<ClaimRule<EnergyStudySpec, Seed>> claim_rules() {
  const auto exact = &EnergyStudySpec::agreement, approx = &EnergyStudySpec::approx_agreement;
  return {
      energy_rule("photonic_dynamic", "photonic, dynamic energy per query", &Seed::photonic_dynamic,
                  exact),
      energy_rule("photonic_with_tec", "photonic, with TEC", &Seed::photonic_with_tec, exact),
      energy_rule("gpu_scan_128", "GPU full scan, 128-dim", &Seed::gpu_scan_128, exact),
      energy_rule("gpu_scan_32", "GPU full scan, 32-dim", &Seed::gpu_scan_32, exact),
      energy_rule("faiss_ivfpq", "GPU ANN (FAISS IVF-PQ), about", &Seed::faiss_ivfpq, approx),
      energy_rule("icms_lpddr5", "NVIDIA ICMS (LPDDR5 bandwidth estimate), about",
                  &Seed::icms_lpddr5, approx),
      {.id = "gpu_scan_latency",
       .unit = "us",
       .comparison = Comparison::same_order,
       .tolerance = &EnergyStudySpec::order_decades,
       .text = [](const Seed&) { return "full scan latency on H100, order of"; },
       .seed = [](const Seed& s) { return SeedValue::point(s.gpu_scan_latency.si() * kMicro); }},
      {.id = "soi_power_ratio",
       .unit = "x",
       .tolerance = exact,
       .text = [](const Seed&) { return "total system power of TFLN is lower than SOI's by"; },
       .seed = [](const Seed& s) { return SeedValue::point(s.soi_power_ratio); }}};
}

}  // namespace lightsim::studies::energy_detail
