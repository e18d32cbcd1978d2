// The scale-up domain from physical inputs (design.h; formulas and sources in docs/fabric.md).
#include "lightsim/fabric/design.h"

#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"

namespace lightsim::fabric {

std::string_view medium_name(LinkMedium m) {
  return m == LinkMedium::copper ? "copper" : "optical";
}

void FabricDesignSpec::describe(config::Schema<FabricDesignSpec>& s) {
  s.help(
      "A scale-up domain design from physical inputs: reach and floor plan, endpoint I/O "
      "(SerDes lanes or CPO fibers), switch radix and levels, energy per bit "
      "(lightsim fabric design; docs/fabric.md).");
  s.field("name", &FabricDesignSpec::name, "display name");
  s.field("description", &FabricDesignSpec::description, "what this design models, sources");
  s.enumeration("medium", &FabricDesignSpec::medium,
                {{"copper", LinkMedium::copper}, {"optical", LinkMedium::optical}},
                "copper (SerDes lanes over passive cable) or optical (co-packaged optics)");
  s.field("reach", &FabricDesignSpec::reach, "longest GPU-to-switch cable the medium allows")
      .range("1 mm", "100 km");
  s.field("gpus_per_rack", &FabricDesignSpec::gpus_per_rack, "GPUs one rack holds")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("in_rack_cable", &FabricDesignSpec::in_rack_cable,
          "longest GPU-to-switch cable run inside one rack")
      .range("1 mm", "100 m");
  s.field("rack_pitch", &FabricDesignSpec::rack_pitch, "rack centre to centre along a row")
      .range("0.1 m", "100 m");
  s.field("row_pitch", &FabricDesignSpec::row_pitch, "row centre to centre (rack depth + aisle)")
      .range("0.1 m", "100 m");
  s.field("routing_overhead", &FabricDesignSpec::routing_overhead,
          "extra cable to leave a rack and enter another (up, along the tray, down)")
      .range("0 m", "100 m");
  s.field("max_racks", &FabricDesignSpec::max_racks,
          "a stated pod size in racks (floor, power, cooling); 0 = none")
      .range(std::int64_t{0}, std::int64_t{1} << 30);
  s.field("lanes_per_gpu", &FabricDesignSpec::lanes_per_gpu,
          "copper: SerDes lanes per GPU, each carrying lane_rate each direction")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("lane_rate", &FabricDesignSpec::lane_rate, "copper: payload per lane per direction")
      .positive();
  s.field("lane_pitch", &FabricDesignSpec::lane_pitch,
          "copper: die edge one lane needs; 0 = no shoreline limit")
      .min("0 m");
  s.field("shoreline", &FabricDesignSpec::shoreline,
          "copper: die edge available for scale-up lanes; 0 = no shoreline limit")
      .min("0 m");
  s.field("wavelengths_per_fiber", &FabricDesignSpec::wavelengths_per_fiber,
          "optical: WDM wavelengths per fiber")
      .range(std::int64_t{1}, std::int64_t{1024});
  s.field("rate_per_wavelength", &FabricDesignSpec::rate_per_wavelength,
          "optical: payload per wavelength")
      .positive();
  s.field("fibers_per_tile", &FabricDesignSpec::fibers_per_tile, "optical: fibers per CPO tile")
      .range(std::int64_t{1}, std::int64_t{1} << 16);
  s.field("tiles_per_gpu", &FabricDesignSpec::tiles_per_gpu, "optical: CPO tiles per GPU")
      .range(std::int64_t{1}, std::int64_t{1024});
  s.field("direction_share", &FabricDesignSpec::direction_share,
          "optical: share of a fiber's wavelengths carrying each direction")
      .range(0.01, 1.0);
  s.field("fiber_pitch", &FabricDesignSpec::fiber_pitch,
          "optical: fiber attach pitch; 0 = no shoreline limit")
      .min("0 m");
  s.field("tile_shoreline", &FabricDesignSpec::tile_shoreline,
          "optical: tile edge available for fiber attach; 0 = no shoreline limit")
      .min("0 m");
  s.field("switch_radix", &FabricDesignSpec::switch_radix, "ports per switch")
      .range(std::int64_t{2}, std::int64_t{1} << 30);
  s.field("port_rate", &FabricDesignSpec::port_rate, "switch port rate per direction").positive();
  s.field("links_per_gpu", &FabricDesignSpec::links_per_gpu, "switch ports each GPU uses")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("switch_planes", &FabricDesignSpec::switch_planes,
          "independent switch planes; 0 = links_per_gpu (one link per plane)")
      .range(std::int64_t{0}, std::int64_t{1} << 20);
  s.field("switch_levels", &FabricDesignSpec::switch_levels,
          "folded-Clos levels per plane (1 = one switch)")
      .range(std::int64_t{1}, std::int64_t{3});
  s.field("serdes_energy", &FabricDesignSpec::serdes_energy,
          "GPU-end SerDes energy per bit, per end")
      .min("0 pJ/bit");
  s.field("retimer_energy", &FabricDesignSpec::retimer_energy, "energy per bit per retimer")
      .min("0 pJ/bit");
  s.field("retimers_per_link", &FabricDesignSpec::retimers_per_link,
          "retimers on each GPU-switch or switch-switch link")
      .range(0.0, 16.0);
  s.field("switch_energy", &FabricDesignSpec::switch_energy,
          "switch ASIC energy per bit per traversal, its SerDes included")
      .min("0 pJ/bit");
  s.field("optical_engine_energy", &FabricDesignSpec::optical_engine_energy,
          "optical: engine energy per bit per link (modulator drive, TIA), laser excluded")
      .min("0 pJ/bit");
  s.field("laser_energy", &FabricDesignSpec::laser_energy,
          "optical: laser wall-plug energy per bit per link")
      .min("0 pJ/bit");
  s.rule([](const FabricDesignSpec& d) -> std::optional<std::string> {
    const std::int64_t planes = d.switch_planes ? d.switch_planes : d.links_per_gpu;
    if (d.links_per_gpu % planes != 0)
      return fmt::format("links_per_gpu ({}) must be a multiple of switch_planes ({})",
                         d.links_per_gpu, planes);
    return std::nullopt;
  });
}

std::int64_t clos_endpoints(std::int64_t radix, std::int64_t levels) {
  // 2 (k/2)^L in doubles, saturated: radix and levels are bounded by describe().
  const double n = 2.0 * std::pow(static_cast<double>(radix) / 2.0, static_cast<double>(levels));
  constexpr double kCap = 4.611686018427388e18;  // 2^62
  return n >= kCap ? static_cast<std::int64_t>(kCap) : static_cast<std::int64_t>(std::floor(n));
}

std::int64_t racks_within_reach(const FabricDesignSpec& d) {
  const double reach = d.reach.si();
  if (d.in_rack_cable.si() > reach) return 0;
  const double spare = reach - d.routing_overhead.si();  // cable left to cross the floor
  if (spare < 0) return 1;
  // Rows j = -J..J; in row j, racks i with |i| rack_pitch <= spare - |j| row_pitch.
  const auto rows = static_cast<std::int64_t>(std::floor(spare / d.row_pitch.si() + 1e-9));
  std::int64_t racks = 0;
  for (std::int64_t j = -rows; j <= rows; ++j) {
    const double left = spare - static_cast<double>(std::llabs(j)) * d.row_pitch.si();
    racks += 2 * static_cast<std::int64_t>(std::floor(left / d.rack_pitch.si() + 1e-9)) + 1;
  }
  return racks;  // the central rack is the (0, 0) term
}

namespace {

std::int64_t floor_ratio(double a, double b) {
  return static_cast<std::int64_t>(std::floor(a / b + 1e-9));
}

std::int64_t saturating_product(std::int64_t a, std::int64_t b) {
  constexpr std::int64_t kCap = std::int64_t{1} << 62;
  return (a != 0 && b > kCap / a) ? kCap : a * b;
}

}  // namespace

double link_power(const FabricDesign& design, double bandwidth) {
  return 8 * bandwidth * design.energy_per_bit;
}

FabricDesign derive_design(const FabricDesignSpec& d) {
  FabricDesign r;
  // Bandwidth per GPU per direction: the endpoint's I/O, then the switch ports it plugs into.
  if (d.medium == LinkMedium::copper) {
    r.lanes_used = d.lanes_per_gpu;
    if (d.lane_pitch.si() > 0 && d.shoreline.si() > 0)
      r.lanes_used = std::min(r.lanes_used, floor_ratio(d.shoreline.si(), d.lane_pitch.si()));
    r.endpoint_bandwidth = static_cast<double>(r.lanes_used) * d.lane_rate.si();
    r.bandwidth_bound = r.lanes_used < d.lanes_per_gpu ? "endpoint shoreline" : "endpoint I/O";
  } else {
    r.fibers_used = d.fibers_per_tile;
    if (d.fiber_pitch.si() > 0 && d.tile_shoreline.si() > 0)
      r.fibers_used =
          std::min(r.fibers_used, floor_ratio(d.tile_shoreline.si(), d.fiber_pitch.si()));
    r.endpoint_bandwidth = static_cast<double>(d.tiles_per_gpu * r.fibers_used) *
                           static_cast<double>(d.wavelengths_per_fiber) *
                           d.rate_per_wavelength.si() * d.direction_share;
    r.bandwidth_bound = r.fibers_used < d.fibers_per_tile ? "endpoint shoreline" : "endpoint I/O";
  }
  r.switch_bandwidth = static_cast<double>(d.links_per_gpu) * d.port_rate.si();
  r.bandwidth = r.endpoint_bandwidth;
  if (r.switch_bandwidth < r.endpoint_bandwidth) {
    r.bandwidth = r.switch_bandwidth;
    r.bandwidth_bound = "switch ports";
  }
  LIGHTSIM_CHECK_AS(InputError, r.bandwidth > 0,
                    "the shoreline leaves no {} per GPU (shoreline / pitch < 1)",
                    d.medium == LinkMedium::copper ? "lane" : "fiber");
  r.bandwidth_bidirectional = 2 * r.bandwidth;

  // Domain: reach x rack, radix x levels x planes, and a stated pod size.
  r.racks_within_reach = racks_within_reach(d);
  LIGHTSIM_CHECK_AS(InputError, r.racks_within_reach > 0,
                    "reach {} is shorter than in_rack_cable {}: no GPU reaches a switch",
                    to_string(d.reach), to_string(d.in_rack_cable));
  r.domain_by_reach = saturating_product(r.racks_within_reach, d.gpus_per_rack);
  const std::int64_t planes = d.switch_planes ? d.switch_planes : d.links_per_gpu;
  const std::int64_t links_per_plane = d.links_per_gpu / planes;
  r.domain_by_radix = clos_endpoints(d.switch_radix, d.switch_levels) / links_per_plane;
  r.domain_by_racks = d.max_racks ? saturating_product(d.max_racks, d.gpus_per_rack) : 0;
  r.domain = std::min(r.domain_by_reach, r.domain_by_radix);
  if (r.domain_by_racks) r.domain = std::min(r.domain, r.domain_by_racks);
  if (r.domain_by_reach == r.domain) r.binding.emplace_back("reach");
  if (r.domain_by_radix == r.domain) r.binding.emplace_back("radix");
  if (r.domain_by_racks == r.domain) r.binding.emplace_back("racks");
  r.racks = (r.domain + d.gpus_per_rack - 1) / d.gpus_per_rack;
  r.aggregate_bandwidth = static_cast<double>(r.domain) * r.bandwidth_bidirectional;

  // Levels a plane needs for the domain, and its switches: a folded Clos of L levels with N
  // endpoints uses (2L - 1) N / k switches (N / (k/2) per lower level, N / k at the top).
  r.switch_levels_used = 1;
  const std::int64_t endpoints = r.domain * links_per_plane;
  while (clos_endpoints(d.switch_radix, r.switch_levels_used) < endpoints) ++r.switch_levels_used;
  const auto L = r.switch_levels_used;
  const double per_plane =
      L == 1 ? 1.0
             : std::ceil(static_cast<double>(2 * L - 1) * static_cast<double>(endpoints) /
                         static_cast<double>(d.switch_radix));
  r.switches = saturating_product(
      per_plane >= 4.6e18 ? std::int64_t{1} << 62 : static_cast<std::int64_t>(per_plane), planes);

  // Energy per bit along the longest path: two GPU SerDes ends, 2L links, 2L - 1 switches.
  const double link =
      d.retimers_per_link * d.retimer_energy.si() / 8 +
      (d.medium == LinkMedium::optical ? (d.optical_engine_energy.si() + d.laser_energy.si()) / 8
                                       : 0.0);
  r.energy_per_bit = 2 * d.serdes_energy.si() / 8 + static_cast<double>(2 * L) * link +
                     static_cast<double>(2 * L - 1) * d.switch_energy.si() / 8;
  r.power_per_gpu = link_power(r, r.bandwidth);
  r.power_per_domain = static_cast<double>(r.domain) * r.power_per_gpu;
  return r;
}

}  // namespace lightsim::fabric
