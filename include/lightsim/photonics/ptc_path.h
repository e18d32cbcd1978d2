// Insertion loss along a photonic-tensor-core path, node by node: the device nodes (modulator,
// microring router, Y-branch, phase shifter, directional coupler, and the MZI built of two
// directional couplers and a phase shifter) and the critical paths of published cores built
// from them (docs/photonics.md, "Photonic-tensor-core paths").
//
// Sources: Lightening-Transformer (H. Zhu et al., "Lightening-Transformer: A Dynamically-
// operated Optically-interconnected Photonic Transformer Accelerator", HPCA 2024,
// arXiv:2305.19533) and its authors' simulator, github.com/zhuhanqing/Lightening-Transformer,
// hardware_simulator/hardware/photonic_crossbar.py (DPTC) and photonic_MZI.py (MZI mesh),
// cal_insertion_loss, commit 642cab0.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/units.h"

namespace lightsim::photonics {

// Insertion loss of each device node, dB (configs/references/lightening_transformer.yaml).
struct PtcDeviceSpec {
  static constexpr std::string_view kind = "ptc_devices";
  Decibel modulator = Decibel::si(0.0);            // input MZM
  Decibel ring_router = Decibel::si(0.0);          // microring WDM mux or demux, one pass
  Decibel y_branch = Decibel::si(0.0);             // 1x2 splitter stage
  Decibel phase_shifter = Decibel::si(0.0);        // one arm's phase shifter
  Decibel directional_coupler = Decibel::si(0.0);  // one 2x2 coupler
  static void describe(config::Schema<PtcDeviceSpec>& s);
};

// A published path to reproduce (configs/references/lightening_transformer.yaml): the device
// losses, the core size and the published totals, each with its source.
struct PtcPathReference {
  static constexpr std::string_view kind = "ptc_path_reference";
  std::string source;
  PtcDeviceSpec devices;
  std::int64_t core_height = 1, core_width = 1;
  Decibel dptc_total = Decibel::si(0.0);      // the DPTC critical path
  Decibel mzi_node = Decibel::si(0.0);        // one MZI
  Decibel mzi_mesh_total = Decibel::si(0.0);  // the MZI-mesh baseline's longest path
  static void describe(config::Schema<PtcPathReference>& s);
};

struct PathNode {
  std::string name;
  double loss_db = 0;  // per node
  int count = 0;       // nodes of this kind on the path
};

struct InsertionPath {
  std::vector<PathNode> nodes;
  double total_db() const;  // sum of loss_db x count
};

// An MZI: two directional couplers and one phase shifter on the path, 2 DC + PS.
double mzi_loss_db(const PtcDeviceSpec& d);

// Lightening-Transformer's DPTC (dynamically-operated crossbar) critical path for an
// Nh x Nw core: the input modulator, the WDM mux and demux rings (2 ring_router), the 1:N
// Y-branch tree, N = max(Nh, Nw), of ceil(log2 N) stages, then one DDOT node: a Y-branch, a
// phase shifter and a directional coupler.
InsertionPath dptc_path(const PtcDeviceSpec& d, int core_height, int core_width);
// The MZI-mesh baseline of the same paper (Clements mesh, Nh x Nw): the input modulator and
// Nh + Nw + 1 MZIs on the longest path.
InsertionPath mzi_mesh_path(const PtcDeviceSpec& d, int core_height, int core_width);

}  // namespace lightsim::photonics
