// fabric_design (docs/fabric.md, "Designing a scale-up domain"): the domain size, bandwidth
// per GPU and fabric power that a design's physical inputs allow, and which limit binds.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

#include "lightsim/core/config_files.h"
#include "lightsim/fabric/design.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"

namespace lightsim::ops {

struct FabricDesignRequest {
  static constexpr std::string_view kind = "fabric_design_request";
  std::string design{};
  static void describe(config::Schema<FabricDesignRequest>& s) {
    s.help("Request of fabric design: one design (vary its inputs with --set KEY=VALUE).");
    s.field("design", &FabricDesignRequest::design,
            "design name (configs/fabric_designs/) or YAML file")
        .required();
  }
};

namespace {

struct DesignResult {
  fabric::FabricDesignSpec spec{};
  fabric::FabricDesign design{};
};

DesignResult evaluate_design(const FabricDesignRequest& q, Env& env) {
  DesignResult r{
      .spec = config::load_spec<fabric::FabricDesignSpec>(
          config::find_named(q.design, "fabric_designs", env.load, "fabric design"), env.load)};
  env.inputs_read();
  r.design = fabric::derive_design(r.spec);
  return r;
}

Json design_json(const DesignResult& r) {
  const fabric::FabricDesign& d = r.design;
  return {{"design", r.spec.name},
          {"medium", std::string(fabric::medium_name(r.spec.medium))},
          {"bandwidth",
           {{"endpoint_per_direction_Bps", d.endpoint_bandwidth},
            {"switch_ports_per_direction_Bps", d.switch_bandwidth},
            {"per_direction_Bps", d.bandwidth},
            {"bidirectional_Bps", d.bandwidth_bidirectional},
            {"bound", d.bandwidth_bound},
            {"lanes_used", d.lanes_used},
            {"fibers_per_tile_used", d.fibers_used}}},
          {"domain",
           {{"racks_within_reach", d.racks_within_reach},
            {"by_reach", d.domain_by_reach},
            {"by_radix", d.domain_by_radix},
            {"by_racks", d.domain_by_racks},
            {"gpus", d.domain},
            {"binding", d.binding},
            {"racks", d.racks},
            {"aggregate_bandwidth_Bps", d.aggregate_bandwidth},
            {"switch_levels", d.switch_levels_used},
            {"switches", d.switches}}},
          {"power",
           {{"energy_per_bit_J", d.energy_per_bit},
            {"per_gpu_W", d.power_per_gpu},
            {"per_domain_W", d.power_per_domain}}}};
}

std::string limit_text(std::int64_t v) {
  return v >= (std::int64_t{1} << 62) ? std::string("unbounded") : fmt::format("{}", v);
}

void print_design(const DesignResult& r, std::ostream& out) {
  const fabric::FabricDesignSpec& s = r.spec;
  const fabric::FabricDesign& d = r.design;
  fmt::print(out, "{} ({}): {}\n", s.name, fabric::medium_name(s.medium), s.description);
  fmt::print(out, "bandwidth per GPU: {:.1f} GB/s per direction, {:.2f} TB/s both ways ({})\n",
             d.bandwidth / 1e9, d.bandwidth_bidirectional / 1e12, d.bandwidth_bound);
  if (s.medium == fabric::LinkMedium::copper)
    fmt::print(out, "  endpoint  {} lanes x {:g} Gb/s = {:.1f} GB/s\n", d.lanes_used,
               8 * s.lane_rate.si() / 1e9, d.endpoint_bandwidth / 1e9);
  else
    fmt::print(out,
               "  endpoint  {} tiles x {} fibers x {} wavelengths x {:g} Gb/s x {:g} = {:.1f} "
               "GB/s\n",
               s.tiles_per_gpu, d.fibers_used, s.wavelengths_per_fiber,
               8 * s.rate_per_wavelength.si() / 1e9, s.direction_share, d.endpoint_bandwidth / 1e9);
  fmt::print(out, "  switch    {} links x {:g} Gb/s = {:.1f} GB/s\n", s.links_per_gpu,
             8 * s.port_rate.si() / 1e9, d.switch_bandwidth / 1e9);
  fmt::print(out, "domain: {} GPUs in {} rack(s), bound by {}\n", d.domain, d.racks,
             fmt::join(d.binding, " = "));
  fmt::print(out, "  reach     {} racks within {} x {} GPUs = {}\n",
             limit_text(d.racks_within_reach), to_string(s.reach), s.gpus_per_rack,
             limit_text(d.domain_by_reach));
  fmt::print(out, "  radix     2 ({}/2)^{} per plane / {} links per plane = {}\n", s.switch_radix,
             s.switch_levels,
             s.links_per_gpu / (s.switch_planes ? s.switch_planes : s.links_per_gpu),
             limit_text(d.domain_by_radix));
  if (d.domain_by_racks)
    fmt::print(out, "  racks     {} stated x {} GPUs = {}\n", s.max_racks, s.gpus_per_rack,
               d.domain_by_racks);
  fmt::print(out, "  aggregate {:.1f} TB/s; {} switch level(s), {} switches\n",
             d.aggregate_bandwidth / 1e12, d.switch_levels_used, d.switches);
  fmt::print(out,
             "power at full load: {:.3g} pJ/bit on the longest path; {:.1f} W per GPU, "
             "{:.2f} kW per domain\n",
             d.energy_per_bit * 1e12, d.power_per_gpu, d.power_per_domain / 1e3);
}

}  // namespace

void register_fabric_design_ops(Registry& registry) {
  add<FabricDesignRequest, DesignResult>(
      registry, {.info = {.name = "fabric_design",
                          .command = {"fabric", "design"},
                          .help = "Scale-up domain size, bandwidth and power from physical inputs",
                          .positional = {"design"}},
                 .evaluate = evaluate_design,
                 .to_json = design_json,
                 .print = print_design});
}

}  // namespace lightsim::ops
