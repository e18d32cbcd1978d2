// The `balanced` study: balanced versus single-ended detection at equal optical power
// (compensation.h; SPEC 1.3).
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "lightsim/core/error.h"
#include "studies/compensation_common.h"

namespace lightsim::studies {

void BalancedStudySpec::describe(config::Schema<BalancedStudySpec>& s) {
  s.help("Balanced versus single-ended detection at equal optical power (SPEC 1.3).");
  s.field("description", &BalancedStudySpec::description, "what this configuration is");
  s.field("accelerator", &BalancedStudySpec::accelerator,
          "the Prism accelerator (`preset: NAME`); its detector mode is set by the study");
  s.field("workload", &BalancedStudySpec::workload, "synthetic KV cache (`preset: NAME`)");
  s.field("block_tokens", &BalancedStudySpec::block_tokens, "tokens per KV block")
      .range(1, 1 << 20);
  s.field("sink_tokens", &BalancedStudySpec::sink_tokens, "always-resident sink tokens")
      .range(0, 1 << 20);
  s.field("recent_tokens", &BalancedStudySpec::recent_tokens, "always-resident recent tokens")
      .range(0, 1 << 24);
  s.field("top_k", &BalancedStudySpec::top_k, "blocks selected per query (Recall@k)")
      .range(1, 1 << 20);
  s.field("power_scale", &BalancedStudySpec::power_scale,
          "laser power per line relative to the accelerator's, the same for both modes; the "
          "first entry is the operating point of the claim");
  s.rule([](const BalancedStudySpec& v) -> std::optional<std::string> {
    if (v.power_scale.empty()) return std::string("power_scale must list at least one value");
    for (double p : v.power_scale)
      if (!(p > 0 && p <= 1e3)) return fmt::format("power_scale: {} is outside (0, 1000]", p);
    return std::nullopt;
  });
}

report::StudyResult run_balanced_study(const StudyInput& in, Context& ctx) {
  const auto spec = config::read_spec<BalancedStudySpec>(in.document, in.load);
  const CompensationSeedReference seed = load_compensation_seed(in.load);
  const CompensationSetup setup(
      spec.workload, block_options(spec.block_tokens, spec.sink_tokens, spec.recent_tokens),
      spec.top_k, in.config_file, ctx);
  const kv::KvGeometry& g = setup.cache.geometry();
  const std::size_t k = setup.k;
  const std::size_t np = spec.power_scale.size(), heads = setup.heads();
  const photonics::DetectionMode modes[2] = {photonics::DetectionMode::balanced,
                                             photonics::DetectionMode::single_ended};
  std::vector<std::size_t> steps(g.steps);
  for (std::size_t i = 0; i < steps.size(); ++i) steps[i] = i;
  // [head][power][mode] = {recall_hw, recall_e2e, mass}
  std::vector<std::vector<std::array<double, 3>>> sums(heads,
                                                       std::vector<std::array<double, 3>>(np * 2));
  parallel_for(ctx, heads, [&](std::size_t h) {
    ctx.throw_if_cancelled("balanced study");
    const HeadSetup hs =
        head_setup(setup, h, steps, spec.accelerator.device.grid.channels, ctx.seed());
    for (std::size_t p = 0; p < np; ++p)
      for (std::size_t m = 0; m < 2; ++m) {
        prism::AcceleratorSpec a = selection_accelerator(spec.accelerator, k);
        a.device.detector.mode = modes[m];
        a.device.laser.power_per_line = a.device.laser.power_per_line * spec.power_scale[p];
        hs.truth.accumulate(a, hs.pca, hs.index, k, [&](const auto& hw, const auto& e2e) {
          auto& s = sums[h][p * 2 + m];
          s[0] += hw.recall;
          s[1] += e2e.recall;
          s[2] += e2e.mass_recall;
        });
      }
  });

  report::StudyResult r;
  r.study = "balanced";
  r.title = "Balanced versus single-ended detection at equal optical power";
  r.spec_section = "SPEC 1.3";
  r.seed = ctx.seed();
  r.config = config::to_yaml(in.document);
  const double n = static_cast<double>(heads * steps.size());
  Table& t = r.add_table("detection",
                         fmt::format("Recall@{} by detection mode and laser power per line", k),
                         {{"power_per_line_mw", "mW"},
                          {"mode", ""},
                          {"recall_hw", ""},
                          {"recall_e2e", ""},
                          {"mass_recall", ""}});
  std::vector<std::array<double, 3>> mean(np * 2, {0, 0, 0});
  for (std::size_t i = 0; i < np * 2; ++i) {
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t c = 0; c < 3; ++c) mean[i][c] += sums[h][i][c] / n;
    const double mw =
        spec.accelerator.device.laser.power_per_line.si() * spec.power_scale[i / 2] * 1e3;
    t.add_row({mw, std::string(i % 2 == 0 ? "balanced" : "single_ended"), mean[i][0], mean[i][1],
               mean[i][2]});
  }
  const double bal = mean[0][0], se = mean[1][0];
  const double gain = se > 0 ? (bal - se) / se : 0.0;
  report::Claim& c =
      r.add_claim("balanced_recall8_gain",
                  "balanced detection improves Recall@8 by 87% over single-ended detection", "");
  c.seed_value = report::SeedValue::point(seed.balanced_recall8_gain);
  c.ours = gain;
  c.verdict = std::abs(gain - seed.balanced_recall8_gain) <= 0.1 * seed.balanced_recall8_gain
                  ? report::Verdict::holds
                  : report::Verdict::does_not_hold;
  std::string sweep;
  for (std::size_t p = 0; p < np; ++p)
    sweep +=
        fmt::format("{}{:.3g} mW: {:.3f} vs {:.3f}", p ? "; " : "",
                    spec.accelerator.device.laser.power_per_line.si() * spec.power_scale[p] * 1e3,
                    mean[p * 2][0], mean[p * 2 + 1][0]);
  c.explanation = fmt::format(
      "Recall@{} against the exact projected top-{} (hardware-only truth): balanced {:.3f}, "
      "single-ended {:.3f} at the configured laser power ({:+.1f}%). Our single-ended "
      "detector keeps the signed weights (the controller subtracts the reference, score = "
      "sum x - 2 D.x; docs/photonics.md), so what it loses is the through-port light, a "
      "factor 2 on every noise term in score units, and half the ADC range (the drop current "
      "is one-signed and carries the common mode the balanced pair cancels). Where those "
      "limit the ranking the gain is large; where the static state (weight quantization, "
      "crosstalk) limits it, both modes converge. Balanced vs single-ended by laser power per "
      "line: {}. Recall is over {} decode steps x {} heads, so differences of a few hundredths "
      "are within the sampling noise.",
      k, k, bal, se, 100 * gain, sweep, steps.size(), heads);
  r.add_chart("Recall versus laser power per line", "detection",
              Json::parse(R"({"mark": {"type": "line", "point": true},
  "encoding": {"x": {"field": "power_per_line_mw", "type": "quantitative",
                     "scale": {"type": "log"}},
               "y": {"field": "recall_hw", "type": "quantitative", "title": "Recall@k"},
               "color": {"field": "mode", "type": "nominal"}}})"));
  return r;
}

}  // namespace lightsim::studies
