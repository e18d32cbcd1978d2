// Streaming reads from a memory (a GPU's HBM, an LPDDR pool): energy and latency of moving
// bytes out of it (docs/fabric.md "Memory reads"; the energy study's baselines).
#pragma once

#include "lightsim/core/units.h"
#include "lightsim/fabric/gpu.h"

namespace lightsim::fabric {

// One read, SI: bytes B, energy J, latency s.
struct MemoryRead {
  double bytes = 0;
  double energy = 0;
  double latency = 0;
};

// A streaming read of `bytes`: energy = bytes x energy_per_byte, latency = floor + bytes /
// bandwidth (floor: the fixed cost of issuing it, e.g. a kernel launch). bandwidth > 0.
MemoryRead memory_read(double bytes, EnergyPerByte energy_per_byte, Bandwidth bandwidth,
                       Time floor);

// memory_read from `gpu`'s HBM (hbm_energy_per_byte, hbm_bandwidth); a GPU without
// hbm_energy_per_byte is a ConfigError naming it.
MemoryRead hbm_read(const GpuSpec& gpu, double bytes, Time floor);

}  // namespace lightsim::fabric
