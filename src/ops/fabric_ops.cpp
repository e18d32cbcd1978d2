// GPU fabrics (docs/fabric.md): fabric_show (the tiers of a fabric and its derived optical
// links beside the seed's figures) and fabric_collective (time and bus bandwidth of one
// collective, or its busbw curve over message sizes).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <array>
#include <cmath>
#include <ostream>
#include <vector>

#include "lightsim/core/config_files.h"
#include "lightsim/fabric/collective.h"
#include "lightsim/fabric/expert.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"

namespace lightsim::ops {

// A message size as nccl-tests prints it: whole KiB/MiB/GiB/TiB when exact, else bytes.
inline std::string format_bytes(double bytes) {
  static constexpr std::pair<double, const char*> kUnits[] = {
      {1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}};
  for (const auto& [size, unit] : kUnits)
    if (bytes >= size && std::fmod(bytes, size) == 0)
      return fmt::format("{:g} {}", bytes / size, unit);
  return fmt::format("{:g} B", bytes);
}

struct FabricShowRequest {
  static constexpr std::string_view kind = "fabric_show_request";
  std::string fabric{};
  static void describe(config::Schema<FabricShowRequest>& s) {
    s.help("Request of fabric show: one fabric.");
    s.field("fabric", &FabricShowRequest::fabric, "fabric name (configs/fabrics/) or YAML file")
        .required();
  }
};

// The sweep's sizes: min_bytes, 2 min_bytes, ... <= max_bytes, one point per doubling.
inline constexpr int kMaxSweepPoints = 256;

struct CollectiveRequest {
  static constexpr std::string_view kind = "fabric_collective_request";
  std::string fabric{};
  std::string op = "all-reduce";
  std::int64_t gpus = 8;
  DataSize bytes = parse<dims::data>("256 MiB");
  std::string algorithm = "auto";
  std::string protocol = "auto";
  bool sweep = false;
  DataSize min_bytes = parse<dims::data>("1 KiB");
  DataSize max_bytes = parse<dims::data>("16 GiB");
  static void describe(config::Schema<CollectiveRequest>& s) {
    s.help("Request of fabric collective: one collective on a group of GPUs of a fabric.");
    s.field("fabric", &CollectiveRequest::fabric, "fabric name (configs/fabrics/) or YAML file")
        .required();
    s.field("op", &CollectiveRequest::op,
            "all-reduce, reduce-scatter, all-gather, all-to-all, send-recv");
    s.field("gpus", &CollectiveRequest::gpus, "GPUs in the group (packed contiguously)")
        .range(std::int64_t{2}, std::int64_t{1} << 30);
    s.field("bytes", &CollectiveRequest::bytes, "message size as in nccl-tests, e.g. 256MiB")
        .positive();
    s.field("algorithm", &CollectiveRequest::algorithm,
            "auto (NCCL's choice by size), ring, tree, in-switch (nvls), in-switch-tree "
            "(nvls-tree), hierarchical, direct");
    s.field("protocol", &CollectiveRequest::protocol,
            "auto (NCCL's choice by size), ll, ll128, simple; LL and LL128 exist across "
            "tier-0 domains of a fabric with an 'nccl' model (docs/fabric.md)")
        .one_of({"auto", "ll", "ll128", "simple"});
    s.field("sweep", &CollectiveRequest::sweep, "the busbw curve over sizes (doubling)");
    s.field("min_bytes", &CollectiveRequest::min_bytes, "sweep start").positive();
    s.field("max_bytes", &CollectiveRequest::max_bytes, "sweep end").positive();
    s.rule([](const CollectiveRequest& r) -> std::optional<std::string> {
      if (!std::isfinite(r.bytes.si()))
        return fmt::format("bytes must be finite (got {})", format_bytes(r.bytes.si()));
      if (r.min_bytes.si() > r.max_bytes.si())
        return fmt::format("min_bytes ({}) must not exceed max_bytes ({})",
                           format_bytes(r.min_bytes.si()), format_bytes(r.max_bytes.si()));
      if (!std::isfinite(r.max_bytes.si()) ||
          std::log2(r.max_bytes.si() / r.min_bytes.si()) >= kMaxSweepPoints)
        return fmt::format(
            "min_bytes..max_bytes spans more than 2^{} (one point per doubling); narrow the "
            "range",
            kMaxSweepPoints);
      return std::nullopt;
    });
  }
};

struct ExpertRequest {
  static constexpr std::string_view kind = "fabric_expert_request";
  std::string fabric{};
  fabric::ExpertMode mode = fabric::ExpertMode::normal;
  std::int64_t ep = 8;
  double tokens = 4096;
  double experts_per_token = 8;
  std::int64_t hidden = 7168;
  double bytes_per_value = 1.03125;
  std::int64_t max_nodes = 0;
  static void describe(config::Schema<ExpertRequest>& s) {
    s.help(
        "Request of fabric expert: one DeepEP-style MoE dispatch or combine on a fabric "
        "(docs/fabric.md, \"Expert all-to-all (DeepEP)\").");
    s.field("fabric", &ExpertRequest::fabric, "fabric name (configs/fabrics/) or YAML file")
        .required();
    s.enumeration(
        "mode", &ExpertRequest::mode,
        {{"normal", fabric::ExpertMode::normal}, {"low_latency", fabric::ExpertMode::low_latency}},
        "normal (prefill: per distinct rank, node-limited) or low_latency (decode: "
        "per (token, expert) message)");
    s.field("ep", &ExpertRequest::ep, "EP size (ranks, packed contiguously)")
        .range(std::int64_t{2}, std::int64_t{1} << 30);
    s.field("tokens", &ExpertRequest::tokens, "tokens per rank").range(1e-9, 1e12);
    s.field("experts_per_token", &ExpertRequest::experts_per_token, "top-k").range(1.0, 1024.0);
    s.field("hidden", &ExpertRequest::hidden, "hidden size")
        .range(std::int64_t{1}, std::int64_t{1} << 24);
    s.field("bytes_per_value", &ExpertRequest::bytes_per_value,
            "bytes per hidden value, scales included (FP8 with 1/128 scales: 1.03125; BF16: 2)")
        .range(1e-3, 8.0);
    s.field("max_nodes", &ExpertRequest::max_nodes,
            "normal mode: nodes a token may reach (node-limited routing); 0 = any")
        .range(std::int64_t{0}, std::int64_t{1} << 30);
  }
};

namespace {

std::vector<double> sweep_sizes(double lo, double hi) {
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
  if (r.protocol) j["protocol"] = std::string(fabric::protocol_name(*r.protocol));
  j["time_s"] = r.time;
  j["algbw_Bps"] = r.algbw;
  j["busbw_Bps"] = r.busbw;
  j["bounding_tier"] = t.tiers[static_cast<std::size_t>(r.bounding_tier)].name;
  j["outer_tier"] = t.tiers[static_cast<std::size_t>(r.outer_tier)].name;
  return j;
}

struct ShowResult {
  fabric::FabricSpec spec{};
  fabric::SeedPrefillReference seed{};
};

Json show_json(const ShowResult& r) {
  const fabric::FabricSpec& spec = r.spec;
  const fabric::SeedPrefillReference& seed = r.seed;
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
  return {{"fabric", spec.name},
          {"description", spec.description},
          {"gpu", spec.gpu.name},
          {"capacity", t.capacity()},
          {"tiers", tiers}};
}

void print_show(const ShowResult& r, std::ostream& out) {
  const fabric::FabricSpec& spec = r.spec;
  const fabric::SeedPrefillReference& seed = r.seed;
  const fabric::Topology t = fabric::build_topology(spec);
  const double copper = spec.gpu.scale_up_bandwidth.si();
  fmt::print(out, "{}: {}\nGPU: {} (scale-up {:.0f} GB/s per direction); up to {} GPUs\n",
             spec.name, spec.description, spec.gpu.name, copper / 1e9, t.capacity());
  fmt::print(out, "{:<10} {:>8} {:>14} {:>10} {:>9} {:>7} {:>6} {:>9}\n", "tier", "domain",
             "GB/s/dir", "x scale-up", "alpha us", "levels", "eff", "in-switch");
  for (const auto& tier : t.tiers)
    fmt::print(out, "{:<10} {:>8} {:>14.1f} {:>10.2f} {:>9.2f} {:>7} {:>6.2f} {:>9}\n", tier.name,
               tier.domain_size, tier.bandwidth / 1e9, tier.line_bandwidth / copper,
               tier.alpha * 1e6, tier.switch_levels, tier.efficiency,
               tier.in_switch ? "yes" : "no");
  for (const auto& s : spec.tiers) {
    if (!s.cpo) continue;
    const fabric::CpoLink l = fabric::derive(*s.cpo);
    fmt::print(out, "\nco-packaged optics of tier '{}' (derived | seed):\n", s.name);
    fmt::print(out, "  lane payload  {:>8.1f} Gb/s  ({} x {} bit x {:.4f})\n",
               8 * l.lane_payload / 1e9, to_string(s.cpo->symbol_rate), l.bits_per_symbol,
               s.cpo->coding_efficiency);
    fmt::print(out, "  per fiber     {:>8.2f} Tb/s | {:.2f} Tb/s\n", 8 * l.per_fiber / 1e12,
               8 * seed.cpo_per_fiber.si() / 1e12);
    fmt::print(out, "  per tile      {:>8.2f} Tb/s | {:.2f} Tb/s  ({} fibers)\n",
               8 * l.per_tile / 1e12, 8 * seed.cpo_per_tile.si() / 1e12, s.cpo->fibers_per_tile);
    fmt::print(out, "  per GPU       {:>8.2f} Tb/s | {:.2f} Tb/s  ({} tiles, both directions)\n",
               8 * l.per_gpu / 1e12, 8 * seed.cpo_per_xpu.si() / 1e12, s.cpo->tiles_per_gpu);
    fmt::print(out,
               "  per direction {:>8.2f} TB/s = {:.2f}x the GPU's {:.0f} GB/s scale-up | {:.1f}x\n",
               l.per_gpu_per_direction / 1e12, l.per_gpu_per_direction / copper, copper / 1e9,
               seed.photonic_scale_up_ratio);
    fmt::print(out, "  I/O power     {:>8.1f} W at {:.3g} pJ/bit\n", l.io_power,
               s.cpo->energy.si() / 8 * 1e12);
  }
}

ShowResult evaluate_show(const FabricShowRequest& q, Env& env) {
  ShowResult r{.spec = fabric::load_fabric(q.fabric, env.load)};
  // The seed's figures are another file: --set is the fabric's, not theirs.
  config::LoadOptions plain;
  plain.config_roots = env.load.config_roots;
  r.seed = config::load_spec<fabric::SeedPrefillReference>(
      config::find_named("prefill_seed", "references", plain, "reference"), plain);
  env.inputs_read();
  return r;
}

struct CollectiveResult {
  CollectiveRequest request{};
  std::string fabric{};
  Json results{};  // one entry per message size
};

CollectiveResult evaluate_collective(const CollectiveRequest& q, Env& env) {
  const fabric::Topology t = fabric::build_topology(fabric::load_fabric(q.fabric, env.load));
  env.inputs_read();
  const fabric::CollectiveOp op = fabric::parse_op(q.op);
  const fabric::Algorithm alg = fabric::parse_algorithm(q.algorithm);
  const std::optional<fabric::Protocol> protocol = fabric::parse_protocol(q.protocol);
  const std::vector<double> sizes =
      q.sweep ? sweep_sizes(q.min_bytes.si(), q.max_bytes.si()) : std::vector{q.bytes.si()};
  CollectiveResult r{.request = q, .fabric = t.name, .results = Json::array()};
  for (double bytes : sizes) {
    const fabric::CollectiveResult c = fabric::collective(t, op, q.gpus, bytes, alg, protocol);
    if (!c.feasible) LIGHTSIM_THROW(InputError, "{}", c.reason);
    r.results.push_back(result_json(t, op, q.gpus, bytes, c));
  }
  return r;
}

// "ring", or "ring/LL128" when NCCL's protocol model chose the protocol.
std::string algorithm_text(const Json& j) {
  std::string s = j["algorithm"].get<std::string>();
  if (j.contains("protocol")) s.append("/").append(j["protocol"].get<std::string>());
  return s;
}

void print_collective(const CollectiveResult& r, std::ostream& out) {
  const CollectiveRequest& q = r.request;
  if (!q.sweep) {
    const Json& j = r.results[0];
    fmt::print(out,
               "{} of {} on {} GPUs of {}: {:.4g} us with {}; algbw {:.1f} GB/s, busbw {:.1f} "
               "GB/s; bounded by tier '{}' (group spans up to '{}')\n",
               q.op, format_bytes(q.bytes.si()), q.gpus, r.fabric, j["time_s"].get<double>() * 1e6,
               algorithm_text(j), j["algbw_Bps"].get<double>() / 1e9,
               j["busbw_Bps"].get<double>() / 1e9, j["bounding_tier"].get<std::string>(),
               j["outer_tier"].get<std::string>());
    return;
  }
  fmt::print(out, "{} on {} GPUs of {}\n{:>14} {:>12} {:>13} {:>13}  {:<15} {}\n", q.op, q.gpus,
             r.fabric, "bytes", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "algorithm", "bound");
  for (const Json& j : r.results)
    fmt::print(out, "{:>14.0f} {:>12.4g} {:>13.2f} {:>13.2f}  {:<15} {}\n",
               j["bytes"].get<double>(), j["time_s"].get<double>() * 1e6,
               j["algbw_Bps"].get<double>() / 1e9, j["busbw_Bps"].get<double>() / 1e9,
               algorithm_text(j), j["bounding_tier"].get<std::string>());
}

struct ExpertOpResult {
  ExpertRequest request{};
  std::string fabric{};
  std::string bound{};
  fabric::ExpertResult result{};
};

ExpertOpResult evaluate_expert(const ExpertRequest& q, Env& env) {
  const fabric::Topology t = fabric::build_topology(fabric::load_fabric(q.fabric, env.load));
  env.inputs_read();
  fabric::ExpertExchange x;
  x.mode = q.mode;
  x.ranks = q.ep;
  x.tokens = q.tokens;
  x.experts_per_token = q.experts_per_token;
  x.token_bytes = static_cast<double>(q.hidden) * q.bytes_per_value;
  x.max_nodes = q.max_nodes;
  const fabric::ExpertResult e = fabric::expert_exchange(t, x);
  if (!e.feasible) LIGHTSIM_THROW(InputError, "{}", e.reason);
  return {.request = q,
          .fabric = t.name,
          .bound = t.tiers[static_cast<std::size_t>(e.bounding_tier)].name,
          .result = e};
}

Json expert_json(const ExpertOpResult& r) {
  return {{"fabric", r.fabric},
          {"mode", r.request.mode == fabric::ExpertMode::normal ? "normal" : "low_latency"},
          {"ep", r.request.ep},
          {"time_s", r.result.time},
          {"scale_up_bytes", r.result.scale_up_bytes},
          {"scale_out_bytes", r.result.scale_out_bytes},
          {"reported_bandwidth_Bps", r.result.reported_bandwidth},
          {"bounding_tier", r.bound}};
}

void print_expert(const ExpertOpResult& r, std::ostream& out) {
  fmt::print(out,
             "{} dispatch/combine on EP{} of {}: {:.4g} us; {:.3g} MB per rank on the node "
             "tier, {:.3g} MB leaving it; DeepEP-reported bandwidth {:.1f} GB/s; bounded by "
             "tier '{}'\n",
             r.request.mode == fabric::ExpertMode::normal ? "normal" : "low-latency", r.request.ep,
             r.fabric, r.result.time * 1e6, r.result.scale_up_bytes / 1e6,
             r.result.scale_out_bytes / 1e6, r.result.reported_bandwidth / 1e9, r.bound);
}

struct KernelsRequest {
  static constexpr std::string_view kind = "fabric_kernels_request";
  std::string gpu{};
  static void describe(config::Schema<KernelsRequest>& s) {
    s.help("Request of fabric kernels: one GPU.");
    s.field("gpu", &KernelsRequest::gpu, "GPU name (configs/gpus/) or YAML file").required();
  }
};

struct KernelsResult {
  fabric::GpuSpec gpu{};
};

KernelsResult evaluate_kernels(const KernelsRequest& q, Env& env) {
  KernelsResult r{.gpu = config::load_spec<fabric::GpuSpec>(
                      config::find_named(q.gpu, "gpus", env.load, "gpu"), env.load)};
  env.inputs_read();
  return r;
}

// The sections of a kernel table, in print order: key, what `sizes` counts.
constexpr std::array<std::pair<const char*, const char*>, 3> kSections = {
    {{"gemm", "M rows"}, {"grouped_gemm", "tokens/expert"}, {"attention", "sequence"}}};

const std::vector<fabric::EfficiencyCurveSpec>& section(const fabric::KernelTableSpec& t,
                                                        std::size_t i) {
  return i == 0 ? t.gemm : i == 1 ? t.grouped_gemm : t.attention;
}

Json kernels_json(const KernelsResult& r) {
  const fabric::KernelEfficiency eff(r.gpu);
  Json j = {{"gpu", r.gpu.name}, {"kernel_efficiency", eff.describe()}};
  if (!r.gpu.kernels) {
    j["table"] = nullptr;
    j["roofline"] = {{"gemm_efficiency_max", r.gpu.gemm_efficiency_max},
                     {"memory_efficiency_max", r.gpu.memory_efficiency_max}};
    return j;
  }
  const fabric::KernelTableSpec& t = r.gpu.kernels->get();
  Json table = {{"name", r.gpu.kernels->name()}, {"title", t.name}};
  for (std::size_t i = 0; i < kSections.size(); ++i) {
    Json curves = Json::array();
    for (const auto& c : section(t, i)) {
      Json jc = {{"format", c.format},
                 {"sizes", c.sizes},
                 {"efficiency", c.efficiency},
                 {"source", c.source}};
      if (i < 2) jc["k"] = c.k;
      if (i == 2) jc["causal"] = c.causal;
      curves.push_back(std::move(jc));
    }
    table[kSections[i].first] = std::move(curves);
  }
  table["memory_efficiency_max"] = t.memory_efficiency_max;
  table["memory_half_bytes"] = t.memory_half_bytes.si();
  table["memory_source"] = t.memory_source;
  table["launch_overhead_s"] = t.launch_overhead.si();
  table["launch_source"] = t.launch_source;
  j["table"] = std::move(table);
  return j;
}

void print_kernels(const KernelsResult& r, std::ostream& out) {
  const fabric::KernelEfficiency eff(r.gpu);
  fmt::print(out, "{}: {}\n", r.gpu.name, eff.describe());
  if (!r.gpu.kernels) return;
  const fabric::KernelTableSpec& t = r.gpu.kernels->get();
  for (std::size_t i = 0; i < kSections.size(); ++i) {
    if (section(t, i).empty()) {
      fmt::print(out, "\n{}: no curves (roofline ceiling)\n", kSections[i].first);
      continue;
    }
    fmt::print(out, "\n{} (fraction of the format's dense peak by {}):\n", kSections[i].first,
               kSections[i].second);
    for (const auto& c : section(t, i)) {
      const std::string key =
          i < 2 ? fmt::format("K={}", c.k) : std::string(c.causal ? "causal" : "no mask");
      fmt::print(out, "  {:<5} {:<9}", c.format, key);
      for (std::size_t p = 0; p < c.sizes.size(); ++p)
        fmt::print(out, " {:g}:{:.3f}", c.sizes[p], c.efficiency[p]);
      fmt::print(out, "\n        source: {}\n", c.source);
    }
  }
  fmt::print(out, "\nmemory-bound: {:.2f} of HBM at large sizes, half at {:g} MB ({})\n",
             t.memory_efficiency_max, t.memory_half_bytes.si() / 1e6, t.memory_source);
  fmt::print(out, "launch overhead: {:g} us per kernel ({})\n", t.launch_overhead.si() * 1e6,
             t.launch_source);
}

}  // namespace

void register_fabric_ops(Registry& registry) {
  add<FabricShowRequest, ShowResult>(
      registry, {.info = {.name = "fabric_show",
                          .command = {"fabric", "show"},
                          .help = "Tiers of a fabric and its derived optical links",
                          .positional = {"fabric"}},
                 .evaluate = evaluate_show,
                 .to_json = show_json,
                 .print = print_show});
  add<KernelsRequest, KernelsResult>(
      registry, {.info = {.name = "fabric_kernels",
                          .command = {"fabric", "kernels"},
                          .help = "Measured kernel efficiency tables of a GPU, with sources",
                          .positional = {"gpu"}},
                 .evaluate = evaluate_kernels,
                 .to_json = kernels_json,
                 .print = print_kernels});
  add<CollectiveRequest, CollectiveResult>(
      registry,
      {.info = {.name = "fabric_collective",
                .command = {"fabric", "collective"},
                .help = "Time and bus bandwidth of one collective"},
       .evaluate = evaluate_collective,
       .to_json =
           [](const CollectiveResult& r) { return r.request.sweep ? r.results : r.results[0]; },
       .print = print_collective});
  add<ExpertRequest, ExpertOpResult>(
      registry, {.info = {.name = "fabric_expert",
                          .command = {"fabric", "expert"},
                          .help = "Time of one DeepEP-style MoE dispatch or combine"},
                 .evaluate = evaluate_expert,
                 .to_json = expert_json,
                 .print = print_expert});
}

}  // namespace lightsim::ops
