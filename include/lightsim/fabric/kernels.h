// Achievable efficiency of real kernels per GPU and kernel class, from published measurements
// (kind "kernel_table", presets in configs/kernels/; docs/fabric.md, "Kernel tables").
//
// A table holds curves: the fraction of a number format's dense peak that a kernel class
// reaches at a size (GEMM rows M at a reduction dimension K, tokens per expert of a grouped MoE
// GEMM, the sequence length of a prefill attention kernel), each with its public source.
// Lookups interpolate linearly in log(size) (and, between two GEMM curves, in log K) and hold
// the end values outside the measured range. A GPU without a table, or a class or format its
// table lacks, falls back to the GPU's roofline ceiling (GpuSpec::gemm_efficiency), and
// KernelEfficiency::describe() says which.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"

namespace lightsim::fabric {

struct GpuSpec;

// One measured curve: efficiency at ascending sizes.
struct EfficiencyCurveSpec {
  static constexpr std::string_view kind = "efficiency_curve";
  std::string format = "fp8";      // bf16 | fp8 | fp4: the peak the efficiency is a fraction of
  std::int64_t k = 0;              // GEMM curves: the reduction dimension K measured (0: any)
  bool causal = true;              // attention curves: causal mask
  std::vector<double> sizes{};     // ascending (see the table's section for what they count)
  std::vector<double> efficiency;  // fraction of the format's dense peak at each size, (0, 1]
  std::string source;              // publication, table or figure, configuration
  static void describe(config::Schema<EfficiencyCurveSpec>& s);
};

struct KernelTableSpec {
  static constexpr std::string_view kind = "kernel_table";
  static constexpr std::string_view preset_dir = "kernels";
  std::string name;
  std::string description;
  // Dense GEMM: sizes = M (rows), one curve per (format, K).
  std::vector<EfficiencyCurveSpec> gemm{};
  // Grouped MoE GEMM (contiguous layout, prefill): sizes = tokens per expert, per (format, K).
  std::vector<EfficiencyCurveSpec> grouped_gemm{};
  // Prefill attention (FlashAttention-3 / FlashMLA class): sizes = sequence length, per
  // (format, causal); efficiency counts the two matmuls' FLOPs (softmax runs inside).
  std::vector<EfficiencyCurveSpec> attention{};
  // Memory-bound kernels: eff(bytes) = memory_efficiency_max bytes / (bytes + half_bytes).
  double memory_efficiency_max = 0.85;
  DataSize memory_half_bytes = DataSize::si(4e6);
  std::string memory_source;
  // Fixed cost of every kernel (launch and tail).
  Time launch_overhead = Time::si(0.0);
  std::string launch_source;
  static void describe(config::Schema<KernelTableSpec>& s);
};

enum class KernelClass : std::uint8_t { gemm, grouped_gemm, attention };
constexpr std::size_t kKernelClasses = 3;
constexpr std::size_t kFormats = 3;  // bf16, fp8, fp4
// Index of "bf16", "fp8", "fp4"; a ConfigError otherwise.
std::size_t format_index(std::string_view format);

// The efficiencies of one GPU, compiled once (no allocation or file access per lookup).
class KernelEfficiency {
 public:
  KernelEfficiency() = default;
  explicit KernelEfficiency(const GpuSpec& gpu);

  // Fraction of the format's peak for a compute-bound kernel of class `c`: `size` as the
  // class's curves count it, `k` the reduction dimension (GEMMs), `flops` the kernel's FLOPs
  // (for the roofline fallback).
  double compute(KernelClass c, std::size_t format, double size, double k, bool causal,
                 double flops) const;
  // Whether the table has curves for (class, format), else compute() is the roofline ceiling.
  bool tabled(KernelClass c, std::size_t format) const;
  // The GPU's roofline ceiling for a kernel of `flops` (no table consulted).
  double roofline(double flops) const { return gemm_max_ * flops / (flops + gemm_half_); }
  double memory(double bytes) const;                  // fraction of HBM bandwidth
  double launch_overhead() const { return launch_; }  // s per kernel
  // "kernel table 'h800'; classes and formats it lacks: roofline ceiling ..." or, without a
  // table, "no kernel table: roofline ceiling of gpu ...".
  const std::string& describe() const { return description_; }

 private:
  struct Curve {
    double log_k = 0;
    bool causal = true;
    std::vector<double> log_sizes, efficiency;
    double at(double log_size) const;
  };
  std::array<std::array<std::vector<Curve>, kFormats>, kKernelClasses> curves_{};
  double gemm_max_ = 0.8, gemm_half_ = 1e9;  // roofline fallback
  double mem_max_ = 0.85, mem_half_ = 4e6;
  double launch_ = 0;
  std::string description_;
};

}  // namespace lightsim::fabric
