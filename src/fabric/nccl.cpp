// NCCL tuning constants: spec, validation, compilation and the channel search (nccl.h).
#include "lightsim/fabric/nccl.h"

#include <algorithm>
#include <cmath>

namespace lightsim::fabric {

std::string_view protocol_name(Protocol p) {
  switch (p) {
    case Protocol::ll:
      return "LL";
    case Protocol::ll128:
      return "LL128";
    case Protocol::simple:
      return "Simple";
  }
  return "?";
}

void NcclProtocolLatencySpec::describe(config::Schema<NcclProtocolLatencySpec>& s) {
  s.help("One latency per NCCL protocol (tuning.cc tables: {LL, LL128, Simple}).");
  s.field("ll", &NcclProtocolLatencySpec::ll, "LL protocol").range("0 s", "1 ms");
  s.field("ll128", &NcclProtocolLatencySpec::ll128, "LL128 protocol").range("0 s", "1 ms");
  s.field("simple", &NcclProtocolLatencySpec::simple, "Simple protocol").range("0 s", "1 ms");
}

void NcclAlgorithmLatencySpec::describe(config::Schema<NcclAlgorithmLatencySpec>& s) {
  s.help("Latencies per protocol of the tree, ring and NVLS-tree algorithms.");
  s.field("tree", &NcclAlgorithmLatencySpec::tree, "NCCL_ALGO_TREE");
  s.field("ring", &NcclAlgorithmLatencySpec::ring, "NCCL_ALGO_RING");
  s.field("nvls_tree", &NcclAlgorithmLatencySpec::nvls_tree, "NCCL_ALGO_NVLS_TREE");
}

void NcclNodeBandwidthSpec::describe(config::Schema<NcclNodeBandwidthSpec>& s) {
  s.help("A per-channel bandwidth by node count (tuning.cc's N1 / N2 / N4 columns).");
  s.field("one_node", &NcclNodeBandwidthSpec::one_node, "N1: one node").positive();
  s.field("two_nodes", &NcclNodeBandwidthSpec::two_nodes, "N2: two nodes").positive();
  s.field("more_nodes", &NcclNodeBandwidthSpec::more_nodes, "N4: more than two nodes").positive();
}

void NcclArchSpec::describe(config::Schema<NcclArchSpec>& s) {
  s.help("NCCL constants of one GPU architecture (tuning.cc, search.cc, topo.h).");
  s.field("ring_ll128_per_channel", &NcclArchSpec::ring_ll128_per_channel,
          "ring LL128 bandwidth per channel (perChMaxRingLL128Bws)");
  s.field("tree_per_channel", &NcclArchSpec::tree_per_channel,
          "tree all-reduce bandwidth per channel (perChMaxTreeBws)");
  s.field("tree_ll128_per_channel", &NcclArchSpec::tree_ll128_per_channel,
          "tree LL128 bandwidth per channel (perChMaxTreeLL128Bws)");
  s.field("nvlink_link_bandwidth", &NcclArchSpec::nvlink_link_bandwidth,
          "NVLink bandwidth per link in NCCL's topology (SM90_NVLINK_BW, SM100_NVLINK_BW)")
      .positive();
  s.field("nvlink_link_line_rate", &NcclArchSpec::nvlink_link_line_rate,
          "the link's line rate per direction (NVLink4: 25 GB/s, NVLink5: 50 GB/s)")
      .positive();
  s.field("inter_channel_speeds_gb_s", &NcclArchSpec::inter_channel_speeds_gb_s,
          "per-channel speeds the inter-node search tries, descending, GB/s (search.cc "
          "speedArrayInter)")
      .positive()
      .min_items(1);
  s.rule([](const NcclArchSpec& a) -> std::optional<std::string> {
    const auto& v = a.inter_channel_speeds_gb_s;
    for (std::size_t i = 1; i < v.size(); ++i)
      if (v[i] >= v[i - 1])
        return fmt::format(
            "'inter_channel_speeds_gb_s' must be strictly decreasing: [{}] = {} after {}", i, v[i],
            v[i - 1]);
    return std::nullopt;
  });
}

void NcclTuningSpec::describe(config::Schema<NcclTuningSpec>& s) {
  s.help(
      "NCCL's cost model constants of one release (src/graph/tuning.cc, search.cc, topo.h): "
      "latencies per algorithm and protocol, protocol bandwidth fractions, per-channel caps "
      "and the channel search (docs/fabric.md, \"NCCL's protocols and channels\").");
  s.field("name", &NcclTuningSpec::name, "display name");
  s.field("version", &NcclTuningSpec::version, "NCCL release the constants are read from")
      .required();
  s.field("source", &NcclTuningSpec::source, "repository, files and commit").required();
  s.field("base_latency", &NcclTuningSpec::base_latency, "per-call latency (baseLatencies)");
  s.field("nvlink_step_latency", &NcclTuningSpec::nvlink_step_latency,
          "latency per NVLink step (hwLatencies[NCCL_HW_NVLINK])");
  s.field("net_step_latency", &NcclTuningSpec::net_step_latency,
          "latency per network step (hwLatencies[NCCL_HW_NET])");
  s.field("net_overhead", &NcclTuningSpec::net_overhead,
          "per-step network post overhead, Intel and non-x86 hosts (getNetOverhead)")
      .range("0 s", "1 ms");
  s.field("net_overhead_amd", &NcclTuningSpec::net_overhead_amd,
          "per-step network post overhead, AMD hosts")
      .range("0 s", "1 ms");
  s.field("simple_net_overhead_factor", &NcclTuningSpec::simple_net_overhead_factor,
          "net overhead multiplier for Simple")
      .range(1.0, 100.0);
  s.field("ring_simple_plateau", &NcclTuningSpec::ring_simple_plateau,
          "ring/Simple latency factor across nodes (ncclTopoGetAlgoTime)")
      .range(1.0, 10.0);
  s.field("ring_ll_fraction", &NcclTuningSpec::ring_ll_fraction, "ring LL busBw x this")
      .range(0.01, 1.0);
  s.field("ring_ll128_fraction", &NcclTuningSpec::ring_ll128_fraction,
          "ring LL128 busBw x this (120/128 payload)")
      .range(0.01, 1.0);
  s.field("tree_fraction", &NcclTuningSpec::tree_fraction, "tree all-reduce busBw x this")
      .range(0.01, 1.0);
  s.field("tree_ll_fraction", &NcclTuningSpec::tree_ll_fraction, "tree LL busBw x this")
      .range(0.01, 1.0);
  s.field("tree_ll128_fraction", &NcclTuningSpec::tree_ll128_fraction,
          "tree LL128 busBw x this across nodes")
      .range(0.01, 1.0);
  s.field("ll_max", &NcclTuningSpec::ll_max, "LL bus bandwidth ceiling, Intel / non-x86 hosts");
  s.field("ll_max_amd", &NcclTuningSpec::ll_max_amd, "LL bus bandwidth ceiling, AMD hosts");
  for (auto [key, member] :
       {std::pair{"tree_correction_ll", &NcclTuningSpec::tree_correction_ll},
        std::pair{"tree_correction_ll128", &NcclTuningSpec::tree_correction_ll128},
        std::pair{"tree_correction_simple", &NcclTuningSpec::tree_correction_simple}})
    s.field(key, member,
            "tree all-reduce bandwidth factor per power of two of size/64 B, 64 B first "
            "(treeCorrectionFactor)")
        .range(0.01, 1.0)
        .min_items(1);
  s.field("max_search_channels", &NcclTuningSpec::max_search_channels,
          "channels the ring search may find (MAXCHANNELS / 2)")
      .range(1, 64);
  s.field("gpu_nic_path_bandwidth", &NcclTuningSpec::gpu_nic_path_bandwidth,
          "GPU-NIC path bandwidth in NCCL's topology (PCIe Gen5 x16)")
      .positive();
  s.field("dup_min_speed", &NcclTuningSpec::dup_min_speed,
          "channels are not duplicated below this per-channel speed")
      .positive();
  s.field("dup_full_speed", &NcclTuningSpec::dup_full_speed,
          "below this speed, more than dup_max_channels channels are not duplicated")
      .positive();
  s.field("dup_max_channels", &NcclTuningSpec::dup_max_channels, "see dup_full_speed").range(0, 64);
  s.field("hopper", &NcclTuningSpec::hopper, "constants for compute capability 9.x");
  s.field("blackwell", &NcclTuningSpec::blackwell, "constants for compute capability 10.x");
}

void NcclUseSpec::describe(config::Schema<NcclUseSpec>& s) {
  s.help("The NCCL whose cost model a fabric's multi-node collectives follow.");
  s.field("tuning", &NcclUseSpec::tuning, "NCCL constants (configs/nccl/)");
  s.field("arch", &NcclUseSpec::arch, "GPU architecture index of the constants")
      .one_of({"hopper", "blackwell"});
  s.field("host_cpu", &NcclUseSpec::host_cpu, "host CPU vendor (net overhead, LL ceiling)")
      .one_of({"intel", "arm", "amd"});
}

namespace {

NcclModel::PerProtocol per_protocol(const NcclProtocolLatencySpec& l) {
  return {l.ll.si(), l.ll128.si(), l.simple.si()};
}
std::array<double, 3> per_nodes(const NcclNodeBandwidthSpec& b) {
  return {b.one_node.si(), b.two_nodes.si(), b.more_nodes.si()};
}

}  // namespace

NcclModel compile_nccl(const NcclUseSpec& use, double nvlink_bandwidth, double nic_bandwidth,
                       std::int64_t gpus_per_domain) {
  const NcclTuningSpec& n = use.tuning.get();
  const std::optional<NcclArchSpec>& arch = use.arch == "blackwell" ? n.blackwell : n.hopper;
  LIGHTSIM_CHECK_AS(ConfigError, arch.has_value(),
                    "nccl.arch: '{}' has no constants in '{}' ({}); add a '{}' section", use.arch,
                    use.tuning.name(), use.tuning.file().string(), use.arch);
  const bool amd = use.host_cpu == "amd";
  NcclModel m;
  m.base_tree = per_protocol(n.base_latency.tree);
  m.base_ring = per_protocol(n.base_latency.ring);
  m.base_nvls_tree = per_protocol(n.base_latency.nvls_tree);
  m.nvlink_tree = per_protocol(n.nvlink_step_latency.tree);
  m.nvlink_ring = per_protocol(n.nvlink_step_latency.ring);
  m.nvlink_nvls_tree = per_protocol(n.nvlink_step_latency.nvls_tree);
  m.net_tree = per_protocol(n.net_step_latency.tree);
  m.net_ring = per_protocol(n.net_step_latency.ring);
  m.net_nvls_tree = per_protocol(n.net_step_latency.nvls_tree);
  m.net_overhead = amd ? n.net_overhead_amd.si() : n.net_overhead.si();
  m.simple_net_overhead_factor = n.simple_net_overhead_factor;
  m.ring_simple_plateau = n.ring_simple_plateau;
  m.ring_ll_fraction = n.ring_ll_fraction;
  m.ring_ll128_fraction = n.ring_ll128_fraction;
  m.tree_fraction = n.tree_fraction;
  m.tree_ll_fraction = n.tree_ll_fraction;
  m.tree_ll128_fraction = n.tree_ll128_fraction;
  const NcclNodeBandwidthSpec& ll = amd ? n.ll_max_amd : n.ll_max;
  m.ll_max = {ll.two_nodes.si(), ll.more_nodes.si()};
  m.ring_ll128_per_channel = per_nodes(arch->ring_ll128_per_channel);
  m.tree_per_channel = per_nodes(arch->tree_per_channel);
  m.tree_ll128_per_channel = per_nodes(arch->tree_ll128_per_channel);
  m.tree_correction = {n.tree_correction_ll, n.tree_correction_ll128, n.tree_correction_simple};

  // The channel search (search.cc ncclTopoCompute), as it ends on a node whose GPUs each have
  // one NIC: the speed is the first of the architecture's speeds at most the GPU-NIC path
  // (min of the NIC and PCIe); channels are added at that speed until their total reaches the
  // GPU's NVLink total (getTotalBw) or the search's channel limit, one NIC per channel.
  const double nvlink_total =
      nvlink_bandwidth / arch->nvlink_link_line_rate.si() * arch->nvlink_link_bandwidth.si();
  const double path = std::min(nic_bandwidth, n.gpu_nic_path_bandwidth.si());
  double speed = arch->inter_channel_speeds_gb_s.back() * 1e9;
  for (double v : arch->inter_channel_speeds_gb_s)
    if (v * 1e9 <= path * (1 + 1e-9)) {
      speed = v * 1e9;
      break;
    }
  double channels =
      std::min({static_cast<double>(n.max_search_channels), std::ceil(nvlink_total / speed - 1e-9),
                static_cast<double>(gpus_per_domain)});
  channels = std::max(channels, 1.0);
  // ncclTopoDupChannels: x2 channels at half the speed, unless the speed is low.
  const bool dup =
      speed >= n.dup_min_speed.si() &&
      !(speed < n.dup_full_speed.si() && channels > static_cast<double>(n.dup_max_channels));
  if (dup) {
    const double doubled = std::min(2 * channels, static_cast<double>(n.max_search_channels));
    speed /= std::ceil(doubled / channels);
    channels = doubled;
  }
  m.channels = channels;
  m.channel_speed = speed;
  return m;
}

}  // namespace lightsim::fabric
