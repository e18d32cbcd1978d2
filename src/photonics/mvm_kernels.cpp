// The MVM kernel's SIMD loops, one set per code path (see mvm_kernels.h).
#include "photonics/mvm_kernels.h"

#include <cmath>
#include <cstddef>
#include <cstring>

#include "lightsim/core/error.h"

namespace lightsim::photonics::kernels {
namespace {

// (A vector_size attribute on an alias template is dropped by GCC 12, so: one typedef each.)
typedef float Vec16 __attribute__((vector_size(64)));
typedef float Vec8 __attribute__((vector_size(32)));
typedef float Vec4 __attribute__((vector_size(16)));

// Vectors pass by reference, never by value: a by-value vector wider than the baseline target
// has a target-dependent calling convention (GCC and clang -Wpsabi), and these helpers are
// instantiated outside the target-specific kernels they are inlined into.
template <typename V>
inline __attribute__((always_inline)) void load(V& v, const float* p) {
  std::memcpy(&v, p, sizeof v);
}
template <typename V>
inline __attribute__((always_inline)) void store(float* p, const V& v) {
  std::memcpy(p, &v, sizeof v);
}

// One block of kBlock rows, all d channels, in one pass:
//   acc = sum_j (W_eff + corr) x_j, sum = sum_j S u_j, rin = sum_j W_eff^2 u_j^2
// (corr: per-query drift correction of the own-channel weight, or null), with L-lane vectors
// (the native width of the target: a wider generic vector is lowered through the stack).
// Per row, the sums run over j = 0..d-1 in order with separate multiply and add (no FMA: this
// file is built with -ffp-contract=off, src/CMakeLists.txt), so every code path gives the
// same bits, and acc equals the sequential float product when nothing is impaired.
// The switches are template parameters so the inner loop carries no tests.
template <typename V, bool kCorr, bool kShot, bool kRin>
inline __attribute__((always_inline)) void block_pass_body(
    const float* __restrict w, const float* __restrict s, const float* __restrict corr,
    const float* __restrict x, const float* __restrict u, const float* __restrict u2, int d,
    float* __restrict acc, float* __restrict sum, float* __restrict rin2) {
  constexpr int L = sizeof(V) / sizeof(float), kV = kBlock / L;
  V a[kV] = {}, sm[kV] = {}, q[kV] = {};
  for (int j = 0; j < d; ++j) {
    const std::ptrdiff_t o = static_cast<std::ptrdiff_t>(j) * kBlock;
#pragma GCC unroll 8
    for (int v = 0; v < kV; ++v) {
      V wv;
      load(wv, w + o + v * L);
      if constexpr (kCorr) {
        V cv;
        load(cv, corr + o + v * L);
        a[v] += (wv + cv) * x[j];
      } else {
        a[v] += wv * x[j];
      }
      if constexpr (kShot) {
        V sv;
        load(sv, s + o + v * L);
        sm[v] += sv * u[j];
      }
      if constexpr (kRin) q[v] += wv * wv * u2[j];
    }
  }
#pragma GCC unroll 8
  for (int v = 0; v < kV; ++v) {
    store(acc + v * L, a[v]);
    store(sum + v * L, sm[v]);
    store(rin2 + v * L, q[v]);
  }
}

template <typename V>
inline __attribute__((always_inline)) void block_pass_dispatch(
    const float* __restrict w, const float* __restrict s, const float* __restrict corr,
    const float* __restrict x, const float* __restrict u, const float* __restrict u2, int d,
    bool shot, bool rin, float* __restrict acc, float* __restrict sum, float* __restrict rin2) {
#define LIGHTSIM_BLOCK_PASS_CASE(c, sh, ri)                    \
  if ((corr != nullptr) == (c) && shot == (sh) && rin == (ri)) \
    return block_pass_body<V, c, sh, ri>(w, s, corr, x, u, u2, d, acc, sum, rin2);
  LIGHTSIM_BLOCK_PASS_CASE(false, true, true)
  LIGHTSIM_BLOCK_PASS_CASE(true, true, true)
  LIGHTSIM_BLOCK_PASS_CASE(false, false, false)
  LIGHTSIM_BLOCK_PASS_CASE(true, false, false)
  LIGHTSIM_BLOCK_PASS_CASE(false, true, false)
  LIGHTSIM_BLOCK_PASS_CASE(true, true, false)
  LIGHTSIM_BLOCK_PASS_CASE(false, false, true)
  LIGHTSIM_BLOCK_PASS_CASE(true, false, true)
#undef LIGHTSIM_BLOCK_PASS_CASE
}

// One block (see DriftBlock). The unit field, lanes = rows: f_0 = z_0,
// f_j = rho f_{j-1} + innov z_j along the bus; its step in time F = a field + b f (blend) or f;
// then the change of each ring's own-channel weight through the exact lone-ring response
// (Ring::at_phase),
//   T - D = ((r2 a - r1)^2 - (1 - r1^2)(1 - r2^2) a + 4 x s^2) / ((1 - x)^2 + 4 x s^2),
//   x = r1 r2 a, s = sin(phi / 2), phi = 2 pi n_g L (1/lambda - 1/(lambda + delta)),
// in float: phi / 2 reduced by multiples of pi (s^2 has period pi), sin by its degree-11 Taylor
// polynomial on [-pi/2, pi/2] (error < 6e-8), so |w_float - w| is a few 1e-7 against detector
// noise of about 1e-3 of full scale.
inline __attribute__((always_inline)) void drift_block_body(
    float* __restrict corr, float* __restrict field, const float* __restrict z, float rho,
    float innov, float a, float b, bool blend, const float* __restrict det,
    const float* __restrict own, RingWeightConsts c, float sigma, int d) {
  constexpr float kPiF = 3.14159265358979f, kInvPi = 0.318309886183791f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: (v + kRound) - kRound rounds to nearest
  float f[kBlock];
  for (int k = 0; k < kBlock; ++k) f[k] = z[k];
  for (int j = 0; j < d; ++j) {
    const std::ptrdiff_t o = static_cast<std::ptrdiff_t>(j) * kBlock;
    if (j > 0)
      for (int k = 0; k < kBlock; ++k) {
        const float kept = rho * f[k], added = innov * z[o + k];
        f[k] = kept + added;
      }
    for (int k = 0; k < kBlock; ++k) {
      float v = f[k];
      if (blend) {
        const float kept = a * field[o + k], added = b * v;
        v = kept + added;
      }
      field[o + k] = v;
      const float delta = det[o + k] + sigma * v;
      float t = c.k * (delta / (c.lambda + delta));  // phi / 2
      t = t - ((t * kInvPi + kRound) - kRound) * kPiF;
      const float t2 = t * t;
      const float sn =
          t * (1.0f +
               t2 * (-1.0f / 6 +
                     t2 * (1.0f / 120 +
                           t2 * (-1.0f / 5040 + t2 * (1.0f / 362880 + t2 * (-1.0f / 39916800))))));
      const float qs = c.q * (sn * sn);
      corr[o + k] = (c.p + qs) / (c.r + qs) - own[o + k];
    }
  }
}

// Per row (see FinishRows). Built with -fno-math-errno so sqrt and the rounding vectorize.
inline __attribute__((always_inline)) void finish_rows_body(
    const float* __restrict acc, const float* __restrict sum, const float* __restrict rin2,
    const float* __restrict z, const float* __restrict bias, float scale, float base, float shot,
    float rin, float lsb, float half, float* __restrict currents, float* __restrict scores, int n) {
  const float inv_scale = 1.0f / scale;
  const float inv_lsb = lsb > 0.0f ? 1.0f / lsb : 0.0f;
  for (int r = 0; r < n; ++r) {
    const float var = base + shot * sum[r] + rin * rin2[r];
    float current = scale * acc[r] + bias[r] + std::sqrt(var) * z[r];
    if (lsb > 0.0f) {
      current = current < -half ? -half : (current > half - lsb ? half - lsb : current);
      current = std::nearbyint(current * inv_lsb) * lsb;
    }
    currents[r] = current;
    scores[r] = (current - bias[r]) * inv_scale;
  }
}

#define LIGHTSIM_BLOCK_PASS_ARGS                                                               \
  const float *__restrict w, const float *__restrict s, const float *__restrict corr,          \
      const float *__restrict x, const float *__restrict u, const float *__restrict u2, int d, \
      bool shot, bool rin, float *__restrict acc, float *__restrict sum, float *__restrict rin2
#define LIGHTSIM_DRIFT_ARGS                                                                        \
  float *corr, float *field, const float *z, float rho, float innov, float a, float b, bool blend, \
      const float *det, const float *own, RingWeightConsts c, float sigma, int d
#define LIGHTSIM_FINISH_ARGS                                                                  \
  const float *acc, const float *sum, const float *rin2, const float *z, const float *bias,   \
      float scale, float base, float shot, float rin, float lsb, float half, float *currents, \
      float *scores, int n
// One set of entry points per target; `V` is the target's native vector of floats.
#define LIGHTSIM_KERNEL_SET(name, attr, V)                                                         \
  attr void block_pass_##name(LIGHTSIM_BLOCK_PASS_ARGS) {                                          \
    block_pass_dispatch<V>(w, s, corr, x, u, u2, d, shot, rin, acc, sum, rin2);                    \
  }                                                                                                \
  attr void drift_block_##name(LIGHTSIM_DRIFT_ARGS) {                                              \
    drift_block_body(corr, field, z, rho, innov, a, b, blend, det, own, c, sigma, d);              \
  }                                                                                                \
  attr void finish_rows_##name(LIGHTSIM_FINISH_ARGS) {                                             \
    finish_rows_body(acc, sum, rin2, z, bias, scale, base, shot, rin, lsb, half, currents, scores, \
                     n);                                                                           \
  }                                                                                                \
  const KernelSet kSet_##name = {block_pass_##name, drift_block_##name, finish_rows_##name};
LIGHTSIM_KERNEL_SET(avx512, __attribute__((target("avx512f"))), Vec16)
LIGHTSIM_KERNEL_SET(avx2, __attribute__((target("avx2"))), Vec8)
LIGHTSIM_KERNEL_SET(baseline, , Vec4)
#undef LIGHTSIM_KERNEL_SET
#undef LIGHTSIM_BLOCK_PASS_ARGS
#undef LIGHTSIM_DRIFT_ARGS
#undef LIGHTSIM_FINISH_ARGS

}  // namespace

const KernelSet& kernels_for(detail::SimdLevel level) {
  LIGHTSIM_CHECK(detail::simd_level_supported(level), "SIMD level {} not supported by this CPU",
                 static_cast<int>(level));
  switch (level) {
    case detail::SimdLevel::avx512:
      return kSet_avx512;
    case detail::SimdLevel::avx2:
      return kSet_avx2;
    case detail::SimdLevel::baseline:
      break;
  }
  return kSet_baseline;
}

const KernelSet& kernels_for_cpu() {
  return kernels_for(detail::best_simd_level());
}

}  // namespace lightsim::photonics::kernels
