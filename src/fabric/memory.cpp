// Memory reads (memory.h).
#include "lightsim/fabric/memory.h"

#include "lightsim/core/error.h"

namespace lightsim::fabric {

MemoryRead memory_read(double bytes, EnergyPerByte energy_per_byte, Bandwidth bandwidth,
                       Time floor) {
  LIGHTSIM_CHECK(bandwidth.si() > 0, "memory_read: bandwidth must be positive");
  return {bytes, bytes * energy_per_byte.si(), floor.si() + bytes / bandwidth.si()};
}

MemoryRead hbm_read(const GpuSpec& gpu, double bytes, Time floor) {
  LIGHTSIM_CHECK_AS(ConfigError, gpu.hbm_energy_per_byte.has_value(),
                    "gpu {}: hbm_energy_per_byte: not set (the HBM read energy per byte)",
                    gpu.name);
  return memory_read(bytes, *gpu.hbm_energy_per_byte, gpu.hbm_bandwidth, floor);
}

}  // namespace lightsim::fabric
