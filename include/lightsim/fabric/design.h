// The scale-up domain from first principles (kind "fabric_design", presets in
// configs/fabric_designs/): bandwidth per GPU, GPUs reachable in one domain from link reach and
// from switch radix, the binding limit, and fabric power, all derived from physical inputs
// (docs/fabric.md, "Designing a scale-up domain").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"

namespace lightsim::fabric {

enum class LinkMedium { copper, optical };

struct FabricDesignSpec {
  static constexpr std::string_view kind = "fabric_design";
  static constexpr std::string_view preset_dir = "fabric_designs";
  std::string name{};
  std::string description{};
  LinkMedium medium = LinkMedium::copper;

  // Floor plan and reach.
  Length reach = Length::si(1.0);             // longest GPU-to-switch cable the medium allows
  std::int64_t gpus_per_rack = 72;            // GPUs one rack holds (power, cooling, trays)
  Length in_rack_cable = Length::si(1.0);     // longest GPU-to-switch run inside one rack
  Length rack_pitch = Length::si(0.6);        // rack centre to centre along a row
  Length row_pitch = Length::si(2.4);         // row centre to centre (rack depth + aisle)
  Length routing_overhead = Length::si(3.0);  // extra cable to leave one rack and enter another
  std::int64_t max_racks = 0;                 // a stated pod size in racks; 0 = none

  // Electrical endpoint I/O (copper): SerDes lanes, each carrying lane_rate each direction.
  std::int64_t lanes_per_gpu = 36;
  Bandwidth lane_rate = Bandwidth::si(200e9 / 8);
  Length lane_pitch = Length::si(0.0);  // die edge per lane; 0 = no shoreline limit
  Length shoreline = Length::si(0.0);   // die edge for scale-up I/O; 0 = no shoreline limit

  // Optical endpoint I/O (co-packaged optics): wavelengths in fibers in tiles.
  std::int64_t wavelengths_per_fiber = 16;
  Bandwidth rate_per_wavelength = Bandwidth::si(100e9 / 8);  // payload per wavelength
  std::int64_t fibers_per_tile = 64;
  std::int64_t tiles_per_gpu = 2;
  double direction_share = 0.5;          // share of a fiber's wavelengths carrying each direction
  Length fiber_pitch = Length::si(0.0);  // fiber attach pitch; 0 = no shoreline limit
  Length tile_shoreline = Length::si(0.0);  // tile edge for fibers; 0 = no shoreline limit

  // Switches: planes of folded-Clos networks of radix-port switches.
  std::int64_t switch_radix = 72;                  // ports per switch
  Bandwidth port_rate = Bandwidth::si(400e9 / 8);  // per port per direction
  std::int64_t links_per_gpu = 18;                 // switch ports each GPU uses (one per plane)
  std::int64_t switch_planes = 0;                  // independent switch planes; 0 = links_per_gpu
  std::int64_t switch_levels = 1;  // levels of each plane (1: a single switch per plane)

  // Energy per bit moved one way (docs/fabric.md lists each source).
  EnergyPerByte serdes_energy = EnergyPerByte::si(8 * 4e-12);  // GPU-end SerDes, per end
  EnergyPerByte retimer_energy = EnergyPerByte::si(8 * 3.35e-12);
  double retimers_per_link = 0;
  EnergyPerByte switch_energy = EnergyPerByte::si(8 * 9.77e-12);       // per switch traversal
  EnergyPerByte optical_engine_energy = EnergyPerByte::si(8 * 4e-12);  // per optical link
  EnergyPerByte laser_energy = EnergyPerByte::si(8 * 1.5e-12);         // per optical link

  static void describe(config::Schema<FabricDesignSpec>& s);
};

// What a design allows; bandwidths in B/s, powers in W, energies in J/bit.
struct FabricDesign {
  // Bandwidth per GPU.
  double endpoint_bandwidth = 0;  // per direction, from lanes or fibers (after shoreline)
  double switch_bandwidth = 0;    // per direction, links_per_gpu x port_rate
  double bandwidth = 0;           // per direction: the smaller of the two
  double bandwidth_bidirectional = 0;
  std::string bandwidth_bound{};  // "endpoint I/O", "endpoint shoreline" or "switch ports"
  std::int64_t lanes_used = 0;    // copper: lanes after the shoreline limit
  std::int64_t fibers_used = 0;   // optical: fibers per tile after the shoreline limit
  // Domain size.
  std::int64_t racks_within_reach = 0;
  std::int64_t domain_by_reach = 0;
  std::int64_t domain_by_radix = 0;
  std::int64_t domain_by_racks = 0;  // 0: no stated pod size
  std::int64_t domain = 0;
  std::vector<std::string> binding{};   // the limits equal to `domain`: reach, radix, racks
  std::int64_t racks = 0;               // racks the domain fills
  double aggregate_bandwidth = 0;       // domain x bidirectional bandwidth
  std::int64_t switch_levels_used = 0;  // levels a plane needs for `domain` (<= switch_levels)
  std::int64_t switches = 0;            // all planes
  // Power at full load.
  double energy_per_bit = 0;  // J/bit along the longest path
  double power_per_gpu = 0;
  double power_per_domain = 0;
};

// GPUs one plane of radix-k switches in L folded-Clos levels joins: 2 (k/2)^L (Al-Fares et
// al. 2008); saturates at 2^62.
std::int64_t clos_endpoints(std::int64_t radix, std::int64_t levels);
// Racks whose cable run to a central rack's switch is within reach: the central rack if its
// in-rack run fits, plus every rack (i, j) of the grid with
// routing_overhead + |i| rack_pitch + |j| row_pitch <= reach.
// At most 2 reach / row_pitch + 1 rows are visited (<= 2e6 within describe()'s ranges).
std::int64_t racks_within_reach(const FabricDesignSpec& d);
// W per GPU of a design's links and switches carrying `bandwidth` B/s per direction (each bit
// of the GPU's egress counted once along the longest path): 8 x bandwidth x energy_per_bit.
double link_power(const FabricDesign& design, double bandwidth);
// Throws InputError when the reach is shorter than the in-rack cable (no domain at all).
FabricDesign derive_design(const FabricDesignSpec& d);

std::string_view medium_name(LinkMedium m);

}  // namespace lightsim::fabric
