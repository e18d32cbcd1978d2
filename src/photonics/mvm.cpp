// The photonic MVM kernel (see mvm.h).
#include "lightsim/photonics/mvm.h"

#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/link_budget.h"

namespace lightsim::photonics {
namespace {

// acc[r] += w[r] * a for r in [0, n): vectorizes across rows; the per-row summation order
// (over channels) is the same on every code path, so results do not depend on the clone.
__attribute__((target_clones("avx512f", "avx2", "default"))) void axpy(float* __restrict acc,
                                                                       const float* __restrict w,
                                                                       float a, int n) {
  for (int r = 0; r < n; ++r) acc[r] += w[r] * a;
}

// The three per-query accumulations in one pass over channel j:
// acc += w x_j, sum += s u_j, rin += w^2 u_j^2.
__attribute__((target_clones("avx512f", "avx2", "default"))) void axpy3(
    float* __restrict acc, float* __restrict sum, float* __restrict rin, const float* __restrict w,
    const float* __restrict s, float x, float u, float u2, int n) {
  for (int r = 0; r < n; ++r) {
    acc[r] += w[r] * x;
    sum[r] += s[r] * u;
    rin[r] += w[r] * w[r] * u2;
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void axpy_sq(float* __restrict acc,
                                                                          const float* __restrict w,
                                                                          float a2, int n) {
  for (int r = 0; r < n; ++r) acc[r] += w[r] * w[r] * a2;
}

// acc[r] += (table(det[r] + drift[r]) - own[r]) * a: per-query drift through the tabulated
// lone-ring weight (linear interpolation; pos in table steps, clamped to the table).
__attribute__((target_clones("avx512f", "avx2", "default"))) void drift_axpy(
    float* __restrict acc, const float* __restrict det, const float* __restrict drift,
    const float* __restrict own, const float* __restrict table, int table_n, float lo,
    float inv_step, float a, int n) {
  const float top = static_cast<float>(table_n - 2);
  for (int r = 0; r < n; ++r) {
    float pos = (det[r] + drift[r] - lo) * inv_step;
    pos = pos < 0.0f ? 0.0f : (pos > top ? top : pos);
    const int k = static_cast<int>(pos);
    const float f = pos - static_cast<float>(k);
    const float w = table[k] + f * (table[k + 1] - table[k]);
    acc[r] += (w - own[r]) * a;
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
  wt_.assign(n, 0.0f);
  st_.assign(n, 0.0f);
  own_t_.assign(n, 0.0f);
  det_t_.assign(n, 0.0f);
  bias_.assign(static_cast<std::size_t>(rows_), 0.0f);
  bias_s_.assign(static_cast<std::size_t>(rows_), 0.0f);
  u_.assign(static_cast<std::size_t>(d_), 0.0f);
  acc_.assign(static_cast<std::size_t>(rows_), 0.0f);
  sum_.assign(static_cast<std::size_t>(rows_), 0.0f);
  rin_.assign(static_cast<std::size_t>(rows_), 0.0f);
  z_.assign(static_cast<std::size_t>(rows_), 0.0f);
  cur_.assign(static_cast<std::size_t>(rows_), 0.0f);
  drift_q_.assign(n, 0.0f);

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

  // Lone-ring weight vs detuning, for per-query drift: +-40 FWHM (at most half an FSR)
  // around resonance in 2^16 steps (linear interpolation error ~ step^2 |w''| / 8 < 2e-6);
  // beyond it the end values hold (there w is within 2e-4 of its limit).
  const Ring& ring = programmer_.ring();
  const int table_n = 1 << 16;
  const double half_range = std::min(0.5 * ring.fsr(), 40.0 * ring.fwhm());
  table_lo_ = -half_range;
  table_step_ = 2.0 * half_range / (table_n - 1);
  table_.resize(static_cast<std::size_t>(table_n));
  for (int k = 0; k < table_n; ++k)
    table_[static_cast<std::size_t>(k)] =
        static_cast<float>(ring.weight(ring.wavelength(), table_lo_ + k * table_step_));

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
  const std::size_t n_rows = static_cast<std::size_t>(rows_);
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
      const std::size_t t = static_cast<std::size_t>(j) * n_rows + r;
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
    for (int j = 0; j < d_; ++j)
      out[static_cast<std::size_t>(r) * d_ + j] = wt_[static_cast<std::size_t>(j) * rows_ + r];
  return out;
}

void MvmKernel::accumulate(std::span<const float> x) {
  LIGHTSIM_CHECK(x.size() == static_cast<std::size_t>(d_), "MvmKernel: {} inputs for {} channels",
                 x.size(), d_);
  // Per-line power factors u_j = eps + (1 - eps) x_j for shot and RIN.
  for (int j = 0; j < d_; ++j) u_[j] = static_cast<float>(eps_ + (1.0 - eps_) * x[j]);
  std::fill(acc_.begin(), acc_.end(), 0.0f);
  std::fill(sum_.begin(), sum_.end(), 0.0f);
  std::fill(rin_.begin(), rin_.end(), 0.0f);
  for (int j = 0; j < d_; ++j) {
    const std::size_t t = static_cast<std::size_t>(j) * rows_;
    if (shot_coef_ > 0 && rin_coef_ > 0) {
      axpy3(acc_.data(), sum_.data(), rin_.data(), wt_.data() + t, st_.data() + t, x[j], u_[j],
            u_[j] * u_[j], rows_);
      continue;
    }
    axpy(acc_.data(), wt_.data() + t, x[j], rows_);
    if (shot_coef_ > 0) axpy(sum_.data(), st_.data() + t, u_[j], rows_);
    if (rin_coef_ > 0) axpy_sq(rin_.data(), wt_.data() + t, u_[j] * u_[j], rows_);
  }
}

void MvmKernel::score(std::span<const float> x, std::span<float> scores, RandomStream& noise,
                      std::span<float> currents) {
  accumulate(x);
  finish(scores, currents, noise);
}

void MvmKernel::score_with_drift(std::span<const float> x, std::span<float> scores,
                                 RandomStream& noise, std::span<float> currents) {
  accumulate(x);
  // Per-ring drift for this query: independent normals, AR(1) along the bus if correlated.
  noise.fill_normal(std::span<float>(drift_q_), 0.0f,
                    static_cast<float>(imp_.drift_local_sigma.si()));
  if (drift_rho_ > 0) {
    const float rho = static_cast<float>(drift_rho_);
    const float innov = static_cast<float>(std::sqrt(1.0 - drift_rho_ * drift_rho_));
    for (int j = 1; j < d_; ++j)
      for (int r = 0; r < rows_; ++r) {
        const std::size_t t = static_cast<std::size_t>(j) * rows_ + r;
        drift_q_[t] = rho * drift_q_[t - rows_] + innov * drift_q_[t];
      }
  }
  const float inv_step = static_cast<float>(1.0 / table_step_);
  for (int j = 0; j < d_; ++j) {
    const std::size_t t = static_cast<std::size_t>(j) * rows_;
    drift_axpy(acc_.data(), det_t_.data() + t, drift_q_.data() + t, own_t_.data() + t,
               table_.data(), static_cast<int>(table_.size()), static_cast<float>(table_lo_),
               inv_step, x[j], rows_);
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
    std::copy(acc_.begin(), acc_.end(), scores.begin());
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
