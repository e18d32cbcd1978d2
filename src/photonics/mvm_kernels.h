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

// `blocks` consecutive blocks (block b's w, s, corr at b d kBlock, its acc, sum, rin2 at
// b kBlock), all d channels, in one pass: acc = sum_j (W_eff + corr) x_j, sum = sum_j S u_j,
// rin2 = sum_j W_eff^2 u_j^2 (corr may be null; shot/rin switch the last two).
using BlockPass = void (*)(const float* w, const float* s, const float* corr, const float* x,
                           const float* u, const float* u2, int d, bool shot, bool rin, float* acc,
                           float* sum, float* rin2, int blocks);
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

// ---- the bank state (BankState::compute_static), in double --------------------------------
// (s[k], c[k]) = +-(sin h[k], cos h[k]) with one sign per element, which the ring responses do
// not see (they use sin^2 of sums of half-phases): h reduced by the nearest multiple of pi/2
// (Cody-Waite, two parts), then fdlibm's kernel polynomials of sin and cos on [-pi/4, pi/4]
// (k_sin.c, k_cos.c: error below 2^-58 there), so |s - (+-sin h)| is about 1e-16 for
// |h| < 2^19. The same bits on every path (the polynomial and the reduction are plain IEEE
// arithmetic in a fixed order; no libm call).
using HalfPhaseSinCos = void (*)(const double* h, double* s, double* c, int n);
// Phase-independent terms of Ring::at_phase: 4x, (1 - x)^2, (r2 a - r1)^2, (1 - r1^2)(1 - r2^2) a.
struct RingTerms {
  double four_x = 0.0, den0 = 0.0, thru0 = 0.0, drop_num = 0.0;
};
// One block of kBlock rows: the through and drop fractions of every channel j after the d rings
// of each row, in bus order (ring 0 first). Light of channel j meets ring i at half-phase
// A_ji + B_i (A: channel spacing, B: the ring's own detuning), so with (sa, ca) the sine and
// cosine of A ([j][i], d x d) and (sb, cb) those of B (blocked, d x kBlock),
// sin(A + B) = sa cb + ca sb and each ring passes T_i = (thru0 + q) / (den0 + q) and drops
// D_i = drop_num / (den0 + q), q = 4x sin^2. The bus recursion
//   drop <- drop + thru D_i,  thru <- thru T_i
// is carried as fractions over a common denominator (thru = N / P, drop = U / P:
// U <- U b + drop_num N, N <- N a, P <- P b with a = thru0 + q, b = den0 + q), so there is
// one division per output instead of two per ring; N, U, P are rescaled together by 2^+-600
// (exact) when P leaves [2^-600, 2^600]. thru, drop: d x kBlock.
using MixBlock = void (*)(const double* sb, const double* cb, const double* sa, const double* ca,
                          RingTerms terms, int d, double* thru, double* drop);

struct KernelSet {
  BlockPass block_pass;
  DriftBlock drift_block;
  FinishRows finish_rows;
  HalfPhaseSinCos half_phase_sincos;
  MixBlock mix_block;
};

// The path for `level` (throws InternalError when the CPU lacks it), or the best for this CPU.
const KernelSet& kernels_for(detail::SimdLevel level);
const KernelSet& kernels_for_cpu();

}  // namespace lightsim::photonics::kernels
