// Internal: the SIMD loops of the MVM kernel (mvm.cpp, drift_process.cpp, detection_chain.cpp),
// one set per code path (AVX-512, AVX2, baseline x86-64), chosen once per process from the CPU
// or forced for tests (MvmKernel::use_simd_level). Every path gives the same bits: plain IEEE
// multiply, add, divide and square root in the same order per element, no FMA (this file's .cpp
// is built with -ffp-contract=off, src/CMakeLists.txt).
//
// Layout: per-query matrices in blocks of kBlock rows, channel-major inside a block (element
// (row k of the block, channel j) at j * kBlock + k), so SIMD lanes run over rows.
#pragma once

#include "lightsim/core/rng.h"
#include "lightsim/photonics/drift_process.h"

namespace lightsim::photonics::kernels {

constexpr int kBlock = 32;

// Lone-ring weight at the channel wavelength in float: w(delta) = (p + q s^2) / (r + q s^2),
// s = sin(k delta / (lambda + delta)): RingWeightConsts, declared in drift_process.h (a member).

// One block, all d channels, in one pass: acc = sum_j (W_eff + corr) x_j, sum = sum_j S u_j,
// rin2 = sum_j W_eff^2 u_j^2 (corr may be null; shot/rin switch the last two).
using BlockPass = void (*)(const float* w, const float* s, const float* corr, const float* x,
                           const float* u, const float* u2, int d, bool shot, bool rin, float* acc,
                           float* sum, float* rin2);
// Per-query drift of one block. z: d x kBlock standard normals; the unit field f is AR(1)
// along the bus (rho, innov = sqrt(1 - rho^2)), rows independent (docs/photonics.md,
// "Per-query drift", says why); F = a field + b f when blend, else f; field = F (out);
// corr = w(det + sigma F) - own, the change of each ring's own-channel weight.
using DriftBlock = void (*)(float* corr, float* field, const float* z, float rho, float innov,
                            float a, float b, bool blend, const float* det, const float* own,
                            RingWeightConsts c, float sigma, int d);
// Per row: current = scale acc + bias + sqrt(base + shot sum + rin rin2) z, ADC rounding
// when lsb > 0, scores = (current - bias) / scale.
using FinishRows = void (*)(const float* acc, const float* sum, const float* rin2, const float* z,
                            const float* bias, float scale, float base, float shot, float rin,
                            float lsb, float half, float* currents, float* scores, int n);

struct KernelSet {
  BlockPass block_pass;
  DriftBlock drift_block;
  FinishRows finish_rows;
};

// The path for `level` (throws InternalError when the CPU lacks it), or the best for this CPU.
const KernelSet& kernels_for(detail::SimdLevel level);
const KernelSet& kernels_for_cpu();

}  // namespace lightsim::photonics::kernels
