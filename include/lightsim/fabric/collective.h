// Collective communication cost: alpha-beta models per tier over a group of GPUs packed
// contiguously on a Topology (docs/fabric.md, "Collectives").
//
// `bytes` follows nccl-tests: the per-GPU buffer for all-reduce, the total (input of
// reduce-scatter, output of all-gather) for reduce-scatter and all-gather, the per-GPU send
// buffer for all-to-all, the message for send/recv. algbw = bytes / time; busbw = algbw x
// 2(n-1)/n (all-reduce), x (n-1)/n (reduce-scatter, all-gather, all-to-all), x 1 (send/recv).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lightsim/fabric/topology.h"

namespace lightsim::fabric {

enum class CollectiveOp { all_reduce, reduce_scatter, all_gather, all_to_all, send_recv };
// in_switch = NCCL NVLS, in_switch_tree = NVLS-tree (docs/fabric.md, "Collectives").
enum class Algorithm { automatic, ring, tree, in_switch, hierarchical, direct, in_switch_tree };

std::string_view op_name(CollectiveOp op);
std::string_view algorithm_name(Algorithm a);
// Parse "all-reduce" / "all_reduce" ... and "ring", "nvls" (= in_switch), "nvls-tree" ...;
// UsageError else.
CollectiveOp parse_op(std::string_view word);
Algorithm parse_algorithm(std::string_view word);
// "auto" (nullopt), "ll" / "LL", "ll128", "simple"; UsageError else.
std::optional<Protocol> parse_protocol(std::string_view word);
double bus_factor(CollectiveOp op, std::int64_t gpus);

struct CollectiveResult {
  bool feasible = false;
  std::string reason;  // why not, when infeasible
  Algorithm algorithm = Algorithm::automatic;
  double time = 0;         // s
  double algbw = 0;        // B/s
  double busbw = 0;        // B/s
  int bounding_tier = -1;  // index into Topology::tiers of the tier that limits bandwidth
  int outer_tier = -1;     // the outermost tier the group spans
  // NCCL protocol of the chosen algorithm when the fabric's NCCL model applies (nccl.h).
  std::optional<Protocol> protocol;
};

// Best available algorithm for `op` on `gpus` GPUs, or the one forced here or by the fabric's
// collective_algorithms (an explicit argument wins), and the protocol NCCL's model picks (or the
// one forced: LL and LL128 exist only across tier-0 domains of a fabric with `nccl`).
// Infeasible results
// (group larger than the machine, algorithm not available) carry the reason; no allocation
// on the feasible path.
CollectiveResult collective(const Topology& topology, CollectiveOp op, std::int64_t gpus,
                            double bytes, Algorithm algorithm = Algorithm::automatic,
                            std::optional<Protocol> protocol = std::nullopt);

}  // namespace lightsim::fabric
