// The `energy` study (docs/studies.md "energy"): energy and latency of one block-selection
// query (one KV head, one decode step) across contexts for Prism (from prism::cost), a GPU
// scan of block summaries from HBM, a FAISS IVF-PQ index over the block summaries (bytes
// touched measured on a real faiss::IndexIVFPQ) and an ICMS-style LPDDR5 read of the same
// summaries; the crossover context where Prism wins; TFLN vs SOI system power. The seed's
// figures (SPEC 1.1, 1.6) come from configs/references/energy_seed.yaml.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/ivfpq.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/cost.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

// The FAISS IVF-PQ baseline of the study: one index per context over the block mean keys.
struct EnergyFaissSpec {
  static constexpr std::string_view kind = "energy_faiss";
  std::int64_t nlist = 0;     // inverted lists; 0 = ceil(sqrt(vectors)) (FAISS guideline)
  std::int64_t pq_m = 16;     // PQ sub-quantizers (divide the head dim)
  std::int64_t pq_nbits = 8;  // bits per sub-quantizer code (lowered to log2(vectors) if fewer)
  std::int64_t nprobe = 8;    // lists scanned per query (at most nlist)
  static void describe(config::Schema<EnergyFaissSpec>& s);
};

// configs/studies/energy.yaml.
struct EnergyStudySpec {
  static constexpr std::string_view kind = "energy_study";
  std::vector<std::int64_t> contexts{4096,   8192,   16384,  32768,  65536,
                                     131072, 262144, 524288, 1048576};
  std::int64_t block_tokens = 128;
  // Accelerators in order of preference: a context uses the first whose configured logical
  // rows hold its blocks (scored with logical_rows = blocks); none = infeasible.
  std::vector<std::string> accelerators{"seed", "scaled", "multichip"};
  std::string tfln_preset = "seed";  // TFLN vs SOI, like the prism study
  std::string soi_preset = "soi";
  Frequency query_rate = Frequency::si(1e6);  // queries/s for the power at a stated rate
  std::vector<std::string> gpus{"h100", "h200", "b200"};  // configs/gpus/ names or files
  std::string chart_gpu = "h100";                         // the GPU of the chart's lines
  std::vector<std::int64_t> summary_dims{128, 32};
  double bytes_per_element = 2;        // bf16 summaries
  Time launch_floor = Time::si(2e-6);  // kernel launch + sync per scan (assumption)
  // ICMS-style estimate: the summaries read from LPDDR5 (both required, with their source).
  EnergyPerByte lpddr_energy_per_byte = EnergyPerByte::si(0);
  Bandwidth lpddr_bandwidth = Bandwidth::si(0);
  std::string lpddr_source;
  EnergyFaissSpec faiss;
  // Largest context whose FAISS index is built (the synthetic cache of one head takes
  // 1 KiB per token in memory); larger contexts have no FAISS figure, said so in the table.
  std::int64_t faiss_max_context = 1048576;
  kv::KvGeneratorSpec workload;   // synthetic cache of one KV head; tokens = each context
  std::int64_t query_steps = 4;   // decode steps whose queries probe the FAISS index
  double agreement = 0.1;         // relative band for the seed's exact figures
  double approx_agreement = 0.3;  // relative band for the seed's "~" figures
  double order_decades = 0.5;     // an "order of" figure holds within this many decades
  static void describe(config::Schema<EnergyStudySpec>& s);
};

// configs/references/energy_seed.yaml: the seed's energy table (SPEC 1.6) and problem figures
// (SPEC 1.1); printed beside ours, never model inputs.
struct EnergySeedReference {
  static constexpr std::string_view kind = "energy_seed_reference";
  std::string source;
  std::int64_t context = 131072;  // the context the seed's table refers to (1024 blocks)
  Energy photonic_dynamic = Energy::si(0);
  Energy photonic_with_tec = Energy::si(0);
  Energy gpu_scan_128 = Energy::si(0);
  Energy gpu_scan_32 = Energy::si(0);
  Energy faiss_ivfpq = Energy::si(0);   // "~"
  Energy icms_lpddr5 = Energy::si(0);   // "~"
  Time gpu_scan_latency = Time::si(0);  // "~5 us order" for the 128K scan on H100
  double soi_power_ratio = 0;
  static void describe(config::Schema<EnergySeedReference>& s);
};

// --- The models, exposed for tests ---

// The FAISS baseline's parameters as the bytes-touched model takes them (kv/ivfpq.h).
kv::IvfPqTouchOptions ivfpq_options(const EnergyFaissSpec& spec);

// Prism at `blocks` blocks: the first of `accelerators` (name, spec as configured) whose
// configured logical rows hold the blocks, costed by prism::cost with logical_rows = blocks
// (time-multiplexing passes as the cost model counts them). None holds them: infeasible, with
// the reason; never clamped.
struct PrismAtContext {
  bool fits = false;
  std::string accelerator;  // the preset used
  std::string reason;       // why infeasible (empty when it fits)
  prism::CostReport cost;
};
PrismAtContext prism_at(std::int64_t blocks,
                        const std::vector<std::pair<std::string, prism::AcceleratorSpec>>& accels);

// Registers the study `energy` (its spec kind and its definition; runner.h).
void add_energy_study(Registry& registry);

}  // namespace lightsim::studies
