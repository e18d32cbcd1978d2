// Kernel efficiency tables: spec, validation and log-space interpolation (kernels.h).
#include "lightsim/fabric/kernels.h"

#include <algorithm>
#include <cmath>

#include "lightsim/fabric/gpu.h"

namespace lightsim::fabric {

void EfficiencyCurveSpec::describe(config::Schema<EfficiencyCurveSpec>& s) {
  s.help(
      "One measured efficiency curve: the fraction of a format's dense peak a kernel reaches "
      "at ascending sizes, with its public source.");
  s.field("format", &EfficiencyCurveSpec::format, "number format whose peak the efficiency is of")
      .one_of({"bf16", "fp8", "fp4"});
  s.field("k", &EfficiencyCurveSpec::k, "GEMM curves: reduction dimension K measured (0: any)")
      .range(0, 1 << 24);
  s.field("causal", &EfficiencyCurveSpec::causal, "attention curves: causal mask");
  s.field("sizes", &EfficiencyCurveSpec::sizes,
          "ascending sizes: GEMM rows M, tokens per expert, or sequence length")
      .positive()
      .min_items(1);
  s.field("efficiency", &EfficiencyCurveSpec::efficiency,
          "fraction of the format's dense peak at each size")
      .range(0.001, 1.0)
      .min_items(1);
  s.field("source", &EfficiencyCurveSpec::source,
          "public source: publication, table or figure, exact configuration")
      .required();
  s.rule([](const EfficiencyCurveSpec& c) -> std::optional<std::string> {
    if (c.sizes.size() != c.efficiency.size())
      return fmt::format("'efficiency' has {} values for {} 'sizes'", c.efficiency.size(),
                         c.sizes.size());
    for (std::size_t i = 1; i < c.sizes.size(); ++i)
      if (c.sizes[i] <= c.sizes[i - 1])
        return fmt::format("'sizes' must be strictly increasing: sizes[{}] = {} after {}", i,
                           c.sizes[i], c.sizes[i - 1]);
    if (c.source.empty()) return std::string("'source' must name where the figures come from");
    return std::nullopt;
  });
}

void KernelTableSpec::describe(config::Schema<KernelTableSpec>& s) {
  s.help(
      "Measured kernel efficiencies of one GPU (docs/fabric.md, \"Kernel tables\"): dense "
      "GEMM by rows M and K, grouped MoE GEMM by tokens per expert, prefill attention by "
      "sequence length, memory-bound kernels and the per-kernel launch cost.");
  s.field("name", &KernelTableSpec::name, "display name");
  s.field("description", &KernelTableSpec::description, "what the table covers");
  s.field("gemm", &KernelTableSpec::gemm, "dense GEMM curves: sizes = M, one per (format, k)");
  s.field("grouped_gemm", &KernelTableSpec::grouped_gemm,
          "grouped MoE GEMM curves: sizes = tokens per expert, one per (format, k)");
  s.field("attention", &KernelTableSpec::attention,
          "prefill attention curves: sizes = sequence length, one per (format, causal)");
  s.field("memory_efficiency_max", &KernelTableSpec::memory_efficiency_max,
          "fraction of HBM bandwidth a large streaming kernel achieves")
      .range(0.01, 1.0);
  s.field("memory_half_bytes", &KernelTableSpec::memory_half_bytes,
          "bytes moved at which half of that is reached")
      .positive();
  s.field("memory_source", &KernelTableSpec::memory_source, "source of the memory figures");
  s.field("launch_overhead", &KernelTableSpec::launch_overhead, "fixed time of every kernel")
      .range("0 s", "1 ms");
  s.field("launch_source", &KernelTableSpec::launch_source, "source of the launch overhead");
  s.rule([](const KernelTableSpec& t) -> std::optional<std::string> {
    const auto duplicate = [](const std::vector<EfficiencyCurveSpec>& v, bool by_k,
                              std::string_view key) -> std::optional<std::string> {
      for (std::size_t i = 0; i < v.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (v[i].format == v[j].format && (by_k ? v[i].k == v[j].k : v[i].causal == v[j].causal))
            return fmt::format("{}[{}] repeats the format and {} of {}[{}]", key, i,
                               by_k ? "k" : "causal", key, j);
      return std::nullopt;
    };
    if (auto e = duplicate(t.gemm, true, "gemm")) return e;
    if (auto e = duplicate(t.grouped_gemm, true, "grouped_gemm")) return e;
    return duplicate(t.attention, false, "attention");
  });
}

std::size_t format_index(std::string_view format) {
  if (format == "bf16") return 0;
  if (format == "fp8") return 1;
  if (format == "fp4") return 2;
  LIGHTSIM_THROW(ConfigError, "unknown number format '{}' (expected bf16, fp8 or fp4)", format);
}

double KernelEfficiency::Curve::at(double log_size) const {
  if (log_size <= log_sizes.front()) return efficiency.front();
  if (log_size >= log_sizes.back()) return efficiency.back();
  const auto hi = std::upper_bound(log_sizes.begin(), log_sizes.end(), log_size);
  const std::size_t j = static_cast<std::size_t>(hi - log_sizes.begin());
  const double t = (log_size - log_sizes[j - 1]) / (log_sizes[j] - log_sizes[j - 1]);
  return efficiency[j - 1] + t * (efficiency[j] - efficiency[j - 1]);
}

KernelEfficiency::KernelEfficiency(const GpuSpec& gpu)
    : gemm_max_(gpu.gemm_efficiency_max),
      gemm_half_(gpu.gemm_half_work.si()),
      mem_max_(gpu.memory_efficiency_max),
      mem_half_(gpu.memory_half_bytes.si()) {
  const std::string ceiling =
      fmt::format("roofline ceiling of gpu '{}' (GEMM {:.2f} of peak, memory {:.2f} of HBM)",
                  gpu.name, gpu.gemm_efficiency_max, gpu.memory_efficiency_max);
  if (!gpu.kernels) {
    description_ = "no kernel table: " + ceiling;
    return;
  }
  const KernelTableSpec& t = gpu.kernels->get();
  const auto add = [&](KernelClass c, const std::vector<EfficiencyCurveSpec>& specs) {
    auto& per_format = curves_[static_cast<std::size_t>(c)];
    for (const EfficiencyCurveSpec& s : specs) {
      Curve curve;
      curve.log_k = s.k > 0 ? std::log(static_cast<double>(s.k)) : 0.0;
      curve.causal = s.causal;
      for (double v : s.sizes) curve.log_sizes.push_back(std::log(v));
      curve.efficiency = s.efficiency;
      per_format[format_index(s.format)].push_back(std::move(curve));
    }
    for (auto& v : per_format)
      std::sort(v.begin(), v.end(),
                [](const Curve& a, const Curve& b) { return a.log_k < b.log_k; });
  };
  add(KernelClass::gemm, t.gemm);
  add(KernelClass::grouped_gemm, t.grouped_gemm);
  add(KernelClass::attention, t.attention);
  mem_max_ = t.memory_efficiency_max;
  mem_half_ = t.memory_half_bytes.si();
  launch_ = t.launch_overhead.si();
  description_ = fmt::format("kernel table '{}'; classes and formats it lacks: {}",
                             gpu.kernels->name(), ceiling);
}

bool KernelEfficiency::tabled(KernelClass c, std::size_t format) const {
  return !curves_[static_cast<std::size_t>(c)][format].empty();
}

double KernelEfficiency::compute(KernelClass c, std::size_t format, double size, double k,
                                 bool causal, double flops) const {
  const std::vector<Curve>& v = curves_[static_cast<std::size_t>(c)][format];
  if (v.empty()) return roofline(flops);
  const double ls = std::log(std::max(size, 1.0));
  if (c == KernelClass::attention) {
    for (const Curve& curve : v)
      if (curve.causal == causal) return curve.at(ls);
    return v.front().at(ls);
  }
  // GEMM: between the two curves whose K brackets k, linear in log K; held outside.
  const double lk = std::log(std::max(k, 1.0));
  if (v.size() == 1 || lk <= v.front().log_k) return v.front().at(ls);
  if (lk >= v.back().log_k) return v.back().at(ls);
  std::size_t j = 1;
  while (v[j].log_k < lk) ++j;
  const double t = (lk - v[j - 1].log_k) / (v[j].log_k - v[j - 1].log_k);
  return (1 - t) * v[j - 1].at(ls) + t * v[j].at(ls);
}

double KernelEfficiency::memory(double bytes) const {
  return mem_max_ * bytes / (bytes + mem_half_);
}

}  // namespace lightsim::fabric
