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

// NB consecutive blocks of kBlock rows (block b's matrices at b d kBlock floats, its rows'
// sums at b kBlock), all d channels, in one pass:
//   acc = sum_j (W_eff + corr) x_j, sum = sum_j S u_j, rin = sum_j W_eff^2 u_j^2
// (corr: per-query drift correction of the own-channel weight, or null), with L-lane vectors
// (the native width of the target: a wider generic vector is lowered through the stack).
// Per row, the sums run over j = 0..d-1 in order with separate multiply and add (no FMA: this
// file is built with -ffp-contract=off, src/CMakeLists.txt), so every code path and every NB
// give the same bits, and acc equals the sequential float product when nothing is impaired.
// NB > 1 only adds independent accumulators: with 16 lanes a block has 2 vectors per sum, and
// 2 dependent chains of adds wait for the add latency (docs/performance.md, "Kernels on the
// Intel VM"). The switches are template parameters so the inner loop carries no tests.
template <typename V, bool kCorr, bool kShot, bool kRin, int NB>
inline __attribute__((always_inline)) void block_pass_body(
    const float* __restrict w, const float* __restrict s, const float* __restrict corr,
    const float* __restrict x, const float* __restrict u, const float* __restrict u2, int d,
    float* __restrict acc, float* __restrict sum, float* __restrict rin2) {
  constexpr int L = sizeof(V) / sizeof(float), kV = kBlock / L;
  const std::ptrdiff_t bs = static_cast<std::ptrdiff_t>(d) * kBlock;  // one block's matrix
  V a[NB][kV] = {}, sm[NB][kV] = {}, q[NB][kV] = {};
  for (int j = 0; j < d; ++j) {
    const std::ptrdiff_t o = static_cast<std::ptrdiff_t>(j) * kBlock;
#pragma GCC unroll 4
    for (int nb = 0; nb < NB; ++nb) {
      const std::ptrdiff_t ob = o + nb * bs;
#pragma GCC unroll 8
      for (int v = 0; v < kV; ++v) {
        V wv;
        load(wv, w + ob + v * L);
        if constexpr (kCorr) {
          V cv;
          load(cv, corr + ob + v * L);
          a[nb][v] += (wv + cv) * x[j];
        } else {
          a[nb][v] += wv * x[j];
        }
        if constexpr (kShot) {
          V sv;
          load(sv, s + ob + v * L);
          sm[nb][v] += sv * u[j];
        }
        if constexpr (kRin) q[nb][v] += wv * wv * u2[j];
      }
    }
  }
#pragma GCC unroll 4
  for (int nb = 0; nb < NB; ++nb)
#pragma GCC unroll 8
    for (int v = 0; v < kV; ++v) {
      store(acc + nb * kBlock + v * L, a[nb][v]);
      store(sum + nb * kBlock + v * L, sm[nb][v]);
      store(rin2 + nb * kBlock + v * L, q[nb][v]);
    }
}

// `blocks` consecutive blocks: NB at a time (4 when a block is 2 vectors wide: 8 chains per
// sum; with the noise on, 4 measured 5 % faster than 2 on the Intel VM), the rest one by one.
template <typename V, bool kCorr, bool kShot, bool kRin>
inline __attribute__((always_inline)) void block_pass_blocks(
    const float* __restrict w, const float* __restrict s, const float* __restrict corr,
    const float* __restrict x, const float* __restrict u, const float* __restrict u2, int d,
    float* __restrict acc, float* __restrict sum, float* __restrict rin2, int blocks) {
  constexpr int kV = kBlock / static_cast<int>(sizeof(V) / sizeof(float));
  constexpr int NB = kV > 2 ? 1 : 4;
  const std::ptrdiff_t bs = static_cast<std::ptrdiff_t>(d) * kBlock;
  int b = 0;
  if constexpr (NB > 1)
    for (; b + NB <= blocks; b += NB)
      block_pass_body<V, kCorr, kShot, kRin, NB>(
          w + static_cast<std::ptrdiff_t>(b) * bs, s + static_cast<std::ptrdiff_t>(b) * bs,
          kCorr ? corr + static_cast<std::ptrdiff_t>(b) * bs : nullptr, x, u, u2, d,
          acc + static_cast<std::ptrdiff_t>(b) * kBlock,
          sum + static_cast<std::ptrdiff_t>(b) * kBlock,
          rin2 + static_cast<std::ptrdiff_t>(b) * kBlock);
  for (; b < blocks; ++b)
    block_pass_body<V, kCorr, kShot, kRin, 1>(
        w + static_cast<std::ptrdiff_t>(b) * bs, s + static_cast<std::ptrdiff_t>(b) * bs,
        kCorr ? corr + static_cast<std::ptrdiff_t>(b) * bs : nullptr, x, u, u2, d,
        acc + static_cast<std::ptrdiff_t>(b) * kBlock,
        sum + static_cast<std::ptrdiff_t>(b) * kBlock,
        rin2 + static_cast<std::ptrdiff_t>(b) * kBlock);
}

template <typename V>
inline __attribute__((always_inline)) void block_pass_dispatch(
    const float* __restrict w, const float* __restrict s, const float* __restrict corr,
    const float* __restrict x, const float* __restrict u, const float* __restrict u2, int d,
    bool shot, bool rin, float* __restrict acc, float* __restrict sum, float* __restrict rin2,
    int blocks) {
#define LIGHTSIM_BLOCK_PASS_CASE(c, sh, ri)                    \
  if ((corr != nullptr) == (c) && shot == (sh) && rin == (ri)) \
    return block_pass_blocks<V, c, sh, ri>(w, s, corr, x, u, u2, d, acc, sum, rin2, blocks);
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

// See HalfPhaseSinCos. The reduction: q = round(h 2/pi) ((v + 1.5 2^52) - 1.5 2^52 rounds to
// nearest), r = (h - q p1) - q p1t with fdlibm's p1 (the first 33 bits of pi/2: q p1 is exact
// for |q| < 2^20) and p1t = pi/2 - p1. Then h = r + q pi/2: for even q (sin h, cos h) =
// +-(sin r, cos r), for odd q +-(cos r, -sin r).
inline __attribute__((always_inline)) void half_phase_sincos_body(const double* __restrict h,
                                                                  double* __restrict s,
                                                                  double* __restrict c, int n) {
  constexpr double kTwoOverPi = 6.36619772367581382433e-01;
  constexpr double kPio2Hi = 1.57079632673412561417e+00;
  constexpr double kPio2Lo = 6.07710050650619224932e-11;
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52
  constexpr double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                   S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                   S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  constexpr double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                   C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                   C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  for (int k = 0; k < n; ++k) {
    const double x = h[k];
    const double q = (x * kTwoOverPi + kRound) - kRound;
    const double r = (x - q * kPio2Hi) - q * kPio2Lo;
    const double z = r * r;
    const double sn = r + (z * r) * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
    const double cs =
        1.0 - (0.5 * z - (z * z) * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6))))));
    const double half = 0.5 * q;
    const bool odd = half != (half + kRound) - kRound;
    s[k] = odd ? cs : sn;
    c[k] = odd ? -sn : cs;
  }
}

// See MixBlock. Lanes = rows; per channel the rings run in bus order.
inline __attribute__((always_inline)) void mix_block_body(const double* __restrict sb,
                                                          const double* __restrict cb,
                                                          const double* __restrict sa,
                                                          const double* __restrict ca, RingTerms t,
                                                          int d, double* __restrict thru,
                                                          double* __restrict drop) {
  constexpr double kTiny = 0x1p-600, kHuge = 0x1p600;
  for (int j = 0; j < d; ++j) {
    double num[kBlock], den[kBlock], dr[kBlock];
    for (int k = 0; k < kBlock; ++k) {
      num[k] = 1.0;
      den[k] = 1.0;
      dr[k] = 0.0;
    }
    const double* saj = sa + static_cast<std::ptrdiff_t>(j) * d;
    const double* caj = ca + static_cast<std::ptrdiff_t>(j) * d;
    for (int i = 0; i < d; ++i) {
      const double sai = saj[i], cai = caj[i];
      const double* sbi = sb + static_cast<std::ptrdiff_t>(i) * kBlock;
      const double* cbi = cb + static_cast<std::ptrdiff_t>(i) * kBlock;
      for (int k = 0; k < kBlock; ++k) {
        const double sn = sai * cbi[k] + cai * sbi[k];
        const double q = t.four_x * (sn * sn);
        const double b = t.den0 + q;
        dr[k] = dr[k] * b + t.drop_num * num[k];
        num[k] = num[k] * (t.thru0 + q);
        den[k] = den[k] * b;
      }
      if ((i & 7) == 7)
        for (int k = 0; k < kBlock; ++k) {
          const double f = den[k] < kTiny ? kHuge : (den[k] > kHuge ? kTiny : 1.0);
          num[k] *= f;
          den[k] *= f;
          dr[k] *= f;
        }
    }
    const std::ptrdiff_t o = static_cast<std::ptrdiff_t>(j) * kBlock;
    for (int k = 0; k < kBlock; ++k) {
      thru[o + k] = num[k] / den[k];
      drop[o + k] = dr[k] / den[k];
    }
  }
}

#define LIGHTSIM_BLOCK_PASS_ARGS                                                                 \
  const float *__restrict w, const float *__restrict s, const float *__restrict corr,            \
      const float *__restrict x, const float *__restrict u, const float *__restrict u2, int d,   \
      bool shot, bool rin, float *__restrict acc, float *__restrict sum, float *__restrict rin2, \
      int blocks
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
    block_pass_dispatch<V>(w, s, corr, x, u, u2, d, shot, rin, acc, sum, rin2, blocks);            \
  }                                                                                                \
  attr void drift_block_##name(LIGHTSIM_DRIFT_ARGS) {                                              \
    drift_block_body(corr, field, z, rho, innov, a, b, blend, det, own, c, sigma, d);              \
  }                                                                                                \
  attr void finish_rows_##name(LIGHTSIM_FINISH_ARGS) {                                             \
    finish_rows_body(acc, sum, rin2, z, bias, scale, base, shot, rin, lsb, half, currents, scores, \
                     n);                                                                           \
  }                                                                                                \
  attr void half_phase_sincos_##name(const double* h, double* s, double* c, int n) {               \
    half_phase_sincos_body(h, s, c, n);                                                            \
  }                                                                                                \
  attr void mix_block_##name(const double* sb, const double* cb, const double* sa,                 \
                             const double* ca, RingTerms t, int d, double* thru, double* drop) {   \
    mix_block_body(sb, cb, sa, ca, t, d, thru, drop);                                              \
  }                                                                                                \
  const KernelSet kSet_##name = {block_pass_##name, drift_block_##name, finish_rows_##name,        \
                                 half_phase_sincos_##name, mix_block_##name};
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
