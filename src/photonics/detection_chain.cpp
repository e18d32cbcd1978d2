// The detection chain of a bank's rows (detection_chain.h).
#include "lightsim/photonics/detection_chain.h"

#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/link_budget.h"
#include "photonics/mvm_kernels.h"

namespace lightsim::photonics {
namespace {

NoiseSpec enabled_noise(const DeviceSpec& device, bool noise) {
  return noise ? device.noise : NoiseSpec{false, false, false, false, false, false};
}

}  // namespace

DetectionChain::DetectionChain(const DeviceSpec& device, bool noise, const BlockLayout& layout)
    : detection_(device.detector, device.tia, device.adc, device.laser,
                 enabled_noise(device, noise)),
      noise_spec_(enabled_noise(device, noise)),
      layout_(layout),
      single_ended_(device.detector.mode == DetectionMode::single_ended) {
  // Optics: channel power at a row, modulator extinction, detector constants.
  const double loss_db = link_budget(device, device.laser.power_per_line.si()).total_loss_db;
  const double p_ch = device.laser.power_per_line.si() * std::pow(10.0, -loss_db / 10.0);
  eps_ = std::pow(10.0, -device.modulator.extinction_ratio.si() / 10.0);
  r_pch_ = device.detector.responsivity.si() * p_ch;
  scale_ = r_pch_ * (1.0 - eps_);
  const double b = detection_.bandwidth();
  const NoiseTerms base = detection_.variances(0.0, 0.0, 0.0);  // dark shot, thermal, TIA, NEP
  // One photodiode rather than two: half the dark-current shot noise and half the NEP variance.
  const_var_ = base.thermal + base.tia + (single_ended_ ? 0.5 : 1.0) * (base.shot + base.nep);
  shot_coef_ = noise_spec_.shot ? 2.0 * kElementaryCharge * b : 0.0;
  rin_coef_ = noise_spec_.rin ? detection_.variances(0.0, 0.0, 1.0).rin : 0.0;
  const auto d = static_cast<std::size_t>(layout_.channels);
  const auto rows = static_cast<std::size_t>(layout_.rows);
  const auto rows_pad = static_cast<std::size_t>(layout_.rows_pad);
  offset_.assign(rows, 0.0f);
  u_.assign(d, 0.0f);
  u2_.assign(d, 0.0f);
  acc_.assign(rows_pad, 0.0f);
  sum_.assign(rows_pad, 0.0f);
  rin_.assign(rows_pad, 0.0f);
  z_.assign(rows, 0.0f);
  cur_.assign(rows, 0.0f);
}

void DetectionChain::set_offsets(const std::vector<double>& row_weight_sums) {
  LIGHTSIM_CHECK(row_weight_sums.size() == offset_.size(),
                 "DetectionChain: {} row sums for {} rows", row_weight_sums.size(), offset_.size());
  for (std::size_t r = 0; r < offset_.size(); ++r)
    offset_[r] = static_cast<float>(r_pch_ * eps_ * row_weight_sums[r]);
}

void DetectionChain::modulate(std::span<const float> x) {
  const int d = layout_.channels;
  LIGHTSIM_CHECK(x.size() == static_cast<std::size_t>(d), "MvmKernel: {} inputs for {} channels",
                 x.size(), d);
  // Per-line power factors u_j = eps + (1 - eps) x_j for shot and RIN.
  x_sum_ = 0.0f;
  for (int j = 0; j < d; ++j) {
    u_[j] = static_cast<float>(eps_ + (1.0 - eps_) * x[j]);
    u2_[j] = u_[j] * u_[j];
    x_sum_ += x[j];
  }
}

void DetectionChain::finish(std::span<float> scores, std::span<float> currents, RandomStream& noise,
                            const kernels::KernelSet& k) {
  const int rows = layout_.rows;
  LIGHTSIM_CHECK(scores.size() == static_cast<std::size_t>(rows) &&
                     (currents.empty() || currents.size() == scores.size()),
                 "MvmKernel: {} scores for {} rows", scores.size(), rows);
  // acc = sum_j W_eff x_j (weight units). Physical current: scale acc + offset.
  const float scale = static_cast<float>(scale_);
  const bool analog = shot_coef_ > 0 || rin_coef_ > 0 || const_var_ > 0;
  if (!analog && !noise_spec_.adc) {
    std::copy(acc_.begin(), acc_.begin() + rows, scores.begin());
    if (!currents.empty())
      for (int r = 0; r < rows; ++r) currents[r] = scale * acc_[r] + offset_[r];
    single_ended_reference(scores);
    return;
  }
  noise.fill_normal(std::span<float>(z_));
  float* out_currents = currents.empty() ? cur_.data() : currents.data();
  k.finish_rows(acc_.data(), sum_.data(), rin_.data(), z_.data(), offset_.data(), scale,
                static_cast<float>(const_var_), static_cast<float>(shot_coef_ * r_pch_),
                static_cast<float>(rin_coef_ * r_pch_ * r_pch_),
                noise_spec_.adc ? static_cast<float>(detection_.adc_lsb_current()) : 0.0f,
                static_cast<float>(0.5 * detection_.adc_full_scale_current()), out_currents,
                scores.data(), rows);
  single_ended_reference(scores);
}

void DetectionChain::single_ended_reference(std::span<float> scores) const {
  // score = sum_j x_j - 2 sum_j D_j x_j: T - D = 1 - 2 D for a lossless ring.
  if (!single_ended_) return;
  for (float& s : scores) s = x_sum_ - 2.0f * s;
}

}  // namespace lightsim::photonics
