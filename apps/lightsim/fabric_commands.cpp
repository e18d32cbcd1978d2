// `lightsim fabric show NAME` and `lightsim fabric collective --fabric NAME --op OP --gpus N
// --bytes SIZE [--algorithm A] [--sweep]` (docs/fabric.md).
#include <cmath>
#include <iostream>
#include <vector>

#include "cli.h"
#include "lightsim/core/config_files.h"
#include "lightsim/core/json.h"
#include "lightsim/fabric/collective.h"

namespace lightsim::cli {
namespace {

struct CollectiveOptions {
  std::string fabric, op = "all-reduce", algorithm = "auto", bytes = "256 MiB";
  std::string min_bytes = "1 KiB", max_bytes = "16 GiB";
  std::int64_t gpus = 8;
  bool sweep = false;
};

// A message size in bytes: finite and positive, else a UsageError naming the option.
double parse_bytes(const std::string& text, const char* option) {
  double bytes = 0;
  try {
    bytes = parse<dims::data>(text).si();
  } catch (const UnitError& e) {
    LIGHTSIM_THROW(UsageError, "{}: {}", option, e.what());
  }
  if (!(bytes > 0) || !std::isfinite(bytes))
    LIGHTSIM_THROW(UsageError, "{}: the message size must be positive and finite (got '{}')",
                   option, text);
  return bytes;
}

// The sweep's sizes: lo, 2 lo, 4 lo, ... <= hi; at most kMaxSweepPoints of them.
constexpr int kMaxSweepPoints = 256;
std::vector<double> sweep_sizes(double lo, double hi) {
  if (lo > hi)
    LIGHTSIM_THROW(UsageError, "--min-bytes ({} B) must not exceed --max-bytes ({} B)", lo, hi);
  if (std::log2(hi / lo) >= kMaxSweepPoints)
    LIGHTSIM_THROW(UsageError,
                   "--min-bytes..--max-bytes spans more than 2^{} (one point per "
                   "doubling); narrow the range",
                   kMaxSweepPoints);
  std::vector<double> sizes;
  for (double s = lo; s <= hi * (1 + 1e-12); s *= 2) sizes.push_back(s);
  return sizes;
}

Json result_json(const fabric::Topology& t, fabric::CollectiveOp op, std::int64_t gpus,
                 double bytes, const fabric::CollectiveResult& r) {
  Json j = {{"fabric", t.name},
            {"op", std::string(fabric::op_name(op))},
            {"gpus", gpus},
            {"bytes", bytes},
            {"feasible", r.feasible}};
  if (!r.feasible) {
    j["reason"] = r.reason;
    return j;
  }
  j["algorithm"] = std::string(fabric::algorithm_name(r.algorithm));
  j["time_s"] = r.time;
  j["algbw_Bps"] = r.algbw;
  j["busbw_Bps"] = r.busbw;
  j["bounding_tier"] = t.tiers[static_cast<std::size_t>(r.bounding_tier)].name;
  j["outer_tier"] = t.tiers[static_cast<std::size_t>(r.outer_tier)].name;
  return j;
}

void show_fabric(const fabric::FabricSpec& spec, const fabric::SeedPrefillReference& seed,
                 bool json) {
  const fabric::Topology t = fabric::build_topology(spec);
  const double copper = spec.gpu.scale_up_bandwidth.si();
  Json tiers = Json::array();
  for (std::size_t i = 0; i < t.tiers.size(); ++i) {
    const fabric::Tier& tier = t.tiers[i];
    Json jt = {{"name", tier.name},
               {"domain_size", tier.domain_size},
               {"bandwidth_per_direction_Bps", tier.bandwidth},
               {"line_bandwidth_Bps", tier.line_bandwidth},
               {"ratio_to_gpu_scale_up", tier.line_bandwidth / copper},
               {"alpha_s", tier.alpha},
               {"switch_levels", tier.switch_levels},
               {"efficiency", tier.efficiency},
               {"in_switch_reduction", tier.in_switch}};
    if (spec.tiers[i].cpo) {
      const fabric::CpoLink l = fabric::derive(*spec.tiers[i].cpo);
      jt["cpo"] = {{"lane_payload_bps", 8 * l.lane_payload},
                   {"per_fiber_bps", 8 * l.per_fiber},
                   {"per_tile_bps", 8 * l.per_tile},
                   {"per_gpu_bps", 8 * l.per_gpu},
                   {"per_gpu_per_direction_Bps", l.per_gpu_per_direction},
                   {"io_power_W", l.io_power},
                   {"seed",
                    {{"per_fiber_bps", 8 * seed.cpo_per_fiber.si()},
                     {"per_tile_bps", 8 * seed.cpo_per_tile.si()},
                     {"per_xpu_bps", 8 * seed.cpo_per_xpu.si()},
                     {"scale_up_ratio", seed.photonic_scale_up_ratio}}}};
    }
    tiers.push_back(jt);
  }
  if (json) {
    std::cout << dump_json({{"fabric", spec.name},
                            {"description", spec.description},
                            {"gpu", spec.gpu.name},
                            {"capacity", t.capacity()},
                            {"tiers", tiers}});
    return;
  }
  fmt::print("{}: {}\nGPU: {} (scale-up {:.0f} GB/s per direction); up to {} GPUs\n", spec.name,
             spec.description, spec.gpu.name, copper / 1e9, t.capacity());
  fmt::print("{:<10} {:>8} {:>14} {:>10} {:>9} {:>7} {:>6} {:>9}\n", "tier", "domain", "GB/s/dir",
             "x scale-up", "alpha us", "levels", "eff", "in-switch");
  for (const auto& tier : t.tiers)
    fmt::print("{:<10} {:>8} {:>14.1f} {:>10.2f} {:>9.2f} {:>7} {:>6.2f} {:>9}\n", tier.name,
               tier.domain_size, tier.bandwidth / 1e9, tier.line_bandwidth / copper,
               tier.alpha * 1e6, tier.switch_levels, tier.efficiency,
               tier.in_switch ? "yes" : "no");
  for (const auto& s : spec.tiers) {
    if (!s.cpo) continue;
    const fabric::CpoLink l = fabric::derive(*s.cpo);
    fmt::print("\nco-packaged optics of tier '{}' (derived | seed):\n", s.name);
    fmt::print("  lane payload  {:>8.1f} Gb/s  ({} x {} bit x {:.4f})\n", 8 * l.lane_payload / 1e9,
               to_string(s.cpo->symbol_rate), l.bits_per_symbol, s.cpo->coding_efficiency);
    fmt::print("  per fiber     {:>8.2f} Tb/s | {:.2f} Tb/s\n", 8 * l.per_fiber / 1e12,
               8 * seed.cpo_per_fiber.si() / 1e12);
    fmt::print("  per tile      {:>8.2f} Tb/s | {:.2f} Tb/s  ({} fibers)\n", 8 * l.per_tile / 1e12,
               8 * seed.cpo_per_tile.si() / 1e12, s.cpo->fibers_per_tile);
    fmt::print("  per GPU       {:>8.2f} Tb/s | {:.2f} Tb/s  ({} tiles, both directions)\n",
               8 * l.per_gpu / 1e12, 8 * seed.cpo_per_xpu.si() / 1e12, s.cpo->tiles_per_gpu);
    fmt::print("  per direction {:>8.2f} TB/s = {:.2f}x the GPU's {:.0f} GB/s scale-up | {:.1f}x\n",
               l.per_gpu_per_direction / 1e12, l.per_gpu_per_direction / copper, copper / 1e9,
               seed.photonic_scale_up_ratio);
    fmt::print("  I/O power     {:>8.1f} W at {:.3g} pJ/bit\n", l.io_power,
               s.cpo->energy.si() / 8 * 1e12);
  }
}

}  // namespace

void add_fabric_commands(CLI::App& app, const GlobalOptions& options, const Registry&) {
  CLI::App* fab = app.add_subcommand("fabric", "GPU fabrics and collective communication");
  fab->require_subcommand(1);

  auto* show = fab->add_subcommand("show", "Tiers of a fabric and its derived optical links");
  auto name = std::make_shared<std::string>();
  show->add_option("FABRIC", *name, "Fabric name (configs/fabrics/) or YAML file")->required();
  show->callback([name, &options] {
    const auto load = options.load_options();
    const fabric::FabricSpec spec = fabric::load_fabric(*name, load);
    // The seed's figures are another file: --set is the fabric's, not theirs.
    config::LoadOptions plain = load;
    plain.assignments.clear();
    const auto seed = config::load_spec<fabric::SeedPrefillReference>(
        config::find_named("prefill_seed", "references", ".yaml", plain, "reference"), plain);
    options.require_all_used();
    show_fabric(spec, seed, options.json);
  });

  auto* coll = fab->add_subcommand("collective", "Time and bus bandwidth of one collective");
  auto o = std::make_shared<CollectiveOptions>();
  coll->add_option("--fabric", o->fabric, "Fabric name (configs/fabrics/) or YAML file")
      ->required();
  coll->add_option("--op", o->op, "all-reduce, reduce-scatter, all-gather, all-to-all, send-recv")
      ->capture_default_str();
  coll->add_option("--gpus", o->gpus, "GPUs in the group (packed contiguously)")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{2}, std::int64_t{1} << 30));
  coll->add_option("--bytes", o->bytes, "Message size as in nccl-tests, e.g. 256MiB")
      ->capture_default_str();
  coll->add_option("--algorithm", o->algorithm,
                   "auto, ring, tree, in-switch (nvls), hierarchical, direct")
      ->capture_default_str();
  coll->add_flag("--sweep", o->sweep, "Print the busbw curve over sizes (doubling)");
  coll->add_option("--min-bytes", o->min_bytes, "Sweep start")->capture_default_str();
  coll->add_option("--max-bytes", o->max_bytes, "Sweep end")->capture_default_str();
  coll->callback([o, &options] {
    const fabric::Topology t =
        fabric::build_topology(fabric::load_fabric(o->fabric, options.load_options()));
    options.require_all_used();
    const fabric::CollectiveOp op = fabric::parse_op(o->op);
    const fabric::Algorithm alg = fabric::parse_algorithm(o->algorithm);
    std::vector<double> sizes;
    if (o->sweep) {
      sizes = sweep_sizes(parse_bytes(o->min_bytes, "--min-bytes"),
                          parse_bytes(o->max_bytes, "--max-bytes"));
    } else {
      sizes.push_back(parse_bytes(o->bytes, "--bytes"));
    }
    Json results = Json::array();
    for (double bytes : sizes) {
      const fabric::CollectiveResult r = fabric::collective(t, op, o->gpus, bytes, alg);
      if (!r.feasible) LIGHTSIM_THROW(InputError, "{}", r.reason);
      results.push_back(result_json(t, op, o->gpus, bytes, r));
    }
    if (options.json) {
      std::cout << dump_json(o->sweep ? Json(results) : results[0]);
      return;
    }
    if (!o->sweep) {
      const Json& j = results[0];
      fmt::print(
          "{} of {} on {} GPUs of {}: {:.4g} us with {}; algbw {:.1f} GB/s, busbw {:.1f} "
          "GB/s; bounded by tier '{}' (group spans up to '{}')\n",
          o->op, o->bytes, o->gpus, t.name, j["time_s"].get<double>() * 1e6,
          j["algorithm"].get<std::string>(), j["algbw_Bps"].get<double>() / 1e9,
          j["busbw_Bps"].get<double>() / 1e9, j["bounding_tier"].get<std::string>(),
          j["outer_tier"].get<std::string>());
      return;
    }
    fmt::print("{} on {} GPUs of {}\n{:>14} {:>12} {:>13} {:>13}  {:<12} {}\n", o->op, o->gpus,
               t.name, "bytes", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "algorithm", "bound");
    for (const Json& j : results)
      fmt::print("{:>14.0f} {:>12.4g} {:>13.2f} {:>13.2f}  {:<12} {}\n", j["bytes"].get<double>(),
                 j["time_s"].get<double>() * 1e6, j["algbw_Bps"].get<double>() / 1e9,
                 j["busbw_Bps"].get<double>() / 1e9, j["algorithm"].get<std::string>(),
                 j["bounding_tier"].get<std::string>());
  });
}

}  // namespace lightsim::cli
