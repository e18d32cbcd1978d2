// GPU spec fields and the achievable-efficiency roofline (gpu.h).
#include "lightsim/fabric/gpu.h"

#include <algorithm>

namespace lightsim::fabric {

void GpuSpec::describe(config::Schema<GpuSpec>& s) {
  s.help(
      "One accelerator: dense peak compute per format, HBM, scale-up and NIC bandwidth per "
      "direction, and achievable-efficiency curves (docs/fabric.md).");
  s.field("name", &GpuSpec::name, "display name");
  s.field("peak_bf16", &GpuSpec::peak_bf16, "dense BF16 tensor peak").positive();
  s.field("peak_fp8", &GpuSpec::peak_fp8, "dense FP8 tensor peak").positive();
  s.field("peak_fp4", &GpuSpec::peak_fp4, "dense FP4 tensor peak; unset when not supported")
      .positive();
  s.field("hbm_bandwidth", &GpuSpec::hbm_bandwidth, "HBM bandwidth").positive();
  s.field("hbm_capacity", &GpuSpec::hbm_capacity, "HBM capacity").positive();
  s.field("scale_up_bandwidth", &GpuSpec::scale_up_bandwidth,
          "scale-up (NVLink-class) bandwidth per GPU per direction")
      .positive();
  s.field("nic_bandwidth", &GpuSpec::nic_bandwidth, "scale-out NIC bandwidth per GPU per direction")
      .positive();
  s.field("sm_count", &GpuSpec::sm_count,
          "streaming multiprocessors (cite the source in the file); 0: unknown, then "
          "communication kernels take no SMs from compute")
      .range(std::int64_t{0}, std::int64_t{4096});
  s.field("kernels", &GpuSpec::kernels,
          "measured kernel efficiency table (configs/kernels/); unset: the roofline ceiling "
          "gemm_efficiency_max / memory_efficiency_max");
  s.field("gemm_efficiency_max", &GpuSpec::gemm_efficiency_max,
          "fraction of peak a large GEMM achieves where no kernel table applies")
      .range(0.01, 1.0);
  s.field("gemm_half_work", &GpuSpec::gemm_half_work, "GEMM size at which half of that is reached")
      .positive();
  s.field("memory_efficiency_max", &GpuSpec::memory_efficiency_max,
          "fraction of HBM bandwidth a large streaming kernel achieves")
      .range(0.01, 1.0);
  s.field("memory_half_bytes", &GpuSpec::memory_half_bytes,
          "bytes moved at which half of that is reached")
      .positive();
  s.field("tdp", &GpuSpec::tdp, "board thermal design power (max sustained); unset: unknown")
      .positive();
  s.field("idle_power", &GpuSpec::idle_power,
          "board power idle with clocks and memory up; unset: unknown")
      .positive();
  s.field("hbm_energy_per_byte", &GpuSpec::hbm_energy_per_byte,
          "energy to read one byte from HBM (cite the source in the file); unset: unknown")
      .positive();
  s.rule([](const GpuSpec& g) -> std::optional<std::string> {
    if (g.tdp && g.idle_power && g.idle_power->si() >= g.tdp->si())
      return "'idle_power' must be below 'tdp'";
    return std::nullopt;
  });
}

FlopRate GpuSpec::peak(std::string_view dtype) const {
  if (dtype == "bf16") return peak_bf16;
  if (dtype == "fp8") return peak_fp8;
  if (dtype == "fp4") {
    LIGHTSIM_CHECK_AS(ConfigError, peak_fp4.has_value(), "gpu '{}' has no FP4 tensor cores", name);
    return *peak_fp4;
  }
  LIGHTSIM_THROW(ConfigError, "unknown number format '{}' (expected bf16, fp8 or fp4)", dtype);
}

double GpuSpec::gemm_efficiency(double flops) const {
  return gemm_efficiency_max * flops / (flops + gemm_half_work.si());
}

double GpuSpec::memory_efficiency(double bytes) const {
  return memory_efficiency_max * bytes / (bytes + memory_half_bytes.si());
}

Time GpuSpec::kernel_time(double flops, double bytes, std::string_view dtype) const {
  const double compute = flops > 0 ? flops / (peak(dtype).si() * gemm_efficiency(flops)) : 0.0;
  const double memory = bytes > 0 ? bytes / (hbm_bandwidth.si() * memory_efficiency(bytes)) : 0.0;
  return Time::si(std::max(compute, memory));
}

double GpuSpec::board_power(double utilization) const {
  LIGHTSIM_CHECK_AS(ConfigError, tdp && idle_power,
                    "gpu '{}' needs 'tdp' and 'idle_power' (W) for the board power model", name);
  const double idle = idle_power->si();
  return idle + (tdp->si() - idle) * utilization;
}

}  // namespace lightsim::fabric
