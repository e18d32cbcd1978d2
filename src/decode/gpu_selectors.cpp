// The GPU's own KV-block selectors priced on the calibrated kernel model (gpu_selectors.h).
#include "lightsim/decode/gpu_selectors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "lightsim/core/as_double.h"
#include "lightsim/core/error.h"
#include "lightsim/fabric/kernels.h"
#include "lightsim/kv/scorer_specs.h"

namespace lightsim::decode {

void DsaIndexerSpec::describe(config::Schema<DsaIndexerSpec>& s) {
  using S = DsaIndexerSpec;
  s.help(
      "DeepSeek Sparse Attention's lightning indexer as a GPU baseline (DeepSeek-V3.2 "
      "config.json and inference/model.py `Indexer`): index heads x head dim, top-k tokens, FP8 "
      "keys with an fp32 scale per token.");
  s.field("heads", &S::heads, "index heads H_i (index_n_heads)")
      .range(std::int64_t{1}, std::int64_t{4096});
  s.field("head_dim", &S::head_dim, "index head dimension d_i (index_head_dim)")
      .range(std::int64_t{1}, std::int64_t{4096});
  s.field("topk", &S::topk, "tokens selected per query (index_topk)")
      .range(std::int64_t{1}, std::int64_t{1} << 24);
  s.field("q_input", &S::q_input, "width of the latent the index query is projected from")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("key_bytes", &S::key_bytes, "bytes per index-key element (FP8: 1)").range(0.125, 8.0);
  s.field("scale_bytes", &S::scale_bytes, "bytes of the per-token key scale (fp32: 4)")
      .range(0.0, 64.0);
  s.field("weight_bytes", &S::weight_bytes, "bytes per projection weight (FP8: 1)")
      .range(0.125, 8.0);
}

std::string_view to_string(GpuSelector s) {
  switch (s) {
    case GpuSelector::mean_key:
      return "mean_key";
    case GpuSelector::quest:
      return "quest";
    case GpuSelector::dsa_indexer:
      return "dsa_indexer";
    case GpuSelector::faiss_ivfpq:
      return "faiss_ivfpq";
  }
  return "mean_key";
}

GpuSelector gpu_selector_from(std::string_view name, std::string_view where) {
  for (GpuSelector s : {GpuSelector::mean_key, GpuSelector::quest, GpuSelector::dsa_indexer,
                        GpuSelector::faiss_ivfpq})
    if (name == to_string(s)) return s;
  LIGHTSIM_THROW(InputError,
                 "{}: '{}' is not a GPU selector (mean_key, quest, dsa_indexer, faiss_ivfpq)",
                 where, name);
}

namespace {

// One kernel stage of one layer: its FLOPs and bytes at the whole batch, its time by the
// decode step's rule (scale_step.cpp): max(compute, memory) + launch.
struct Stage {
  const char* name = "";
  double flops = 0, bytes = 0;
  // How the compute efficiency is found: a tabled kernel class (size, k) or the roofline.
  bool attention = false, gemm = false;
  std::size_t format = 0;
  double size = 1, k = 1;
};

}  // namespace

GpuSelectorCost gpu_selector_cost(GpuSelector selector, const SelectionShape& shape,
                                  const fabric::GpuSpec& gpu, const DsaIndexerSpec& dsa,
                                  const IvfPqGeometry& ivfpq, double memory_share) {
  const SelectionShape& s = shape;
  LIGHTSIM_CHECK_AS(ConfigError,
                    s.layers > 0 && s.kv_heads > 0 && s.q_heads > 0 && s.head_dim > 0 &&
                        s.hidden > 0 && s.context > 0 && s.block_tokens > 0 && s.batch > 0,
                    "gpu selector: the shape's layers, heads, head_dim, hidden, context, "
                    "block_tokens and batch must be positive");
  LIGHTSIM_CHECK_AS(ConfigError, gpu.hbm_energy_per_byte.has_value(),
                    "gpu '{}': hbm_energy_per_byte is not set (the GPU baselines' HBM energy)",
                    gpu.name);
  LIGHTSIM_CHECK_AS(ConfigError, memory_share >= 0 && memory_share <= 1,
                    "gpu selector: memory_share {} is outside [0, 1]", memory_share);
  const double B = as_double(s.batch), G = as_double(s.kv_heads), H = as_double(s.q_heads),
               D = as_double(s.head_dim);
  const double T = as_double(s.context);
  const auto blocks = static_cast<std::size_t>((s.context + s.block_tokens - 1) / s.block_tokens);
  const double N = static_cast<double>(blocks);
  const kv::SummaryGeometry geo{.tokens = static_cast<std::size_t>(s.context),
                                .head_dim = static_cast<std::size_t>(s.head_dim),
                                .blocks = blocks,
                                .block_tokens = static_cast<std::size_t>(s.block_tokens)};
  const std::size_t bf16 = fabric::format_index("bf16"), fp8 = fabric::format_index("fp8");
  // FAISS and top-k run fp32 on CUDA cores; priced on the roofline of the bf16 tensor peak
  // (faster than CUDA-core fp32: favourable to the GPU; all of them are memory-bound here).
  const std::size_t fp32_as_bf16 = bf16;

  std::vector<Stage> stages;
  const auto block_topk = [&](double scores) {
    stages.push_back({.name = "topk", .bytes = 8.0 * scores, .format = fp32_as_bf16});
  };
  switch (selector) {
    case GpuSelector::mean_key:
      stages.push_back({.name = "score",
                        .flops = 2.0 * B * G * N * D,
                        .bytes = B * G * kv::mean_key_metadata_bytes({}, geo),
                        .attention = true,
                        .format = bf16,
                        .size = N,
                        .k = D});
      block_topk(B * G * N);
      break;
    case GpuSelector::quest:
      stages.push_back({.name = "score",
                        .flops = 4.0 * B * H * N * D,
                        .bytes = B * G * kv::quest_metadata_bytes({}, geo),
                        .attention = true,
                        .format = bf16,
                        .size = N,
                        .k = D});
      block_topk(B * G * N);
      break;
    case GpuSelector::dsa_indexer: {
      const double Hi = as_double(dsa.heads), di = as_double(dsa.head_dim), h = as_double(s.hidden);
      const double weights = as_double(dsa.q_input) * Hi * di + h * Hi + h * di;
      stages.push_back(
          {.name = "projections",
           .flops = 2.0 * B * weights,
           .bytes = weights * dsa.weight_bytes + B * (as_double(dsa.q_input) + h) * 2.0,
           .gemm = true,
           .format = fp8,
           .size = B,
           .k = as_double(dsa.q_input)});
      stages.push_back({.name = "logits",
                        .flops = B * T * (2.0 * Hi * di + 2.0 * Hi),
                        .bytes = B * T * (di * dsa.key_bytes + dsa.scale_bytes),
                        .attention = true,
                        .format = fp8,
                        .size = T,
                        .k = di});
      stages.push_back({.name = "topk", .bytes = 8.0 * B * T, .format = fp32_as_bf16});
      break;
    }
    case GpuSelector::faiss_ivfpq: {
      LIGHTSIM_CHECK_AS(ConfigError,
                        ivfpq.nlist > 0 && ivfpq.nprobe > 0 && ivfpq.pq_m > 0 &&
                            ivfpq.pq_nbits > 0 && s.head_dim % ivfpq.pq_m == 0,
                        "gpu selector faiss_ivfpq: nlist, nprobe, pq_m, pq_nbits must be "
                        "positive and pq_m must divide head_dim {}",
                        s.head_dim);
      const double nlist = as_double(ivfpq.nlist),
                   nprobe = as_double(std::min(ivfpq.nprobe, ivfpq.nlist));
      const double code = std::ceil(as_double(ivfpq.pq_m * ivfpq.pq_nbits) / 8.0);
      const double centroids = nlist * D * 4.0;
      const double codes = B * G * T * code * nprobe / nlist;
      stages.push_back({.name = "coarse",
                        .flops = 2.0 * B * H * nlist * D,
                        .bytes = centroids,
                        .format = fp32_as_bf16});
      stages.push_back({.name = "tables",
                        .flops = 2.0 * B * H * D * std::pow(2.0, as_double(ivfpq.pq_nbits)),
                        .bytes = B * G * D * std::pow(2.0, as_double(ivfpq.pq_nbits)) * 4.0,
                        .format = fp32_as_bf16});
      stages.push_back({.name = "scan",
                        .flops = B * H * (T * nprobe / nlist) * as_double(ivfpq.pq_m),
                        .bytes = codes,
                        .format = fp32_as_bf16});
      stages.push_back(
          {.name = "topk", .bytes = 8.0 * B * H * T * nprobe / nlist, .format = fp32_as_bf16});
      break;
    }
  }

  const fabric::KernelEfficiency eff(gpu);
  const double hbm = gpu.hbm_bandwidth.si();
  const double L = as_double(s.layers);
  GpuSelectorCost out{.selector = selector, .gpu = gpu.name};
  double busy_compute = 0;  // s of peak-rate compute the FLOPs would take (utilization)
  for (const Stage& st : stages) {
    const std::string_view format = st.format == fp8 ? "fp8" : "bf16";
    const double peak = gpu.peak(format).si();
    double compute = 0;
    if (st.flops > 0) {
      const fabric::KernelClass c =
          st.attention ? fabric::KernelClass::attention : fabric::KernelClass::gemm;
      const bool tabled = (st.attention || st.gemm) && eff.tabled(c, st.format);
      // A decode query sees every cached key: the unmasked curve (scale_step.cpp's rule).
      const double e = tabled ? eff.compute(c, st.format, st.size, st.k, false, st.flops)
                              : eff.roofline(st.flops);
      compute = st.flops / (peak * e);
    }
    const double memory = st.bytes > 0 ? st.bytes / (hbm * eff.memory(st.bytes)) : 0.0;
    const double t = std::max(compute, memory) + eff.launch_overhead();
    out.kernels.push_back({.name = st.name,
                           .flops = st.flops * L,
                           .bytes = st.bytes * L,
                           .compute_time = compute * L,
                           .memory_time = memory * L,
                           .time = t * L});
    if (compute > memory) out.memory_bound = false;
    out.flops += st.flops * L;
    out.bytes += st.bytes * L;
    out.time += t * L;
    busy_compute += st.flops * L / peak;
  }
  const double u_mem = out.bytes / (out.time * hbm);
  const double u_compute = busy_compute / out.time;
  out.power = gpu.board_power(memory_share * u_mem + (1.0 - memory_share) * u_compute);
  out.energy = out.power * out.time;
  out.hbm_energy = out.bytes * gpu.hbm_energy_per_byte->si();
  return out;
}

}  // namespace lightsim::decode
