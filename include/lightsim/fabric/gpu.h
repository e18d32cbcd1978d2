// One accelerator: peak compute per number format, HBM, scale-up and scale-out I/O, and the
// fraction of peak real kernels achieve (docs/fabric.md, "GPU presets").
#pragma once

#include <cstdint>

#include <optional>
#include <string>
#include <string_view>

#include "lightsim/core/config.h"
#include "lightsim/core/config_ref.h"
#include "lightsim/fabric/kernels.h"

namespace lightsim::fabric {

// A GPU spec (kind "gpu", presets in configs/gpus/). Peak rates are dense (no sparsity);
// bandwidths are per GPU and per direction.
struct GpuSpec {
  static constexpr std::string_view kind = "gpu";
  static constexpr std::string_view preset_dir = "gpus";

  std::string name;
  FlopRate peak_bf16 = FlopRate::si(1e15);
  FlopRate peak_fp8 = FlopRate::si(2e15);
  std::optional<FlopRate> peak_fp4;  // unset: no native FP4 (Hopper)
  Bandwidth hbm_bandwidth = Bandwidth::si(3.35e12);
  DataSize hbm_capacity = DataSize::si(80e9);
  Bandwidth scale_up_bandwidth = Bandwidth::si(450e9);  // NVLink-class, per direction
  Bandwidth nic_bandwidth = Bandwidth::si(50e9);        // scale-out NIC, per direction
  // Streaming multiprocessors (0: unknown). Communication kernels that run on SMs take their
  // share of them from compute while they run (docs/prefill.md, two-micro-batch overlap).
  std::int64_t sm_count = 0;
  // Measured kernel efficiencies (configs/kernels/); unset: the roofline ceiling below.
  std::optional<config::Ref<KernelTableSpec>> kernels;
  // Roofline ceiling, used where no kernel table applies: eff(x) = eff_max x / (x + x_half)
  // (small kernels cannot fill the machine). GEMM: x = FLOPs of the kernel; memory-bound:
  // x = bytes moved.
  double gemm_efficiency_max = 0.80;
  Flops gemm_half_work = Flops::si(1e9);
  double memory_efficiency_max = 0.85;
  DataSize memory_half_bytes = DataSize::si(4e6);
  // Board power (decode module's utilization power model, docs/decode.md): the thermal design
  // power and the power drawn idle with memory and clocks up. Unset: not modelled.
  std::optional<Power> tdp;
  std::optional<Power> idle_power;
  // Energy to read one byte from HBM (DRAM core + TSVs + PHY; the energy study,
  // docs/studies.md "energy"). Unset: not modelled.
  std::optional<EnergyPerByte> hbm_energy_per_byte;

  static void describe(config::Schema<GpuSpec>& s);

  // Peak FLOP/s for "bf16", "fp8" or "fp4"; fp4 on a GPU without it is a ConfigError.
  FlopRate peak(std::string_view dtype) const;
  double gemm_efficiency(double flops) const;
  double memory_efficiency(double bytes) const;
  // Roofline time of one kernel with achievable efficiencies: max(compute, memory).
  Time kernel_time(double flops, double bytes, std::string_view dtype) const;
  // W: board power at `utilization` in [0, 1] of the dynamic range, the linear model between
  // idle and full load, idle + (tdp - idle) u (Fan, Weber, Barroso, ISCA 2007; docs/decode.md
  // "Power"). ConfigError naming the GPU when tdp or idle_power is unset.
  double board_power(double utilization) const;
};

}  // namespace lightsim::fabric
