// Photonic-tensor-core insertion-loss paths (ptc_path.h).
#include "lightsim/photonics/ptc_path.h"

#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"

namespace lightsim::photonics {

void PtcDeviceSpec::describe(config::Schema<PtcDeviceSpec>& s) {
  s.help("Insertion loss per device node of a photonic tensor core (ptc_path.h).");
  s.field("modulator", &PtcDeviceSpec::modulator, "input modulator (MZM)").range("0 dB", "20 dB");
  s.field("ring_router", &PtcDeviceSpec::ring_router, "microring WDM mux or demux, one pass")
      .range("0 dB", "20 dB");
  s.field("y_branch", &PtcDeviceSpec::y_branch, "excess loss of a 1x2 Y-branch stage")
      .range("0 dB", "20 dB");
  s.field("phase_shifter", &PtcDeviceSpec::phase_shifter, "phase shifter").range("0 dB", "20 dB");
  s.field("directional_coupler", &PtcDeviceSpec::directional_coupler, "2x2 directional coupler")
      .range("0 dB", "20 dB");
}

void PtcPathReference::describe(config::Schema<PtcPathReference>& s) {
  s.help("A published photonic-tensor-core insertion-loss path (ptc_path.h); never a model input.");
  s.field("source", &PtcPathReference::source, "where the figures come from").required();
  s.field("devices", &PtcPathReference::devices, "insertion loss per device node");
  s.field("core_height", &PtcPathReference::core_height, "core rows Nh")
      .range(std::int64_t{1}, std::int64_t{1} << 16);
  s.field("core_width", &PtcPathReference::core_width, "core columns Nw")
      .range(std::int64_t{1}, std::int64_t{1} << 16);
  s.field("dptc_total", &PtcPathReference::dptc_total, "published DPTC critical-path loss")
      .range("0 dB", "1000 dB");
  s.field("mzi_node", &PtcPathReference::mzi_node, "published loss of one MZI")
      .range("0 dB", "100 dB");
  s.field("mzi_mesh_total", &PtcPathReference::mzi_mesh_total,
          "published longest-path loss of the MZI-mesh baseline")
      .range("0 dB", "1000 dB");
}

double InsertionPath::total_db() const {
  double sum = 0;
  for (const PathNode& n : nodes) sum += n.loss_db * n.count;
  return sum;
}

double mzi_loss_db(const PtcDeviceSpec& d) {
  return 2.0 * d.directional_coupler.si() + d.phase_shifter.si();
}

InsertionPath dptc_path(const PtcDeviceSpec& d, int core_height, int core_width) {
  LIGHTSIM_CHECK_AS(InputError, core_height > 0 && core_width > 0,
                    "dptc_path: the core must be at least 1 x 1 (got {} x {})", core_height,
                    core_width);
  const int n = std::max(core_height, core_width);
  const int stages = static_cast<int>(std::ceil(std::log2(static_cast<double>(n))));
  return {{{"modulator", d.modulator.si(), 1},
           {"ring_router (WDM mux + demux)", d.ring_router.si(), 2},
           {"y_branch (1:N tree)", d.y_branch.si(), stages},
           {"y_branch (DDOT node)", d.y_branch.si(), 1},
           {"phase_shifter (DDOT node)", d.phase_shifter.si(), 1},
           {"directional_coupler (DDOT node)", d.directional_coupler.si(), 1}}};
}

InsertionPath mzi_mesh_path(const PtcDeviceSpec& d, int core_height, int core_width) {
  LIGHTSIM_CHECK_AS(InputError, core_height > 0 && core_width > 0,
                    "mzi_mesh_path: the core must be at least 1 x 1 (got {} x {})", core_height,
                    core_width);
  return {{{"modulator", d.modulator.si(), 1},
           {"mzi (2 directional couplers + phase shifter)", mzi_loss_db(d),
            core_height + core_width + 1}}};
}

}  // namespace lightsim::photonics
