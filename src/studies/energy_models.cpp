// The energy study's specs and models (energy.h): Prism at a context through the cost model.
// The memory reads are fabric's (fabric/memory.h), the FAISS bytes touched kv's (kv/ivfpq.h),
// the summary bytes kv's (kv/blocks.h).
#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"
#include "lightsim/kv/scorer_specs.h"
#include "lightsim/studies/energy.h"

namespace lightsim::studies {

void EnergyFaissSpec::describe(config::Schema<EnergyFaissSpec>& s) {
  s.help("FAISS IVF-PQ over the block mean keys of one KV head (the energy study's ANN baseline).");
  s.field("nlist", &EnergyFaissSpec::nlist,
          "inverted lists (0 = ceil(sqrt(vectors)); at most the vectors indexed)")
      .range(0, 1 << 20);
  s.field("pq_m", &EnergyFaissSpec::pq_m, "PQ sub-quantizers; must divide the head dim")
      .range(1, 1024);
  s.field("pq_nbits", &EnergyFaissSpec::pq_nbits,
          "bits per PQ code (lowered to floor(log2(vectors)) when fewer vectors than 2^bits)")
      .range(1, 16);
  s.field("nprobe", &EnergyFaissSpec::nprobe, "lists scanned per query (at most nlist)")
      .range(1, 1 << 20);
}

void EnergyStudySpec::describe(config::Schema<EnergyStudySpec>& s) {
  s.help(
      "Study `energy` (SPEC 1.1, 1.6): energy and latency per block-selection query (one KV "
      "head, one decode step) for Prism, a GPU scan of block summaries, FAISS IVF-PQ and an "
      "LPDDR5 read, across contexts; the crossover; TFLN vs SOI power (docs/studies.md).");
  s.field("contexts", &EnergyStudySpec::contexts, "context lengths in tokens")
      .range(1024, 1 << 24)
      .min_items(1);
  s.field("block_tokens", &EnergyStudySpec::block_tokens, "tokens per KV block").range(16, 65536);
  s.field("accelerators", &EnergyStudySpec::accelerators,
          "Prism accelerators (configs/accelerators/ names or files) in order of preference: a "
          "context uses the first whose logical rows hold its blocks")
      .min_items(1);
  s.field("tfln_preset", &EnergyStudySpec::tfln_preset,
          "the TFLN accelerator of the TFLN vs SOI power comparison (as in the prism study)");
  s.field("soi_preset", &EnergyStudySpec::soi_preset, "the SOI accelerator of that comparison");
  s.field("query_rate", &EnergyStudySpec::query_rate,
          "query rate (queries per second, as Hz) of the power at a stated rate")
      .positive();
  s.field("gpus", &EnergyStudySpec::gpus,
          "GPUs (configs/gpus/ names or files); each needs hbm_energy_per_byte")
      .min_items(1);
  s.field("chart_gpu", &EnergyStudySpec::chart_gpu, "the GPU (one of gpus) drawn in the chart");
  s.field("summary_dims", &EnergyStudySpec::summary_dims,
          "summary dimensions scanned (128 = head dim, 32 = projected)")
      .range(1, 65536)
      .min_items(1);
  s.field("bytes_per_element", &EnergyStudySpec::bytes_per_element,
          "bytes per summary element (2 = bf16)")
      .range(0.125, 8.0);
  s.field("launch_floor", &EnergyStudySpec::launch_floor,
          "fixed latency per scan: kernel launch and synchronization (an assumption)")
      .range("0 s", "1 ms");
  s.field("lpddr_energy_per_byte", &EnergyStudySpec::lpddr_energy_per_byte,
          "LPDDR5 read energy of the ICMS-style estimate")
      .required()
      .positive();
  s.field("lpddr_bandwidth", &EnergyStudySpec::lpddr_bandwidth,
          "LPDDR5 bandwidth of the ICMS-style estimate")
      .required()
      .positive();
  s.field("lpddr_source", &EnergyStudySpec::lpddr_source, "where the two LPDDR5 figures come from")
      .required();
  s.field("faiss", &EnergyStudySpec::faiss, "the FAISS IVF-PQ baseline");
  s.field("faiss_max_context", &EnergyStudySpec::faiss_max_context,
          "largest context (tokens) whose FAISS index is built: the synthetic cache of one KV "
          "head takes 1 KiB per token of memory")
      .range(1024, 1 << 24);
  s.field("workload", &EnergyStudySpec::workload,
          "synthetic KV cache (kv_synthetic) of one KV head; `tokens` is replaced by each "
          "context");
  s.field("query_steps", &EnergyStudySpec::query_steps,
          "decode steps whose queries (every query head of the group) probe the FAISS index")
      .range(1, 1024);
  s.field("agreement", &EnergyStudySpec::agreement,
          "relative band around an exact seed figure within which ours holds")
      .range(0.0, 10.0);
  s.field("approx_agreement", &EnergyStudySpec::approx_agreement,
          "relative band around a seed figure printed with '~'")
      .range(0.0, 10.0);
  s.field("order_decades", &EnergyStudySpec::order_decades,
          "decades either way within which an 'order of' figure holds (0.5: a factor sqrt(10))")
      .range(0.0, 3.0);
  s.rule([](const EnergyStudySpec& e) -> std::optional<std::string> {
    if (std::find(e.gpus.begin(), e.gpus.end(), e.chart_gpu) == e.gpus.end())
      return fmt::format("chart_gpu '{}' is not among gpus", e.chart_gpu);
    return std::nullopt;
  });
  // The FAISS options whose ranges depend on the workload's cache (the kv scorer's check,
  // kv::check_faiss_ivfpq, for an index over block mean keys), before anything is generated.
  s.rule([](const EnergyStudySpec& e) -> std::optional<std::string> {
    const auto head_dim = static_cast<std::size_t>(e.workload.head_dim);
    if (auto message = kv::pq_m_not_dividing("faiss.pq_m", e.faiss.pq_m, head_dim))
      return fmt::format("{} (workload.head_dim)", *message);
    std::int64_t smallest = 0;  // the smallest context whose index is built
    for (std::int64_t c : e.contexts)
      if (c <= e.faiss_max_context && (smallest == 0 || c < smallest)) smallest = c;
    if (smallest == 0) return std::nullopt;
    const std::int64_t blocks = (smallest + e.block_tokens - 1) / e.block_tokens;
    if (e.faiss.nlist > blocks)
      return kv::out_of_cache_range(
          "faiss.nlist", e.faiss.nlist, 0, blocks,
          fmt::format("0 = ceil(sqrt(blocks)); at most the {} block mean keys indexed at the "
                      "smallest context, {} tokens in blocks of block_tokens = {}",
                      blocks, smallest, e.block_tokens));
    if (e.faiss.nlist > 0 && e.faiss.nprobe > e.faiss.nlist)
      return kv::out_of_cache_range("faiss.nprobe", e.faiss.nprobe, 1, e.faiss.nlist,
                                    fmt::format("faiss.nlist = {} lists", e.faiss.nlist));
    return std::nullopt;
  });
}

void EnergySeedReference::describe(config::Schema<EnergySeedReference>& s) {
  s.help("The seed's energy per query table (SPEC 1.6) and problem figures (SPEC 1.1).");
  s.field("source", &EnergySeedReference::source, "where the figures come from");
  s.field("context", &EnergySeedReference::context, "context (tokens) the table refers to").min(1);
  s.field("photonic_dynamic", &EnergySeedReference::photonic_dynamic, "photonic, dynamic")
      .required()
      .positive();
  s.field("photonic_with_tec", &EnergySeedReference::photonic_with_tec, "photonic, with TEC")
      .required()
      .positive();
  s.field("gpu_scan_128", &EnergySeedReference::gpu_scan_128, "GPU full scan, 128-dim")
      .required()
      .positive();
  s.field("gpu_scan_32", &EnergySeedReference::gpu_scan_32, "GPU full scan, 32-dim")
      .required()
      .positive();
  s.field("faiss_ivfpq", &EnergySeedReference::faiss_ivfpq, "GPU ANN (FAISS IVF-PQ), '~'")
      .required()
      .positive();
  s.field("icms_lpddr5", &EnergySeedReference::icms_lpddr5, "ICMS (LPDDR5 estimate), '~'")
      .required()
      .positive();
  s.field("gpu_scan_latency", &EnergySeedReference::gpu_scan_latency,
          "full scan latency at `context` on H100 ('order of')")
      .required()
      .positive();
  s.field("soi_power_ratio", &EnergySeedReference::soi_power_ratio,
          "total system power of SOI over TFLN")
      .required()
      .positive();
}

kv::IvfPqTouchOptions ivfpq_options(const EnergyFaissSpec& spec) {
  return {.nlist = static_cast<std::size_t>(spec.nlist),
          .pq_m = static_cast<std::size_t>(spec.pq_m),
          .pq_nbits = static_cast<std::size_t>(spec.pq_nbits),
          .nprobe = static_cast<std::size_t>(spec.nprobe)};
}

PrismAtContext prism_at(std::int64_t blocks,
                        const std::vector<std::pair<std::string, prism::AcceleratorSpec>>& accels) {
  PrismAtContext p;
  std::string largest;
  int largest_rows = 0;
  for (const auto& [name, spec] : accels) {
    const int capacity = prism::scored_rows(spec);
    if (capacity > largest_rows) {
      largest_rows = capacity;
      largest = name;
    }
    if (blocks > capacity) continue;
    prism::AcceleratorSpec a = spec;
    a.logical_rows = static_cast<int>(blocks);
    a.selection.top_k = std::min<int>(a.selection.top_k, static_cast<int>(blocks));
    a.selection.rerank_k = std::min<int>(a.selection.rerank_k, static_cast<int>(blocks));
    p.fits = true;
    p.accelerator = name;
    p.cost = prism::cost(a);
    return p;
  }
  p.reason = fmt::format(
      "{} blocks exceed every configured accelerator (largest: {} with {} logical rows); "
      "add a preset with more rows, passes or chips",
      blocks, largest, largest_rows);
  return p;
}

}  // namespace lightsim::studies
