// The photonic MVM kernel (see mvm.h).
#include "lightsim/photonics/mvm.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <numbers>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/link_budget.h"

namespace lightsim::photonics {
namespace {

// Layout of the per-query matrices: rows in blocks of kBlock, each block channel-major
// (element (r, j) at ((r / kBlock) d + j) kBlock + r % kBlock), the row count padded with zero
// rows. A block's accumulators then stay in registers over all d channels, and each block reads
// its 2 x d x kBlock floats of W_eff and S contiguously (one pass, no per-channel load/store
// of accumulators; the previous per-channel axpy over all rows did 3 loads + 3 stores of
// accumulators per element, plus three memsets per query).
constexpr int kBlock = MvmKernel::kBlockRows;

// The helpers are always inlined into the target-specific kernels, so the vector ABI of an
// out-of-line call (which -Wpsabi warns about for vectors wider than the baseline, at every
// use) never arises.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
// (A vector_size attribute on an alias template is dropped by GCC 12, so: one typedef each.)
typedef float Vec16 __attribute__((vector_size(64)));
typedef float Vec8 __attribute__((vector_size(32)));
typedef float Vec4 __attribute__((vector_size(16)));

template <typename V>
inline __attribute__((always_inline)) V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename V>
inline __attribute__((always_inline)) void store(float* p, V v) {
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
      const V wv = load<V>(w + o + v * L);
      if constexpr (kCorr)
        a[v] += (wv + load<V>(corr + o + v * L)) * x[j];
      else
        a[v] += wv * x[j];
      if constexpr (kShot) sm[v] += load<V>(s + o + v * L) * u[j];
      if constexpr (kRin) q[v] += wv * wv * u2[j];
    }
  }
#pragma GCC unroll 8
  for (int v = 0; v < kV; ++v) {
    store<V>(acc + v * L, a[v]);
    store<V>(sum + v * L, sm[v]);
    store<V>(rin2 + v * L, q[v]);
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

#define LIGHTSIM_BLOCK_PASS_ARGS                                                               \
  const float *__restrict w, const float *__restrict s, const float *__restrict corr,          \
      const float *__restrict x, const float *__restrict u, const float *__restrict u2, int d, \
      bool shot, bool rin, float *__restrict acc, float *__restrict sum, float *__restrict rin2
__attribute__((target("avx512f"))) void block_pass_avx512(LIGHTSIM_BLOCK_PASS_ARGS) {
  block_pass_dispatch<Vec16>(w, s, corr, x, u, u2, d, shot, rin, acc, sum, rin2);
}
__attribute__((target("avx2"))) void block_pass_avx2(LIGHTSIM_BLOCK_PASS_ARGS) {
  block_pass_dispatch<Vec8>(w, s, corr, x, u, u2, d, shot, rin, acc, sum, rin2);
}
void block_pass_default(LIGHTSIM_BLOCK_PASS_ARGS) {
  block_pass_dispatch<Vec4>(w, s, corr, x, u, u2, d, shot, rin, acc, sum, rin2);
}
#undef LIGHTSIM_BLOCK_PASS_ARGS
using BlockPass = void (*)(const float*, const float*, const float*, const float*, const float*,
                           const float*, int, bool, bool, float*, float*, float*);
// Chosen once per process from the CPU (like target_clones).
BlockPass block_pass_for_cpu() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return block_pass_avx512;
  if (__builtin_cpu_supports("avx2")) return block_pass_avx2;
  return block_pass_default;
}
const BlockPass block_pass = block_pass_for_cpu();
#pragma GCC diagnostic pop

// Constants of the lone-ring weight at the channel wavelength lambda, in float (see
// drift_block): w(delta) = (p + q s^2) / (r + q s^2), s = sin(phi / 2),
// phi / 2 = k delta / (lambda + delta).
struct RingWeightConsts {
  float k, lambda, p, q, r;
};

// Per-query drift of one block: z (d x kBlock normals, channel-major) becomes each ring's
// local drift, sigma z_0 at j = 0 and rho drift_{j-1} + sigma sqrt(1 - rho^2) z_j along the bus
// (an AR(1) field, stationary with variance sigma^2); corr = w(det + drift) - own, the change of
// the ring's own-channel weight through the exact lone-ring response (Ring::at_phase):
//   T - D = ((r2 a - r1)^2 - (1 - r1^2)(1 - r2^2) a + 4 x s^2) / ((1 - x)^2 + 4 x s^2),
//   x = r1 r2 a, s = sin(phi / 2), phi = 2 pi n_g L (1/lambda - 1/(lambda + delta)),
// evaluated in float: phi / 2 reduced by multiples of pi (s^2 has period pi), sin by its
// degree-11 Taylor polynomial on [-pi/2, pi/2] (error < 6e-8), so |w_float - w| is a few
// 1e-7 (float rounding of a handful of operations) against the detector noise of about 1e-3 of
// full scale. This replaced a 2^16-entry table with linear interpolation (error < 2e-6), whose
// gathers cost about 40 us per query. Plain multiply/add/divide, no FMA (-ffp-contract=off): the
// same bits on every code path.
__attribute__((target_clones("avx512f", "avx2", "default"))) void drift_block(
    float* __restrict corr, const float* __restrict z, const float* __restrict det,
    const float* __restrict own, RingWeightConsts c, float sigma, float rho, float innov_sigma,
    int d) {
  constexpr float kPiF = 3.14159265358979f, kInvPi = 0.318309886183791f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: (v + kRound) - kRound rounds to nearest
  float drift[kBlock];
  for (int k = 0; k < kBlock; ++k) drift[k] = sigma * z[k];
  for (int j = 0; j < d; ++j) {
    const std::ptrdiff_t o = static_cast<std::ptrdiff_t>(j) * kBlock;
    if (j > 0)
      for (int k = 0; k < kBlock; ++k) drift[k] = rho * drift[k] + innov_sigma * z[o + k];
    for (int k = 0; k < kBlock; ++k) {
      const float delta = det[o + k] + drift[k];
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

// Per row: current = scale acc + bias + sqrt(var) z, var = base + shot sum + rin rin2; ADC
// quantization (round to the LSB, clipped to [-half, half - lsb]) when lsb > 0; then scores.
// Built with -fno-math-errno (src/CMakeLists.txt) so sqrt and the rounding vectorize.
__attribute__((target_clones("avx512f", "avx2", "default"))) void finish_rows(
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

}  // namespace

void ImpairmentSpec::describe(config::Schema<ImpairmentSpec>& s) {
  s.help("Impairments of the MVM kernel: what is drawn per Monte-Carlo trial and per query.");
  s.field("crosstalk", &ImpairmentSpec::crosstalk,
          "leakage between channels with bus order (off: each ring sees its own channel only)");
  s.field("quantization", &ImpairmentSpec::quantization,
          "DAC codes (off: rings sit exactly at their target detunings)");
  s.field("dac_errors", &ImpairmentSpec::dac_errors,
          "per-trial DAC gain error (corrected by the calibration table) and INL/DNL");
  s.field("fabrication_sigma", &ImpairmentSpec::fabrication_sigma,
          "standard deviation of each ring's static resonance error (untrimmed)")
      .min("0 pm");
  s.field("calibration_residual", &ImpairmentSpec::calibration_residual,
          "standard deviation of the resonance error the lock leaves, per ring")
      .min("0 pm");
  s.field("drift_global_sigma", &ImpairmentSpec::drift_global_sigma,
          "standard deviation of the chip-wide drift, per trial")
      .min("0 pm");
  s.field("drift_local_sigma", &ImpairmentSpec::drift_local_sigma,
          "standard deviation of each ring's own drift")
      .min("0 pm");
  s.field("correlation_rings", &ImpairmentSpec::correlation_rings,
          "correlation length of the per-ring drift in ring pitches (exponential; 0 = "
          "independent)")
      .min(0.0);
  s.field("noise", &ImpairmentSpec::noise,
          "draw detector, RIN and ADC noise per query (terms switched in the device's noise)");
}

MvmKernel::MvmKernel(const DeviceSpec& device, const ImpairmentSpec& impairments,
                     std::span<const float> weights)
    : imp_(impairments),
      programmer_(device),
      detection_(
          device.detector, device.tia, device.adc, device.laser,
          impairments.noise ? device.noise : NoiseSpec{false, false, false, false, false, false}),
      dac_spec_(device.dac),
      noise_spec_(impairments.noise ? device.noise
                                    : NoiseSpec{false, false, false, false, false, false}),
      rows_(static_cast<int>(weights.size()) / device.grid.channels),
      d_(device.grid.channels),
      lambdas_(channel_wavelengths(device.grid)),
      requested_(weights.begin(), weights.end()) {
  LIGHTSIM_CHECK(weights.size() == static_cast<std::size_t>(rows_) * d_ && rows_ > 0,
                 "MvmKernel: {} weights is not a multiple of {} channels", weights.size(), d_);
  const std::size_t n = weights.size();
  programmed_.assign(n, 0.0);
  static_err_.assign(n, 0.0);
  drift_.assign(n, 0.0);
  detuning_.assign(n, 0.0);
  rows_pad_ = (rows_ + kBlock - 1) / kBlock * kBlock;
  const std::size_t n_pad = static_cast<std::size_t>(rows_pad_) * d_;
  wt_.assign(n_pad, 0.0f);
  st_.assign(n_pad, 0.0f);
  own_t_.assign(n_pad, 0.0f);
  det_t_.assign(n_pad, 0.0f);
  bias_.assign(static_cast<std::size_t>(rows_), 0.0f);
  bias_s_.assign(static_cast<std::size_t>(rows_), 0.0f);
  u_.assign(static_cast<std::size_t>(d_), 0.0f);
  u2_.assign(static_cast<std::size_t>(d_), 0.0f);
  acc_.assign(static_cast<std::size_t>(rows_pad_), 0.0f);
  sum_.assign(static_cast<std::size_t>(rows_pad_), 0.0f);
  rin_.assign(static_cast<std::size_t>(rows_pad_), 0.0f);
  z_.assign(static_cast<std::size_t>(rows_), 0.0f);
  cur_.assign(static_cast<std::size_t>(rows_), 0.0f);
  zq_.assign(static_cast<std::size_t>(kBlock) * d_, 0.0f);
  corr_.assign(static_cast<std::size_t>(kBlock) * d_, 0.0f);

  // Optics: channel power at a row, modulator extinction, detector constants.
  const double loss_db = link_budget(device, device.laser.power_per_line.si()).total_loss_db;
  const double p_ch = device.laser.power_per_line.si() * std::pow(10.0, -loss_db / 10.0);
  eps_ = std::pow(10.0, -device.modulator.extinction_ratio.si() / 10.0);
  r_pch_ = device.detector.responsivity.si() * p_ch;
  scale_ = r_pch_ * (1.0 - eps_);
  const double b = detection_.bandwidth();
  const NoiseTerms base = detection_.variances(0.0, 0.0, 0.0);  // dark shot, thermal, TIA, NEP
  const_var_ = base.shot + base.thermal + base.tia + base.nep;
  shot_coef_ = noise_spec_.shot ? 2.0 * kElementaryCharge * b : 0.0;
  rin_coef_ = noise_spec_.rin ? detection_.variances(0.0, 0.0, 1.0).rin : 0.0;
  drift_rho_ = imp_.correlation_rings > 0 ? std::exp(-1.0 / imp_.correlation_rings) : 0.0;

  // Lone-ring weight at the channel wavelength, for per-query drift (drift_block).
  const Ring& ring = programmer_.ring();
  const double x = ring.x(), dd = ring.r2() * ring.a() - ring.r1();
  ring_k_ = std::numbers::pi * ring.n_g() * ring.circumference() / ring.wavelength();
  ring_p_ = dd * dd - (1.0 - ring.r1() * ring.r1()) * (1.0 - ring.r2() * ring.r2()) * ring.a();
  ring_q_ = 4.0 * x;
  ring_r_ = (1.0 - x) * (1.0 - x);

  // Ideal state: programmed detunings with an ideal DAC (or exact targets).
  const DacInstance ideal = DacInstance::ideal(dac_spec_);
  for (std::size_t i = 0; i < n; ++i) {
    const ProgrammedWeight p = programmer_.program(requested_[i], ideal);
    programmed_[i] = imp_.quantization ? p.detuning : p.target_detuning;
  }
  compute_static();
}

void MvmKernel::set_state(std::uint64_t seed, std::uint64_t trial) {
  RandomStream stream(seed, {0x50484f54ULL /* "PHOT" */, trial});
  const std::size_t n = requested_.size();
  // DACs: per-ring gain error and calibration; one INL/DNL profile per chip.
  if (imp_.dac_errors) {
    const DacInstance chip = DacInstance::sample(dac_spec_, stream);
    DacInstance dac = chip;
    for (std::size_t i = 0; i < n; ++i) {
      const DacInstance own =
          DacInstance::sample(DacSpec{dac_spec_.bits, 0.0, 0.0, dac_spec_.gain_error,
                                      dac_spec_.calibrated, dac_spec_.calibration_residual},
                              stream);
      dac.gain = own.gain;
      dac.calibrated_gain = own.calibrated_gain;
      const ProgrammedWeight p = programmer_.program(requested_[i], dac);
      programmed_[i] = imp_.quantization ? p.detuning : p.target_detuning;
    }
  }
  const double fab = imp_.fabrication_sigma.si(), cal = imp_.calibration_residual.si();
  for (std::size_t i = 0; i < n; ++i)
    static_err_[i] = fab * stream.normal() + cal * stream.normal();
  // Drift: global + local, the local part an AR(1) field along each row and down the
  // columns (separable exponential correlation, unit variance).
  const double global = imp_.drift_global_sigma.si() * stream.normal();
  const double rho = drift_rho_, innov = std::sqrt(1.0 - rho * rho);
  std::vector<double> field(n);
  for (int r = 0; r < rows_; ++r)
    for (int j = 0; j < d_; ++j) {
      const std::size_t i = static_cast<std::size_t>(r) * d_ + j;
      const double z = stream.normal();
      field[i] = j == 0 ? z : rho * field[i - 1] + innov * z;
    }
  for (int r = 1; r < rows_; ++r)
    for (int j = 0; j < d_; ++j) {
      const std::size_t i = static_cast<std::size_t>(r) * d_ + j;
      field[i] = rho * field[i - d_] + innov * field[i];
    }
  for (std::size_t i = 0; i < n; ++i) drift_[i] = global + imp_.drift_local_sigma.si() * field[i];
  compute_static();
}

void MvmKernel::compute_static() {
  const Ring& ring = programmer_.ring();
  for (int r = 0; r < rows_; ++r) {
    const std::size_t row = static_cast<std::size_t>(r) * d_;
    for (int i = 0; i < d_; ++i)
      detuning_[row + i] = programmed_[row + i] + static_err_[row + i] + drift_[row + i];
    double bias = 0.0, bias_s = 0.0;
    for (int j = 0; j < d_; ++j) {
      const double lambda = lambdas_[static_cast<std::size_t>(j)];
      double thru = 1.0, drop = 0.0;
      if (imp_.crosstalk) {
        for (int i = 0; i < d_; ++i) {
          const PortPowers p =
              ring.at(lambda, lambdas_[static_cast<std::size_t>(i)] + detuning_[row + i]);
          drop += thru * p.drop;
          thru *= p.through;
        }
      } else {
        const PortPowers p = ring.detuned(ring.wavelength(), detuning_[row + j]);
        thru = p.through;
        drop = p.drop;
      }
      const std::size_t t = blocked(r, j);
      wt_[t] = static_cast<float>(thru - drop);
      st_[t] = static_cast<float>(thru + drop);
      own_t_[t] = static_cast<float>(ring.weight(ring.wavelength(), detuning_[row + j]));
      det_t_[t] = static_cast<float>(detuning_[row + j]);
      bias += thru - drop;
      bias_s += thru + drop;
    }
    bias_[static_cast<std::size_t>(r)] = static_cast<float>(r_pch_ * eps_ * bias);
    bias_s_[static_cast<std::size_t>(r)] = static_cast<float>(r_pch_ * eps_ * bias_s);
  }
}

std::vector<float> MvmKernel::effective_weights() const {
  std::vector<float> out(requested_.size());
  for (int r = 0; r < rows_; ++r)
    for (int j = 0; j < d_; ++j) out[static_cast<std::size_t>(r) * d_ + j] = wt_[blocked(r, j)];
  return out;
}

void MvmKernel::prepare(std::span<const float> x) {
  LIGHTSIM_CHECK(x.size() == static_cast<std::size_t>(d_), "MvmKernel: {} inputs for {} channels",
                 x.size(), d_);
  // Per-line power factors u_j = eps + (1 - eps) x_j for shot and RIN.
  for (int j = 0; j < d_; ++j) {
    u_[j] = static_cast<float>(eps_ + (1.0 - eps_) * x[j]);
    u2_[j] = u_[j] * u_[j];
  }
}

void MvmKernel::score(std::span<const float> x, std::span<float> scores, RandomStream& noise,
                      std::span<float> currents) {
  prepare(x);
  const std::size_t block = static_cast<std::size_t>(kBlock) * d_;
  for (int b = 0; b < rows_pad_ / kBlock; ++b) {
    const std::size_t o = static_cast<std::size_t>(b) * block,
                      r = static_cast<std::size_t>(b) * kBlock;
    block_pass(wt_.data() + o, st_.data() + o, nullptr, x.data(), u_.data(), u2_.data(), d_,
               shot_coef_ > 0, rin_coef_ > 0, acc_.data() + r, sum_.data() + r, rin_.data() + r);
  }
  finish(scores, currents, noise);
}

void MvmKernel::score_with_drift(std::span<const float> x, std::span<float> scores,
                                 RandomStream& noise, std::span<float> currents) {
  prepare(x);
  // Per block: d x kBlock fresh normals (one fill per block; consecutive fills equal one fill
  // of the total, so the draws depend on the stream only), each ring's local drift for this
  // query (AR(1) along the bus when correlated), its own-channel weight change, then the
  // block's accumulations with the corrected weights; the scratch stays in L1.
  const float sigma = static_cast<float>(imp_.drift_local_sigma.si());
  const float rho = static_cast<float>(drift_rho_);
  const float innov_sigma =
      static_cast<float>(imp_.drift_local_sigma.si() * std::sqrt(1.0 - drift_rho_ * drift_rho_));
  const RingWeightConsts consts{
      static_cast<float>(ring_k_), static_cast<float>(programmer_.ring().wavelength()),
      static_cast<float>(ring_p_), static_cast<float>(ring_q_), static_cast<float>(ring_r_)};
  const std::size_t block = static_cast<std::size_t>(kBlock) * d_;
  for (int b = 0; b < rows_pad_ / kBlock; ++b) {
    const std::size_t o = static_cast<std::size_t>(b) * block,
                      r = static_cast<std::size_t>(b) * kBlock;
    noise.fill_normal(std::span<float>(zq_));
    drift_block(corr_.data(), zq_.data(), det_t_.data() + o, own_t_.data() + o, consts, sigma, rho,
                innov_sigma, d_);
    block_pass(wt_.data() + o, st_.data() + o, corr_.data(), x.data(), u_.data(), u2_.data(), d_,
               shot_coef_ > 0, rin_coef_ > 0, acc_.data() + r, sum_.data() + r, rin_.data() + r);
  }
  finish(scores, currents, noise);
}

void MvmKernel::finish(std::span<float> scores, std::span<float> currents, RandomStream& noise) {
  LIGHTSIM_CHECK(scores.size() == static_cast<std::size_t>(rows_) &&
                     (currents.empty() || currents.size() == scores.size()),
                 "MvmKernel: {} scores for {} rows", scores.size(), rows_);
  // acc = sum_j W_eff x_j (weight units). Physical current: scale acc + bias.
  const float scale = static_cast<float>(scale_);
  const bool analog = shot_coef_ > 0 || rin_coef_ > 0 || const_var_ > 0;
  if (!analog && !noise_spec_.adc) {
    std::copy(acc_.begin(), acc_.begin() + rows_, scores.begin());
    if (!currents.empty())
      for (int r = 0; r < rows_; ++r) currents[r] = scale * acc_[r] + bias_[r];
    return;
  }
  noise.fill_normal(std::span<float>(z_));
  float* out_currents = currents.empty() ? cur_.data() : currents.data();
  finish_rows(acc_.data(), sum_.data(), rin_.data(), z_.data(), bias_.data(), scale,
              static_cast<float>(const_var_), static_cast<float>(shot_coef_ * r_pch_),
              static_cast<float>(rin_coef_ * r_pch_ * r_pch_),
              noise_spec_.adc ? static_cast<float>(detection_.adc_lsb_current()) : 0.0f,
              static_cast<float>(0.5 * detection_.adc_full_scale_current()), out_currents,
              scores.data(), rows_);
}

}  // namespace lightsim::photonics
