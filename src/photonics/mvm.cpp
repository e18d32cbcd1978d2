// The photonic MVM kernel (see mvm.h).
#include "lightsim/photonics/mvm.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <map>
#include <numbers>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/link_budget.h"
#include "photonics/mvm_kernels.h"

namespace lightsim::photonics {
namespace {

// Layout of the per-query matrices: rows in blocks of kBlock, each block channel-major
// (element (r, j) at ((r / kBlock) d + j) kBlock + r % kBlock), the row count padded with zero
// rows. A block's accumulators then stay in registers over all d channels, and each block reads
// its 2 x d x kBlock floats of W_eff and S contiguously (mvm_kernels.h).
constexpr int kBlock = MvmKernel::kBlockRows;
static_assert(kBlock == kernels::kBlock);

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
  s.field("drift_time_constant", &ImpairmentSpec::drift_time_constant,
          "time constant of the per-query local drift (Ornstein-Uhlenbeck; 0 = independent "
          "every query); it is updated every max(1, floor(tau / (10 T))) queries")
      .min("0 s");
  s.field("query_period", &ImpairmentSpec::query_period,
          "time between queries T (0 = one TIA integration window)")
      .min("0 s");
  s.field("heater_crosstalk", &ImpairmentSpec::heater_crosstalk,
          "neighbouring heaters shift each ring through the tuning's thermal-crosstalk matrix "
          "(thermo-optic devices, uncompensated)");
  s.field("noise", &ImpairmentSpec::noise,
          "draw detector, RIN and ADC noise per query (terms switched in the device's noise)");
}

MvmKernel::MvmKernel(const DeviceSpec& device, const ImpairmentSpec& impairments,
                     std::span<const float> weights, bool ideal_state)
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
  for (double lambda : lambdas_) inv_lambdas_.push_back(1.0 / lambda);
  inv_res_.assign(lambdas_.size(), 0.0);
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
  qfield_.assign(n_pad, 0.0f);
  corr_.assign(n_pad, 0.0f);
  heat_.assign(n, 0.0);
  kernels_ = &kernels::kernels_for_cpu();

  // Optics: channel power at a row, modulator extinction, detector constants.
  const double loss_db = link_budget(device, device.laser.power_per_line.si()).total_loss_db;
  const double p_ch = device.laser.power_per_line.si() * std::pow(10.0, -loss_db / 10.0);
  eps_ = std::pow(10.0, -device.modulator.extinction_ratio.si() / 10.0);
  r_pch_ = device.detector.responsivity.si() * p_ch;
  scale_ = r_pch_ * (1.0 - eps_);
  const double b = detection_.bandwidth();
  const NoiseTerms base = detection_.variances(0.0, 0.0, 0.0);  // dark shot, thermal, TIA, NEP
  single_ended_ = device.detector.mode == DetectionMode::single_ended;
  // One photodiode instead of two: half the dark-current shot noise and half the NEP variance.
  const_var_ = base.thermal + base.tia + (single_ended_ ? 0.5 : 1.0) * (base.shot + base.nep);
  shot_coef_ = noise_spec_.shot ? 2.0 * kElementaryCharge * b : 0.0;
  rin_coef_ = noise_spec_.rin ? detection_.variances(0.0, 0.0, 1.0).rin : 0.0;
  drift_rho_ = imp_.correlation_rings > 0 ? std::exp(-1.0 / imp_.correlation_rings) : 0.0;
  // Per-query drift in time: K queries per update, exact OU transition over K T.
  const double tau = imp_.drift_time_constant.si();
  const double period =
      imp_.query_period.si() > 0 ? imp_.query_period.si() : device.tia.integration_window.si();
  if (tau > 0) {
    LIGHTSIM_CHECK(period > 0, "MvmKernel: drift_time_constant needs a query period > 0");
    refresh_k_ = static_cast<int>(std::clamp(std::floor(0.1 * tau / period), 1.0, 1e9));
    drift_a_ = std::exp(-refresh_k_ * period / tau);
  }
  heater_c_ = imp_.heater_crosstalk && device.tuning.mechanism == TuningMechanism::thermo_optic
                  ? device.tuning.thermal_crosstalk
                  : 0.0;

  // Lone-ring weight at the channel wavelength, for per-query drift (kernels::DriftCorr).
  const Ring& ring = programmer_.ring();
  const double x = ring.x(), dd = ring.r2() * ring.a() - ring.r1();
  ring_k_ = std::numbers::pi * ring.n_g() * ring.circumference() / ring.wavelength();
  ring_p_ = dd * dd - (1.0 - ring.r1() * ring.r1()) * (1.0 - ring.r2() * ring.r2()) * ring.a();
  ring_q_ = 4.0 * x;
  ring_r_ = (1.0 - x) * (1.0 - x);
  ring_consts_ = {static_cast<float>(ring_k_), static_cast<float>(ring.wavelength()),
                  static_cast<float>(ring_p_), static_cast<float>(ring_q_),
                  static_cast<float>(ring_r_)};

  // Target detunings, DAC-independent: one bisection per distinct requested weight (banks
  // hold quantized weights, so a few dozen values), reused by every set_state.
  target_.resize(n);
  std::map<float, double> targets;
  for (std::size_t i = 0; i < n; ++i) {
    auto [it, fresh] = targets.try_emplace(requested_[i], 0.0);
    if (fresh) it->second = programmer_.target_detuning(requested_[i]);
    target_[i] = it->second;
  }
  // Ideal state: programmed detunings with an ideal DAC (or exact targets).
  const DacInstance ideal = DacInstance::ideal(dac_spec_);
  for (std::size_t i = 0; i < n; ++i) {
    const ProgrammedWeight p = programmer_.program_to(requested_[i], target_[i], ideal);
    programmed_[i] = imp_.quantization ? p.detuning : p.target_detuning;
  }
  if (!ideal_state) return;
  compute_heat();
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
      const DacInstance::Gain own = DacInstance::sample_gain(dac_spec_, stream);
      dac.gain = own.gain;
      dac.calibrated_gain = own.calibrated_gain;
      const ProgrammedWeight p = programmer_.program_to(requested_[i], target_[i], dac);
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
  compute_heat();
  compute_static();
  queries_ = 0;
  have_field_ = false;
}

void MvmKernel::compute_heat() {
  // Ring i of a row is warmed by heater j with K_ij = c^|i-j| times the rise heater j gives its
  // own ring (thermal_crosstalk_matrix), so its resonance moves by sum_{j != i} K_ij s_j, s_j =
  // programmed_j - rest the shift heater j was set for (heater power x R_th x d lambda / dT).
  // The programming does not compensate it.
  if (heater_c_ <= 0.0) return;
  const double rest = programmer_.rest_detuning();
  for (int r = 0; r < rows_; ++r) {
    const std::size_t row = static_cast<std::size_t>(r) * d_;
    for (int i = 0; i < d_; ++i) {
      double shift = 0.0;
      for (int j = 0; j < d_; ++j)
        if (j != i) shift += std::pow(heater_c_, std::abs(i - j)) * (programmed_[row + j] - rest);
      heat_[row + i] = shift;
    }
  }
}

void MvmKernel::compute_static() {
  const Ring& ring = programmer_.ring();
  const double phase_k = ring.phase_constant();
  for (int r = 0; r < rows_; ++r) {
    const std::size_t row = static_cast<std::size_t>(r) * d_;
    for (int i = 0; i < d_; ++i)
      detuning_[row + i] =
          programmed_[row + i] + heat_[row + i] + static_err_[row + i] + drift_[row + i];
    double bias = 0.0, bias_s = 0.0;
    // Ring i's resonance reciprocal, once per ring instead of once per (ring, channel):
    // ring.at(lambda_j, res_i) = at_phase(phase_constant (1/lambda_j - 1/res_i)), same bits.
    if (imp_.crosstalk)
      for (int i = 0; i < d_; ++i)
        inv_res_[static_cast<std::size_t>(i)] =
            1.0 / (lambdas_[static_cast<std::size_t>(i)] + detuning_[row + i]);
    for (int j = 0; j < d_; ++j) {
      double thru = 1.0, drop = 0.0;
      if (imp_.crosstalk) {
        const double inv_lambda = inv_lambdas_[static_cast<std::size_t>(j)];
        for (int i = 0; i < d_; ++i) {
          const PortPowers p =
              ring.at_phase(phase_k * (inv_lambda - inv_res_[static_cast<std::size_t>(i)]));
          drop += thru * p.drop;
          thru *= p.through;
        }
      } else {
        const PortPowers p = ring.detuned(ring.wavelength(), detuning_[row + j]);
        thru = p.through;
        drop = p.drop;
      }
      const std::size_t t = blocked(r, j);
      if (single_ended_) thru = 0.0;  // the through port is not detected
      wt_[t] = static_cast<float>(single_ended_ ? drop : thru - drop);
      st_[t] = static_cast<float>(thru + drop);
      own_t_[t] = static_cast<float>(ring.weight(ring.wavelength(), detuning_[row + j]));
      det_t_[t] = static_cast<float>(detuning_[row + j]);
      bias += single_ended_ ? drop : thru - drop;
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
  x_sum_ = 0.0f;
  for (int j = 0; j < d_; ++j) {
    u_[j] = static_cast<float>(eps_ + (1.0 - eps_) * x[j]);
    u2_[j] = u_[j] * u_[j];
    x_sum_ += x[j];
  }
}

void MvmKernel::score(std::span<const float> x, std::span<float> scores, RandomStream& noise,
                      std::span<float> currents) {
  prepare(x);
  const std::size_t block = static_cast<std::size_t>(kBlock) * d_;
  for (int b = 0; b < rows_pad_ / kBlock; ++b) {
    const std::size_t o = static_cast<std::size_t>(b) * block,
                      r = static_cast<std::size_t>(b) * kBlock;
    kernels_->block_pass(wt_.data() + o, st_.data() + o, nullptr, x.data(), u_.data(), u2_.data(),
                         d_, shot_coef_ > 0, rin_coef_ > 0, acc_.data() + r, sum_.data() + r,
                         rin_.data() + r);
  }
  finish(scores, currents, noise);
}

void MvmKernel::score_with_drift(std::span<const float> x, std::span<float> scores,
                                 RandomStream& noise, std::span<float> currents) {
  // The per-query own-weight corrections are of the balanced weight T - D.
  LIGHTSIM_CHECK_AS(InputError, !single_ended_,
                    "per-query drift (score_with_drift) is modelled for balanced detection only "
                    "(detector.mode: balanced)");
  prepare(x);
  const kernels::KernelSet& k = *kernels_;
  const std::size_t block = static_cast<std::size_t>(kBlock) * d_;
  const bool update = queries_ % static_cast<std::uint64_t>(refresh_k_) == 0;
  const bool keep = imp_.drift_time_constant.si() > 0;  // the field has memory in time
  ++queries_;
  for (int blk = 0; blk < rows_pad_ / kBlock; ++blk) {
    const std::size_t o = static_cast<std::size_t>(blk) * block,
                      r = static_cast<std::size_t>(blk) * kBlock;
    // With memory in time the field and the corrections are kept for the whole bank (later
    // queries reuse them); otherwise one block of scratch each, which stays in L1 (measured:
    // the bank-wide arrays cost 8-15 us per query at N = 1024).
    float* corr = keep ? corr_.data() + o : corr_.data();
    float* field = keep ? qfield_.data() + o : qfield_.data();
    if (update) {
      // d x kBlock fresh normals (consecutive fills equal one fill of the total, so the draws
      // depend on the stream only), the block's unit field, its step in time, each ring's
      // own-weight change.
      noise.fill_normal(std::span<float>(zq_));
      k.drift_block(corr, field, zq_.data(), static_cast<float>(drift_rho_),
                    static_cast<float>(std::sqrt(1.0 - drift_rho_ * drift_rho_)),
                    static_cast<float>(drift_a_),
                    static_cast<float>(std::sqrt(1.0 - drift_a_ * drift_a_)), have_field_,
                    det_t_.data() + o, own_t_.data() + o, ring_consts_,
                    static_cast<float>(imp_.drift_local_sigma.si()), d_);
    }
    k.block_pass(wt_.data() + o, st_.data() + o, corr, x.data(), u_.data(), u2_.data(), d_,
                 shot_coef_ > 0, rin_coef_ > 0, acc_.data() + r, sum_.data() + r, rin_.data() + r);
  }
  if (update) have_field_ = true;
  finish(scores, currents, noise);
}

std::vector<double> MvmKernel::query_drift() const {
  if (imp_.drift_time_constant.si() <= 0) return {};
  std::vector<double> out(requested_.size(), 0.0);
  if (!have_field_) return out;
  for (int r = 0; r < rows_; ++r)
    for (int j = 0; j < d_; ++j)
      out[static_cast<std::size_t>(r) * d_ + j] =
          imp_.drift_local_sigma.si() * static_cast<double>(qfield_[blocked(r, j)]);
  return out;
}

void MvmKernel::use_simd_level(detail::SimdLevel level) {
  kernels_ = &kernels::kernels_for(level);
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
    single_ended_reference(scores);
    return;
  }
  noise.fill_normal(std::span<float>(z_));
  float* out_currents = currents.empty() ? cur_.data() : currents.data();
  kernels_->finish_rows(acc_.data(), sum_.data(), rin_.data(), z_.data(), bias_.data(), scale,
                        static_cast<float>(const_var_), static_cast<float>(shot_coef_ * r_pch_),
                        static_cast<float>(rin_coef_ * r_pch_ * r_pch_),
                        noise_spec_.adc ? static_cast<float>(detection_.adc_lsb_current()) : 0.0f,
                        static_cast<float>(0.5 * detection_.adc_full_scale_current()), out_currents,
                        scores.data(), rows_);
  single_ended_reference(scores);
}

void MvmKernel::single_ended_reference(std::span<float> scores) const {
  // score = sum_j x_j - 2 sum_j D_j x_j: T - D = 1 - 2 D for a lossless ring.
  if (!single_ended_) return;
  for (float& s : scores) s = x_sum_ - 2.0f * s;
}

}  // namespace lightsim::photonics
