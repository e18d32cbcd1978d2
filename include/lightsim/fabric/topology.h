// Scale-up and scale-out networks as tiers of nested domains, read from YAML (kind "fabric",
// presets in configs/fabrics/), and the co-packaged-optics link whose per-GPU bandwidth is
// derived from its optical parameters (docs/fabric.md).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/fabric/gpu.h"
#include "lightsim/fabric/nccl.h"

namespace lightsim::fabric {

// Co-packaged optics (Passage-like 3D CPO): SerDes lanes on WDM wavelengths in fibers,
// fibers per CPO tile, tiles per GPU.
struct CpoSpec {
  static constexpr std::string_view kind = "cpo_link";
  Frequency symbol_rate = Frequency::si(56e9);  // per SerDes lane, baud
  std::string modulation = "pam4";              // nrz (1 bit/symbol), pam4 (2), pam8 (3)
  double coding_efficiency = 100.0 / 112.0;     // payload / line rate (FEC, line coding)
  std::int64_t wavelengths_per_fiber = 16;      // one SerDes lane per wavelength
  std::int64_t fibers_per_tile = 64;
  std::int64_t tiles_per_gpu = 2;
  double direction_share = 0.5;  // share of a fiber's lanes carrying each direction
  Length reach = Length::si(1000.0);
  EnergyPerByte energy = EnergyPerByte::si(8 * 5e-12);  // 5 pJ/bit end to end
  static void describe(config::Schema<CpoSpec>& s);
};

// The derivation chain of a CPO link, every step an output (B/s, both directions summed
// unless named per_direction).
struct CpoLink {
  double bits_per_symbol = 0;
  double lane_payload = 0;  // B/s per lane
  double per_fiber = 0;
  double per_tile = 0;
  double per_gpu = 0;                // all tiles, both directions
  double per_gpu_per_direction = 0;  // what a collective can use each way
  double io_power = 0;               // W at full load
};
CpoLink derive(const CpoSpec& cpo);

// One tier: GPUs are packed contiguously into domains of `domain_size`; traffic between two
// GPUs uses the innermost tier whose domain holds both.
struct TierSpec {
  static constexpr std::string_view kind = "tier";
  std::string name;
  std::int64_t domain_size = 8;
  std::optional<Bandwidth> bandwidth;  // per GPU per direction; or derived from `cpo`
  std::optional<CpoSpec> cpo;
  Time latency = Time::si(2e-6);      // per message step: software, endpoints, links
  Time hop_latency = Time::si(3e-7);  // per switch traversal
  std::int64_t switch_radix = 64;
  double oversubscription = 1.0;     // >= 1: per-GPU bandwidth is divided by it
  double efficiency = 0.9;           // achieved / line rate for ring and direct transfers
  bool in_switch_reduction = false;  // NVLS/SHARP-like reduction and multicast in the switch
  double in_switch_efficiency = 0.6;
  static void describe(config::Schema<TierSpec>& s);
};

struct FabricSpec {
  static constexpr std::string_view kind = "fabric";
  static constexpr std::string_view preset_dir = "fabrics";
  std::string name;
  std::string description;
  GpuSpec gpu;
  std::vector<TierSpec> tiers;  // innermost first
  // Op name ("all_reduce", ...) -> algorithm used instead of the automatic choice.
  std::map<std::string, std::string> collective_algorithms;
  // Fixed cost of one DeepEP low-latency dispatch or combine (launch, per-peer signalling,
  // completion polling) before its bytes move (fabric/expert.h).
  Time expert_low_latency_overhead = Time::si(34.5e-6);
  // The NCCL whose cost model multi-node all-reduce, reduce-scatter and all-gather follow
  // (protocols, per-channel caps, channel count; nccl.h). Unset: one protocol, the tiers'
  // own per-step latencies.
  std::optional<NcclUseSpec> nccl;
  static void describe(config::Schema<FabricSpec>& s);
};

// A tier compiled for evaluation: plain SI doubles.
struct Tier {
  std::string name;
  std::int64_t domain_size = 0;
  double bandwidth = 0;       // B/s per GPU per direction, after oversubscription
  double line_bandwidth = 0;  // before oversubscription
  double alpha = 0;           // s per step: latency + (2 levels - 1) hop latency
  double efficiency = 1;
  bool in_switch = false;
  double in_switch_efficiency = 1;
  int switch_levels = 1;  // fat-tree levels of switch_radix switches for domain_size GPUs
};

struct Topology {
  std::string name;
  GpuSpec gpu;
  std::vector<Tier> tiers;  // innermost first; the last domain is the whole machine
  // Per collective op (CollectiveOp order), the algorithm forced by the fabric config; 0 =
  // automatic (values are Algorithm enumerators, see collective.h).
  std::array<int, 5> forced_algorithm{};
  double expert_low_latency_overhead = 0;  // s (FabricSpec)
  std::optional<NcclModel> nccl;           // FabricSpec::nccl compiled (needs two tiers)
  std::int64_t capacity() const { return tiers.empty() ? 0 : tiers.back().domain_size; }
};

// Throws ConfigError when a tier cannot be built (radix too small for its domain).
Topology build_topology(const FabricSpec& spec);
// Loads configs/fabrics/NAME.yaml (or a file path) with the given preset roots.
FabricSpec load_fabric(const std::string& name_or_file, const config::LoadOptions& options);

// The seed's published figures for the prefill study (configs/references/), printed beside
// computed values and never used as inputs.
struct SeedPrefillReference {
  static constexpr std::string_view kind = "prefill_seed_reference";
  std::string source;
  FlopRate electrical_peak_fp4 = FlopRate::si(14e15);
  Bandwidth electrical_hbm = Bandwidth::si(7.9e12);
  Bandwidth electrical_scale_up = Bandwidth::si(900e9);
  std::int64_t electrical_domain = 72;
  Bandwidth cpo_per_fiber = Bandwidth::si(1.6e12 / 8);
  Bandwidth cpo_per_tile = Bandwidth::si(64e12 / 8);
  Bandwidth cpo_per_xpu = Bandwidth::si(112e12 / 8);
  double photonic_scale_up_ratio = 4;
  std::int64_t photonic_domain = 1152;
  static void describe(config::Schema<SeedPrefillReference>& s);
};

}  // namespace lightsim::fabric
