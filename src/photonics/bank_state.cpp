// The static state of a bank of programmed rings (bank_state.h).
#include "lightsim/photonics/bank_state.h"

#include <cmath>
#include <cstdlib>
#include <map>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"

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
    : imp_(impairments),
      programmer_(device),
      dac_spec_(device.dac),
      layout_(bank_rows(weights, device.grid.channels), device.grid.channels),
      single_ended_(device.detector.mode == DetectionMode::single_ended),
      drift_rho_(drift_neighbour_correlation(impairments)),
      lambdas_(channel_wavelengths(device.grid)),
      requested_(weights.begin(), weights.end()) {
  for (double lambda : lambdas_) inv_lambdas_.push_back(1.0 / lambda);
  inv_res_.assign(lambdas_.size(), 0.0);
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
  row_sum_.assign(static_cast<std::size_t>(layout_.rows), 0.0);
  heater_c_ = imp_.heater_crosstalk && device.tuning.mechanism == TuningMechanism::thermo_optic
                  ? device.tuning.thermal_crosstalk
                  : 0.0;

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

void BankState::set_state(std::uint64_t seed, std::uint64_t trial) {
  RandomStream stream(seed, {0x50484f54ULL /* "PHOT" */, trial});
  const std::size_t n = requested_.size();
  const int rows = layout_.rows, d = layout_.channels;
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
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < d; ++j) {
      const std::size_t i = static_cast<std::size_t>(r) * d + j;
      const double z = stream.normal();
      field[i] = j == 0 ? z : rho * field[i - 1] + innov * z;
    }
  for (int r = 1; r < rows; ++r)
    for (int j = 0; j < d; ++j) {
      const std::size_t i = static_cast<std::size_t>(r) * d + j;
      field[i] = rho * field[i - d] + innov * field[i];
    }
  for (std::size_t i = 0; i < n; ++i) drift_[i] = global + imp_.drift_local_sigma.si() * field[i];
  compute_heat();
  compute_static();
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
        if (j != i) shift += std::pow(heater_c_, std::abs(i - j)) * (programmed_[row + j] - rest);
      heat_[row + i] = shift;
    }
  }
}

void BankState::compute_static() {
  const Ring& ring = programmer_.ring();
  const double phase_k = ring.phase_constant();
  const int rows = layout_.rows, d = layout_.channels;
  for (int r = 0; r < rows; ++r) {
    const std::size_t row = static_cast<std::size_t>(r) * d;
    for (int i = 0; i < d; ++i)
      detuning_[row + i] =
          programmed_[row + i] + heat_[row + i] + static_err_[row + i] + drift_[row + i];
    double sum = 0.0;
    // Ring i's resonance reciprocal, once per ring rather than once per (ring, channel):
    // ring.at(lambda_j, res_i) = at_phase(phase_constant (1/lambda_j - 1/res_i)), same bits.
    if (imp_.crosstalk)
      for (int i = 0; i < d; ++i)
        inv_res_[static_cast<std::size_t>(i)] =
            1.0 / (lambdas_[static_cast<std::size_t>(i)] + detuning_[row + i]);
    for (int j = 0; j < d; ++j) {
      double thru = 1.0, drop = 0.0;
      if (imp_.crosstalk) {
        const double inv_lambda = inv_lambdas_[static_cast<std::size_t>(j)];
        for (int i = 0; i < d; ++i) {
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
      const std::size_t t = layout_.index(r, j);
      const double w = single_ended_ ? drop : thru - drop;
      wt_[t] = static_cast<float>(w);
      st_[t] = static_cast<float>((single_ended_ ? 0.0 : thru) + drop);
      own_t_[t] = static_cast<float>(ring.weight(ring.wavelength(), detuning_[row + j]));
      det_t_[t] = static_cast<float>(detuning_[row + j]);
      sum += w;
    }
    row_sum_[static_cast<std::size_t>(r)] = sum;
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
