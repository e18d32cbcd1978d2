// Published measurements of collectives (nccl-tests, DeepEP's benchmarks) read from
// configs/references/collectives_measured.yaml (kind "collective_measurements"), and the
// model's figure for each: the collective models are validated against them
// (docs/fabric.md, "Validation against measured collectives").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/fabric/topology.h"

namespace lightsim::fabric {

enum class MeasuredLibrary { nccl, deepep };

struct CollectiveMeasurement {
  static constexpr std::string_view kind = "collective_measurement";
  std::string id;
  MeasuredLibrary library = MeasuredLibrary::nccl;
  std::string fabric;  // configs/fabrics/ name restating the measured system
  // nccl: all_reduce, reduce_scatter, all_gather, all_to_all, send_recv; deepep: dispatch,
  // combine.
  std::string op;
  // nccl: the algorithm the run used or forced (auto = NCCL's choice); deepep: normal or
  // low_latency.
  std::string algorithm = "auto";
  std::int64_t gpus = 0;          // ranks (the EP size for deepep)
  std::optional<DataSize> bytes;  // nccl: the nccl-tests size
  double tokens = 0;              // deepep: tokens per rank
  double experts_per_token = 0;   // deepep: top-k
  std::int64_t hidden = 0;        // deepep: hidden size
  double bytes_per_value = 0;     // deepep: bytes per hidden value, scales included
  std::int64_t max_nodes = 0;     // deepep: node-limited routing (0 = none)
  // Exactly one measured figure: nccl-tests busbw, DeepEP's reported bandwidth, or a latency.
  std::optional<Bandwidth> busbw;
  std::optional<Bandwidth> bandwidth;
  std::optional<Time> latency;
  std::string source;   // URL, table or figure
  std::string text;     // the exact configuration and how the figure is read
  bool fitted = false;  // used to fit a parameter: excluded from the validation error
  static void describe(config::Schema<CollectiveMeasurement>& s);
};

struct CollectiveMeasurementReference {
  static constexpr std::string_view kind = "collective_measurements";
  std::vector<CollectiveMeasurement> measurements;
  static void describe(config::Schema<CollectiveMeasurementReference>& s);
};

// The model's figure for a measurement on `topology` (its fabric), in the measured figure's
// SI unit (B/s or s), with the algorithm or mode that produced it; infeasible with the reason.
struct ModelledMeasurement {
  bool feasible = false;
  std::string reason;
  double value = 0;
  std::string how;  // "ring", "in-switch-tree", "normal, bound scale_out", ...
};
ModelledMeasurement model_measurement(const Topology& topology, const CollectiveMeasurement& m);
// The measured figure in SI units (B/s or s) and its name (busbw, bandwidth, latency).
double measured_value(const CollectiveMeasurement& m);
std::string_view measured_metric(const CollectiveMeasurement& m);

}  // namespace lightsim::fabric
