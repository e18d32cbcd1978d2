// The static state of a bank of programmed rings (bank_state.h).
#include "lightsim/photonics/bank_state.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"
#include "photonics/mvm_kernels.h"

namespace lightsim::photonics {
namespace {

int bank_rows(std::span<const float> weights, int channels) {
  const int rows = static_cast<int>(weights.size()) / channels;
  LIGHTSIM_CHECK(weights.size() == static_cast<std::size_t>(rows) * channels && rows > 0,
                 "MvmKernel: {} weights is not a multiple of {} channels", weights.size(),
                 channels);
  return rows;
}

}  // namespace

BankState::BankState(const DeviceSpec& device, const ImpairmentSpec& impairments,
                     std::span<const float> weights, bool ideal_state)
    : kernels_(&kernels::kernels_for_cpu()),
      imp_(impairments),
      programmer_(device),
      dac_spec_(device.dac),
      layout_(bank_rows(weights, device.grid.channels), device.grid.channels),
      single_ended_(device.detector.mode == DetectionMode::single_ended),
      drift_rho_(drift_neighbour_correlation(impairments)),
      weight_sigma_(impairments.weight_noise * device.requirements.weight_range),
      lambdas_(channel_wavelengths(device.grid)),
      requested_(weights.begin(), weights.end()) {
  const int d = layout_.channels;
  for (double lambda : lambdas_) inv_lambdas_.push_back(1.0 / lambda);
  const std::size_t n = weights.size();
  programmed_.assign(n, 0.0);
  static_err_.assign(n, 0.0);
  drift_.assign(n, 0.0);
  heat_.assign(n, 0.0);
  detuning_.assign(n, 0.0);
  const std::size_t n_pad = layout_.padded_size();
  wt_.assign(n_pad, 0.0f);
  st_.assign(n_pad, 0.0f);
  own_t_.assign(n_pad, 0.0f);
  det_t_.assign(n_pad, 0.0f);
  for (auto* v : {&half_, &half_own_, &sin_b_, &cos_b_, &sin_own_, &cos_own_})
    v->assign(n_pad, 0.0);
  thru_.assign(layout_.block_size(), 0.0);
  drop_.assign(layout_.block_size(), 0.0);
  row_sum_.assign(static_cast<std::size_t>(layout_.rows), 0.0);
  heater_c_ = imp_.heater_crosstalk && device.tuning.mechanism == TuningMechanism::thermo_optic
                  ? device.tuning.thermal_crosstalk
                  : 0.0;
  for (int k = 0; k < d; ++k) heater_pow_.push_back(std::pow(heater_c_, k));
  const double half_k = 0.5 * programmer_.ring().phase_constant();
  sin_a_.resize(static_cast<std::size_t>(d) * d);
  cos_a_.resize(sin_a_.size());
  for (int j = 0; j < d; ++j)
    for (int i = 0; i < d; ++i) {
      const double a = half_k * (inv_lambdas_[static_cast<std::size_t>(j)] -
                                 inv_lambdas_[static_cast<std::size_t>(i)]);
      sin_a_[static_cast<std::size_t>(j) * d + i] = std::sin(a);
      cos_a_[static_cast<std::size_t>(j) * d + i] = std::cos(a);
    }

  // Target detunings, DAC-independent (closed form, Ring::phase_for_weight), reused by every
  // set_state; the ideal state's programmed detunings with an ideal DAC (or the exact targets).
  target_.resize(n);
  for (std::size_t i = 0; i < n; ++i) target_[i] = programmer_.target_detuning(requested_[i]);
  program_ideal(target_);
  if (!ideal_state) return;
  compute_heat();
  compute_static();
}

void BankState::set_state(std::uint64_t seed, std::uint64_t trial) {
  RandomStream stream(seed, {0x50484f54ULL /* "PHOT" */, trial});
  const std::size_t n = requested_.size();
  const int rows = layout_.rows, d = layout_.channels;
  draws_.resize(n);
  // DACs: one INL/DNL profile per chip, then each ring's gain error and calibration: gain
  // 1 + g (2u - 1), table gain + c (2u' - 1) (DacInstance::sample's distributions); applied
  // below, once the targets are known.
  DacInstance chip;
  if (imp_.dac_errors) {
    chip = DacInstance::sample(dac_spec_, stream);
    programmer_.check_profile(chip);
    dac_draws_.resize(2 * n);
    stream.fill_uniform(std::span<float>(dac_draws_));
  }
  // Static error: fabrication + calibration residual, independent normals.
  const double fab = imp_.fabrication_sigma.si(), cal = imp_.calibration_residual.si();
  const double static_sigma = std::sqrt(fab * fab + cal * cal);
  stream.fill_normal(std::span<float>(draws_.data(), n));
  for (std::size_t i = 0; i < n; ++i) static_err_[i] = static_sigma * draws_[i];
  // Drift: global + local, the local part an AR(1) field along each row and down the
  // columns (separable exponential correlation, unit variance).
  const double global = imp_.drift_global_sigma.si() * stream.normal();
  const double rho = drift_rho_, innov = std::sqrt(1.0 - rho * rho);
  stream.fill_normal(std::span<float>(draws_.data(), n));
  std::vector<double>& field = drift_;  // the unit field first, scaled in place below
  // Along each row: a recurrence, so rows are taken kFieldRows at a time with the channel
  // loop outside: the rows' chains are independent and overlap (one row at a time waited
  // for each multiply-add's latency). Same operations per element.
  constexpr int kFieldRows = 16;
  for (int r0 = 0; r0 < rows; r0 += kFieldRows) {
    const int r1 = std::min(rows, r0 + kFieldRows);
    for (int r = r0; r < r1; ++r) {
      const std::size_t i = static_cast<std::size_t>(r) * d;
      field[i] = draws_[i];
    }
    for (int j = 1; j < d; ++j)
      for (int r = r0; r < r1; ++r) {
        const std::size_t i = static_cast<std::size_t>(r) * d + j;
        field[i] = rho * field[i - 1] + innov * static_cast<double>(draws_[i]);
      }
  }
  for (int r = 1; r < rows; ++r)
    for (int j = 0; j < d; ++j) {
      const std::size_t i = static_cast<std::size_t>(r) * d + j;
      field[i] = rho * field[i - d] + innov * field[i];
    }
  const double local = imp_.drift_local_sigma.si();
  for (std::size_t i = 0; i < n; ++i) drift_[i] = global + local * field[i];
  // Weight-space noise: the requested weight moves by weight_sigma_ z before its inversion.
  const bool weight_noise = weight_sigma_ > 0.0;
  if (weight_noise) {
    stream.fill_normal(std::span<float>(draws_.data(), n));
    noisy_target_.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      noisy_target_[i] = programmer_.target_detuning(requested_[i] + weight_sigma_ * draws_[i]);
  }
  const std::vector<double>& target = weight_noise ? noisy_target_ : target_;
  if (imp_.dac_errors && !imp_.quantization) {
    programmed_ = target;  // the DAC's errors act through its codes only
  } else if (imp_.dac_errors) {
    // WeightProgrammer::dac_step per ring in two passes: the gains and ideal codes (divisions,
    // independent per ring: they vectorize), then the rounding and the code-error lookup.
    // Same operations in the same order per ring as dac_step.
    const double g = dac_spec_.gain_error, c = dac_spec_.calibration_residual;
    const bool calibrated = dac_spec_.calibrated;
    dac_gain_.resize(n);
    dac_ideal_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double gain = 1.0 + g * (2.0 * dac_draws_[2 * i] - 1.0);
      const double table = calibrated ? gain + c * (2.0 * dac_draws_[2 * i + 1] - 1.0) : 1.0;
      dac_gain_[i] = gain;
      dac_ideal_[i] = programmer_.ideal_code(target[i], table);
    }
    for (std::size_t i = 0; i < n; ++i)
      programmed_[i] = programmer_.code_detuning(WeightProgrammer::round_code(dac_ideal_[i]),
                                                 dac_gain_[i], chip.code_error.data());
  } else if (weight_noise) {
    program_ideal(target);
  }
  compute_heat();
  compute_static();
}

void BankState::program_ideal(const std::vector<double>& target) {
  const DacInstance ideal = DacInstance::ideal(dac_spec_);
  for (std::size_t i = 0; i < target.size(); ++i)
    programmed_[i] =
        imp_.quantization
            ? programmer_.dac_step(target[i], 1.0, 1.0, ideal.code_error.data()).detuning
            : target[i];
}

void BankState::compute_heat() {
  // Ring i of a row is warmed by heater j with K_ij = c^|i-j| times the rise heater j gives its
  // own ring (thermal_crosstalk_matrix), so its resonance moves by sum_{j != i} K_ij s_j, s_j =
  // programmed_j - rest the shift heater j was set for (heater power x R_th x d lambda / dT).
  // The programming does not compensate it.
  if (heater_c_ <= 0.0) return;
  const double rest = programmer_.rest_detuning();
  const int rows = layout_.rows, d = layout_.channels;
  for (int r = 0; r < rows; ++r) {
    const std::size_t row = static_cast<std::size_t>(r) * d;
    for (int i = 0; i < d; ++i) {
      double shift = 0.0;
      for (int j = 0; j < d; ++j)
        if (j != i)
          shift += heater_pow_[static_cast<std::size_t>(std::abs(i - j))] *
                   (programmed_[row + j] - rest);
      heat_[row + i] = shift;
    }
  }
}

void BankState::compute_static() {
  // The exact responses of Ring::at_phase with sin(phi / 2) of the SIMD kernels
  // (kernels::HalfPhaseSinCos): phi / 2 = (phase_constant / 2)(1/lambda - 1/resonance).
  const Ring& ring = programmer_.ring();
  const double half_k = 0.5 * ring.phase_constant();
  const double lambda0 = ring.wavelength(), inv_lambda0 = 1.0 / lambda0;
  const kernels::RingTerms terms{
      .four_x = 4.0 * ring.x(),
      .den0 = (1.0 - ring.x()) * (1.0 - ring.x()),
      .thru0 = (ring.r2() * ring.a() - ring.r1()) * (ring.r2() * ring.a() - ring.r1()),
      .drop_num = (1.0 - ring.r1() * ring.r1()) * (1.0 - ring.r2() * ring.r2()) * ring.a()};
  const int rows = layout_.rows, d = layout_.channels;
  const std::size_t n = detuning_.size();
  // Loops over independent elements through restrict pointers, so that they vectorize (the
  // divisions are most of their time); the same operations per element, in the same order,
  // as one ring at a time.
  {
    const double* __restrict prog = programmed_.data();
    const double* __restrict heat = heat_.data();
    const double* __restrict serr = static_err_.data();
    const double* __restrict drift = drift_.data();
    double* __restrict det = detuning_.data();
    for (std::size_t i = 0; i < n; ++i) det[i] = prog[i] + heat[i] + serr[i] + drift[i];
  }
  for (int b = 0; b < layout_.blocks(); ++b) {
    const int r0 = static_cast<int>(layout_.block_row(b));
    const int lanes = std::min(BlockLayout::kRows, rows - r0);
    for (int i = 0; i < d; ++i) {
      const std::size_t t0 = layout_.index(r0, i);
      const double* __restrict det = detuning_.data() + static_cast<std::size_t>(r0) * d + i;
      double* __restrict half = half_.data() + t0;
      double* __restrict half_own = half_own_.data() + t0;
      float* __restrict det_t = det_t_.data() + t0;
      const double inv_lambda = inv_lambdas_[static_cast<std::size_t>(i)];
      const double lambda = lambdas_[static_cast<std::size_t>(i)];
      for (int k = 0; k < lanes; ++k) {
        const double dk = det[static_cast<std::size_t>(k) * d];
        half[k] = half_k * (inv_lambda - 1.0 / (lambda + dk));
        // The lone ring at the design wavelength (Ring::weight(wavelength(), detuning)).
        half_own[k] = half_k * (inv_lambda0 - 1.0 / (lambda0 + dk));
        det_t[k] = static_cast<float>(dk);
      }
    }
  }
  const kernels::KernelSet& k = *kernels_;
  const int n_pad = static_cast<int>(layout_.padded_size());
  k.half_phase_sincos(half_own_.data(), sin_own_.data(), cos_own_.data(), n_pad);
  if (imp_.crosstalk) k.half_phase_sincos(half_.data(), sin_b_.data(), cos_b_.data(), n_pad);
  for (int b = 0; b < layout_.blocks(); ++b) {
    const std::size_t off = layout_.block_offset(b);
    if (imp_.crosstalk)
      k.mix_block(sin_b_.data() + off, cos_b_.data() + off, sin_a_.data(), cos_a_.data(), terms, d,
                  thru_.data(), drop_.data());
    const int lanes = std::min(BlockLayout::kRows, rows - static_cast<int>(layout_.block_row(b)));
    double sum[BlockLayout::kRows] = {};
    const bool crosstalk = imp_.crosstalk, single = single_ended_;
    for (int j = 0; j < d; ++j) {
      const std::size_t e0 = static_cast<std::size_t>(j) * BlockLayout::kRows;
      const double* __restrict sin_own = sin_own_.data() + off + e0;
      const double* __restrict thru_x = thru_.data() + e0;
      const double* __restrict drop_x = drop_.data() + e0;
      float* __restrict wt = wt_.data() + off + e0;
      float* __restrict st = st_.data() + off + e0;
      float* __restrict own_t = own_t_.data() + off + e0;
      for (int lane = 0; lane < lanes; ++lane) {
        const double s = sin_own[lane];
        const double q = terms.four_x * (s * s);
        const double den = terms.den0 + q;
        const double own_thru = (terms.thru0 + q) / den, own_drop = terms.drop_num / den;
        const double thru = crosstalk ? thru_x[lane] : own_thru;
        const double drop = crosstalk ? drop_x[lane] : own_drop;
        const double w = single ? drop : thru - drop;
        wt[lane] = static_cast<float>(w);
        st[lane] = static_cast<float>((single ? 0.0 : thru) + drop);
        own_t[lane] = static_cast<float>(own_thru - own_drop);
        sum[lane] += w;  // over j in order, from 0, per row
      }
    }
    std::copy_n(sum, lanes, row_sum_.data() + layout_.block_row(b));
  }
}

std::vector<float> BankState::effective_weights() const {
  std::vector<float> out(requested_.size());
  const int rows = layout_.rows, d = layout_.channels;
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < d; ++j) out[static_cast<std::size_t>(r) * d + j] = wt_[layout_.index(r, j)];
  return out;
}

}  // namespace lightsim::photonics
