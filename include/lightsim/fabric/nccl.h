// NCCL's own cost model for multi-node collectives (kind "nccl_tuning", presets in
// configs/nccl/; docs/fabric.md, "NCCL's protocols and channels").
//
// NCCL picks, per collective and size, the algorithm (ring, tree, NVLS-tree) and protocol
// (LL, LL128, Simple) whose modelled time `latency + size / bandwidth` is least
// (src/graph/tuning.cc, ncclTopoTuneModel and ncclTopoGetAlgoTime). Its latencies are
// constants per algorithm and protocol (a base, plus a hardware latency per NVLink or network
// step); its bandwidths are the topology search's channels times a per-channel speed, cut by
// per-protocol fractions and capped per channel (a channel is one CTA; a CTA running a
// protocol moves at most so many GB/s). An NcclTuningSpec holds those constants as published
// in one NCCL release, each cited in the preset file; a fabric names the preset and its GPU
// architecture (FabricSpec::nccl), and build_topology compiles them (NcclModel) together with
// the channel count the search would find on that fabric.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/config_ref.h"

namespace lightsim::fabric {

// NCCL's protocols, in its order (NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE).
enum class Protocol : std::uint8_t { ll, ll128, simple };
constexpr std::size_t kProtocols = 3;
std::string_view protocol_name(Protocol p);

// One latency per protocol (tuning.cc tables are {LL, LL128, Simple}).
struct NcclProtocolLatencySpec {
  static constexpr std::string_view kind = "nccl_protocol_latency";
  Time ll = Time::si(0.0);
  Time ll128 = Time::si(0.0);
  Time simple = Time::si(0.0);
  static void describe(config::Schema<NcclProtocolLatencySpec>& s);
};

// Latencies of the algorithms lightsim runs across nodes.
struct NcclAlgorithmLatencySpec {
  static constexpr std::string_view kind = "nccl_algorithm_latency";
  NcclProtocolLatencySpec tree{};
  NcclProtocolLatencySpec ring{};
  NcclProtocolLatencySpec nvls_tree{};
  static void describe(config::Schema<NcclAlgorithmLatencySpec>& s);
};

// A per-channel bandwidth by node count, as tuning.cc indexes it (N1 / N2 / N4: one node, two
// nodes, more than two).
struct NcclNodeBandwidthSpec {
  static constexpr std::string_view kind = "nccl_node_bandwidth";
  Bandwidth one_node = Bandwidth::si(1e9);
  Bandwidth two_nodes = Bandwidth::si(1e9);
  Bandwidth more_nodes = Bandwidth::si(1e9);
  static void describe(config::Schema<NcclNodeBandwidthSpec>& s);
};

// The constants of one GPU architecture (tuning.cc's compute-capability index; search.cc's
// speed array; topo.h's NVLink bandwidth per link).
struct NcclArchSpec {
  static constexpr std::string_view kind = "nccl_arch";
  NcclNodeBandwidthSpec ring_ll128_per_channel{};  // perChMaxRingLL128Bws
  NcclNodeBandwidthSpec tree_per_channel{};        // perChMaxTreeBws
  NcclNodeBandwidthSpec tree_ll128_per_channel{};  // perChMaxTreeLL128Bws
  // NVLink bandwidth per link as NCCL counts it (SM90_NVLINK_BW, SM100_NVLINK_BW) and the
  // link's line rate per direction: a GPU's NVLink total in NCCL's units is its per-direction
  // scale-up bandwidth / line rate x NCCL's per-link figure.
  Bandwidth nvlink_link_bandwidth = Bandwidth::si(20.6e9);
  Bandwidth nvlink_link_line_rate = Bandwidth::si(25e9);
  // Per-channel speeds the inter-node search tries, descending, in GB/s (1e9 B/s).
  std::vector<double> inter_channel_speeds_gb_s{};
  static void describe(config::Schema<NcclArchSpec>& s);
};

struct NcclTuningSpec {
  static constexpr std::string_view kind = "nccl_tuning";
  static constexpr std::string_view preset_dir = "nccl";
  std::string name;
  std::string version;                             // NCCL release the constants are read from
  std::string source;                              // repository, files, commit
  NcclAlgorithmLatencySpec base_latency{};         // baseLatencies
  NcclAlgorithmLatencySpec nvlink_step_latency{};  // hwLatencies[NCCL_HW_NVLINK]
  NcclAlgorithmLatencySpec net_step_latency{};     // hwLatencies[NCCL_HW_NET]
  // Per-step cost of posting a network operation (getNetOverhead: 1 us on Intel and non-x86
  // hosts, 2 us on AMD); x3 for Simple. Ring steps inside a node cost at least this.
  Time net_overhead = Time::si(1e-6);
  Time net_overhead_amd = Time::si(2e-6);
  double simple_net_overhead_factor = 3.0;
  // Ring/Simple latency x this across nodes once chunks reach 64 B (the ring "plateau",
  // ncclTopoGetAlgoTime; 1.4 from compute capability 8.0).
  double ring_simple_plateau = 1.4;
  // Bandwidth refinements (tuning.cc "Various model refinements").
  double ring_ll_fraction = 0.5;
  double ring_ll128_fraction = 0.92;
  double tree_fraction = 0.92;
  double tree_ll_fraction = 1.0 / 3.8;
  double tree_ll128_fraction = 120.0 / 128.0;  // more than one node
  // LL bus bandwidth ceiling across nodes, by host CPU (llMaxBws rows Intel / AMD; N2, N4).
  NcclNodeBandwidthSpec ll_max{};
  NcclNodeBandwidthSpec ll_max_amd{};
  // Tree all-reduce bandwidth x factor per power of two of size / 64 B (treeCorrectionFactor,
  // 64 B ... 256 MB; larger sizes: 1).
  std::vector<double> tree_correction_ll{};
  std::vector<double> tree_correction_ll128{};
  std::vector<double> tree_correction_simple{};
  // Channel search: the ring graph searches at most this many channels (MAXCHANNELS / 2,
  // init.cc); a GPU-NIC path carries at most gpu_nic_path_bandwidth (PCIe Gen5 x16 in NCCL's
  // units); channels are duplicated (x2 at half the speed) unless the speed is below
  // dup_min_speed, or below dup_full_speed with more than dup_max_channels channels
  // (ncclTopoDupChannels).
  std::int64_t max_search_channels = 32;
  Bandwidth gpu_nic_path_bandwidth = Bandwidth::si(48e9);
  Bandwidth dup_min_speed = Bandwidth::si(25e9);
  Bandwidth dup_full_speed = Bandwidth::si(50e9);
  std::int64_t dup_max_channels = 4;
  std::optional<NcclArchSpec> hopper;
  std::optional<NcclArchSpec> blackwell;
  static void describe(config::Schema<NcclTuningSpec>& s);
};

// What a fabric says about the NCCL that runs on it.
struct NcclUseSpec {
  static constexpr std::string_view kind = "nccl_use";
  config::Ref<NcclTuningSpec> tuning = "nccl_2_30";
  std::string arch = "hopper";     // hopper | blackwell: the GPU's tuning.cc index
  std::string host_cpu = "intel";  // intel | arm | amd: net overhead and the LL ceiling
  static void describe(config::Schema<NcclUseSpec>& s);
};

// Compiled for evaluation: SI doubles (s, B/s), indexed by Protocol.
struct NcclModel {
  using PerProtocol = std::array<double, kProtocols>;
  PerProtocol base_tree{}, base_ring{}, base_nvls_tree{};
  PerProtocol nvlink_tree{}, nvlink_ring{}, nvlink_nvls_tree{};
  PerProtocol net_tree{}, net_ring{}, net_nvls_tree{};
  double net_overhead = 0, simple_net_overhead_factor = 3, ring_simple_plateau = 1.4;
  double ring_ll_fraction = 0.5, ring_ll128_fraction = 0.92, tree_fraction = 0.92;
  double tree_ll_fraction = 1 / 3.8, tree_ll128_fraction = 0.9375;
  std::array<double, 2> ll_max{};  // two nodes, more
  std::array<double, 3> ring_ll128_per_channel{}, tree_per_channel{}, tree_ll128_per_channel{};
  std::array<std::vector<double>, kProtocols> tree_correction;
  // From the channel search on this fabric (NVLink domain = tier 0, NICs on tier 1).
  double channels = 1;       // ring and tree graph channels (tree uses the ring's count)
  double channel_speed = 0;  // B/s per channel after duplication

  // tuning.cc's node-count index: 0 (one node), 1 (two), 2 (more).
  static std::size_t node_index(double nodes) { return nodes <= 1 ? 0 : nodes <= 2 ? 1 : 2; }
};

// Compiles `use` for a fabric whose GPUs have `nvlink_bandwidth` per direction inside a
// domain of `gpus_per_domain` and one NIC of `nic_bandwidth` each; ConfigError naming the key
// when the preset lacks the architecture.
NcclModel compile_nccl(const NcclUseSpec& use, double nvlink_bandwidth, double nic_bandwidth,
                       std::int64_t gpus_per_domain);

}  // namespace lightsim::fabric
