// Fabric specs, the CPO derivation and topology building (topology.h).
#include "lightsim/fabric/topology.h"

#include "lightsim/core/config_files.h"

#include "lightsim/fabric/collective.h"

#include <cmath>

namespace lightsim::fabric {

void CpoSpec::describe(config::Schema<CpoSpec>& s) {
  s.help(
      "Co-packaged optics link: per-GPU bandwidth = symbol rate x bits/symbol x coding "
      "efficiency x wavelengths/fiber x fibers/tile x tiles/GPU x direction share.");
  s.field("symbol_rate", &CpoSpec::symbol_rate, "SerDes lane symbol rate (baud)")
      .range("1 GHz", "500 GHz");
  s.field("modulation", &CpoSpec::modulation, "lane modulation").one_of({"nrz", "pam4", "pam8"});
  s.field("coding_efficiency", &CpoSpec::coding_efficiency,
          "payload / line rate after FEC and line coding")
      .range(0.1, 1.0);
  s.field("wavelengths_per_fiber", &CpoSpec::wavelengths_per_fiber, "WDM lanes per fiber")
      .range(1, 256);
  s.field("fibers_per_tile", &CpoSpec::fibers_per_tile, "fibers per CPO tile used by this tier")
      .range(1, 4096);
  s.field("tiles_per_gpu", &CpoSpec::tiles_per_gpu, "CPO tiles per GPU").range(1, 64);
  s.field("direction_share", &CpoSpec::direction_share,
          "share of a fiber's lanes carrying each direction (0.5: a bidirectional fiber)")
      .range(0.01, 1.0);
  s.field("reach", &CpoSpec::reach, "optical reach").positive();
  s.field("energy", &CpoSpec::energy, "link energy per bit, end to end").positive();
}

void TierSpec::describe(config::Schema<TierSpec>& s) {
  s.help("One network tier: GPUs packed into domains of domain_size joined at this tier.");
  s.field("name", &TierSpec::name, "tier name (e.g. nvlink, scale_out)").required();
  s.field("domain_size", &TierSpec::domain_size, "GPUs per domain of this tier").range(1, 1 << 24);
  s.field("bandwidth", &TierSpec::bandwidth, "per-GPU bandwidth per direction (or give cpo)")
      .positive();
  s.field("cpo", &TierSpec::cpo, "co-packaged optics the bandwidth is derived from");
  s.field("latency", &TierSpec::latency, "per-step latency: software, endpoints, links")
      .range("0 s", "1 ms");
  s.field("hop_latency", &TierSpec::hop_latency, "latency per switch traversal")
      .range("0 s", "100 us");
  s.field("switch_radix", &TierSpec::switch_radix, "ports per switch").range(2, 100000);
  s.field("oversubscription", &TierSpec::oversubscription,
          "downlink / uplink ratio; per-GPU bandwidth is divided by it")
      .range(1.0, 64.0);
  s.field("efficiency", &TierSpec::efficiency,
          "achieved fraction of line rate for ring and direct transfers")
      .range(0.01, 1.0);
  s.field("in_switch_reduction", &TierSpec::in_switch_reduction,
          "switches reduce and multicast (NVLS / SHARP)");
  s.field("in_switch_efficiency", &TierSpec::in_switch_efficiency,
          "achieved fraction of line rate for in-switch collectives")
      .range(0.01, 1.0);
  s.rule([](const TierSpec& t) -> std::optional<std::string> {
    if (t.bandwidth.has_value() == t.cpo.has_value())
      return "give exactly one of 'bandwidth' and 'cpo' for tier '" + t.name + "'";
    return std::nullopt;
  });
}

void FabricSpec::describe(config::Schema<FabricSpec>& s) {
  s.help("A machine: one GPU type and network tiers, innermost first (docs/fabric.md).");
  s.field("name", &FabricSpec::name, "display name");
  s.field("description", &FabricSpec::description, "what this fabric models and its sources");
  s.field("gpu", &FabricSpec::gpu, "the accelerator (preset: NAME from configs/gpus/)");
  s.field("tiers", &FabricSpec::tiers, "network tiers, innermost first").min_items(1);
  s.field("collective_algorithms", &FabricSpec::collective_algorithms,
          "force an algorithm per op, e.g. {all_reduce: ring}; ops: all_reduce, "
          "reduce_scatter, all_gather, all_to_all, send_recv; algorithms: auto, ring, tree, "
          "in-switch (nvls), in-switch-tree (nvls-tree), hierarchical, direct");
  s.field("expert_low_latency_overhead", &FabricSpec::expert_low_latency_overhead,
          "fixed cost of one DeepEP low-latency dispatch or combine before its bytes move; "
          "default fitted to DeepEP's EP8 low-latency dispatch on H800 (docs/fabric.md)")
      .range("0 s", "10 ms");
  s.field("nccl", &FabricSpec::nccl,
          "NCCL cost model for collectives across tier-0 domains: {tuning: nccl_2_30, arch: "
          "hopper|blackwell, host_cpu: intel|arm|amd}; unset: one protocol, tier latencies");
  s.rule([](const FabricSpec& f) -> std::optional<std::string> {
    for (std::size_t i = 1; i < f.tiers.size(); ++i) {
      const auto inner = f.tiers[i - 1].domain_size, outer = f.tiers[i].domain_size;
      if (outer <= inner || outer % inner != 0)
        return fmt::format(
            "tier '{}' domain_size {} must be a larger multiple of tier '{}' "
            "domain_size {}",
            f.tiers[i].name, outer, f.tiers[i - 1].name, inner);
    }
    for (const auto& [op, algorithm] : f.collective_algorithms) {
      try {
        (void)parse_op(op);
        (void)parse_algorithm(algorithm);
      } catch (const UsageError& e) {
        return "collective_algorithms." + op + ": " + e.what();
      }
    }
    return std::nullopt;
  });
}

void SeedPrefillReference::describe(config::Schema<SeedPrefillReference>& s) {
  s.help(
      "The seed's published prefill-study hardware figures, shown beside computed values "
      "and never used as inputs.");
  s.field("source", &SeedPrefillReference::source, "where the figures come from");
  s.field("electrical_peak_fp4", &SeedPrefillReference::electrical_peak_fp4, "per GPU").positive();
  s.field("electrical_hbm", &SeedPrefillReference::electrical_hbm, "per GPU").positive();
  s.field("electrical_scale_up", &SeedPrefillReference::electrical_scale_up,
          "per GPU per direction")
      .positive();
  s.field("electrical_domain", &SeedPrefillReference::electrical_domain, "GPUs").min(1);
  s.field("cpo_per_fiber", &SeedPrefillReference::cpo_per_fiber, "bidirectional").positive();
  s.field("cpo_per_tile", &SeedPrefillReference::cpo_per_tile, "").positive();
  s.field("cpo_per_xpu", &SeedPrefillReference::cpo_per_xpu, "bidirectional I/O").positive();
  s.field("photonic_scale_up_ratio", &SeedPrefillReference::photonic_scale_up_ratio,
          "photonic / copper scale-up bandwidth")
      .positive();
  s.field("photonic_domain", &SeedPrefillReference::photonic_domain, "GPUs").min(1);
}

CpoLink derive(const CpoSpec& c) {
  CpoLink l;
  l.bits_per_symbol = c.modulation == "nrz" ? 1 : c.modulation == "pam4" ? 2 : 3;
  // Bandwidth is stored in bytes per second: baud x bits / 8.
  l.lane_payload = c.symbol_rate.si() * l.bits_per_symbol * c.coding_efficiency / 8.0;
  l.per_fiber = l.lane_payload * static_cast<double>(c.wavelengths_per_fiber);
  l.per_tile = l.per_fiber * static_cast<double>(c.fibers_per_tile);
  l.per_gpu = l.per_tile * static_cast<double>(c.tiles_per_gpu);
  l.per_gpu_per_direction = l.per_gpu * c.direction_share;
  l.io_power = l.per_gpu * c.energy.si();
  return l;
}

namespace {

// Fat-tree levels of radix-r switches that connect n endpoints without blocking:
// 1 level: r, 2 levels: r^2/2, 3 levels: r^3/4 (Al-Fares et al., SIGCOMM 2008).
int switch_levels(std::int64_t n, std::int64_t radix) {
  const double r = static_cast<double>(radix), gpus = static_cast<double>(n);
  if (gpus <= r) return 1;
  if (gpus <= r * r / 2) return 2;
  if (gpus <= r * r * r / 4) return 3;
  return 0;
}

}  // namespace

Topology build_topology(const FabricSpec& spec) {
  Topology t;
  t.name = spec.name;
  t.gpu = spec.gpu;
  for (const TierSpec& s : spec.tiers) {
    Tier tier;
    tier.name = s.name;
    tier.domain_size = s.domain_size;
    tier.line_bandwidth = s.cpo ? derive(*s.cpo).per_gpu_per_direction : s.bandwidth->si();
    tier.bandwidth = tier.line_bandwidth / s.oversubscription;
    tier.switch_levels = switch_levels(s.domain_size, s.switch_radix);
    LIGHTSIM_CHECK_AS(ConfigError, tier.switch_levels > 0,
                      "fabric '{}': tier '{}' cannot join {} GPUs with radix-{} switches in 3 "
                      "fat-tree levels (at most {})",
                      spec.name, s.name, s.domain_size, s.switch_radix,
                      std::pow(static_cast<double>(s.switch_radix), 3) / 4);
    tier.alpha = s.latency.si() + (2.0 * tier.switch_levels - 1.0) * s.hop_latency.si();
    tier.efficiency = s.efficiency;
    tier.in_switch = s.in_switch_reduction;
    tier.in_switch_efficiency = s.in_switch_efficiency;
    t.tiers.push_back(std::move(tier));
  }
  t.expert_low_latency_overhead = spec.expert_low_latency_overhead.si();
  if (spec.nccl && t.tiers.size() >= 2)
    t.nccl = compile_nccl(*spec.nccl, t.tiers[0].line_bandwidth, t.tiers[1].line_bandwidth,
                          t.tiers[0].domain_size);
  for (const auto& [op, algorithm] : spec.collective_algorithms)
    t.forced_algorithm[static_cast<std::size_t>(parse_op(op))] =
        static_cast<int>(parse_algorithm(algorithm));
  return t;
}

FabricSpec load_fabric(const std::string& name_or_file, const config::LoadOptions& options) {
  return config::load_spec<FabricSpec>(
      config::find_named(name_or_file, FabricSpec::preset_dir, options, "fabric"), options);
}

}  // namespace lightsim::fabric
