// The per-query local drift of a bank (drift_process.h).
#include "lightsim/photonics/drift_process.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lightsim/core/error.h"
#include "lightsim/photonics/device.h"
#include "photonics/mvm_kernels.h"

namespace lightsim::photonics {

DriftProcess::DriftProcess(const DeviceSpec& device, const ImpairmentSpec& impairments,
                           const Ring& ring, const BlockLayout& layout)
    : layout_(layout),
      sigma_(impairments.drift_local_sigma.si()),
      rho_(drift_neighbour_correlation(impairments)),
      keep_(impairments.drift_time_constant.si() > 0) {
  // K queries per update, exact OU transition over K T.
  const double tau = impairments.drift_time_constant.si();
  const double period = impairments.query_period.si() > 0 ? impairments.query_period.si()
                                                          : device.tia.integration_window.si();
  LIGHTSIM_CHECK_AS(UsageError, !impairments.thermal_drift || tau > 0,
                    "impairments.thermal_drift: the drift time constant comes from an "
                    "accelerator's thermal model (prism::with_thermal_drift); the photonics "
                    "kernel alone has none: set drift_time_constant instead");
  if (tau > 0) {
    LIGHTSIM_CHECK(period > 0, "MvmKernel: drift_time_constant needs a query period > 0");
    // Updated every drift_refresh (default tau / 10: the RMS step of an update is then at
    // most sqrt(2 (1 - e^-0.1)) = 0.44 of the field's sigma).
    const double refresh =
        impairments.drift_refresh.si() > 0 ? impairments.drift_refresh.si() : 0.1 * tau;
    refresh_k_ = static_cast<int>(std::clamp(std::floor(refresh / period), 1.0, 1e9));
    a_ = std::exp(-refresh_k_ * period / tau);
  }
  // Lone-ring weight at the channel wavelength (kernels::DriftBlock).
  const double x = ring.x(), dd = ring.r2() * ring.a() - ring.r1();
  const double k = std::numbers::pi * ring.n_g() * ring.circumference() / ring.wavelength();
  const double p =
      dd * dd - (1.0 - ring.r1() * ring.r1()) * (1.0 - ring.r2() * ring.r2()) * ring.a();
  const double q = 4.0 * x;
  const double r = (1.0 - x) * (1.0 - x);
  ring_ = {static_cast<float>(k), static_cast<float>(ring.wavelength()), static_cast<float>(p),
           static_cast<float>(q), static_cast<float>(r)};
  z_.assign(layout_.block_size(), 0.0f);
  // With memory in time the field and the corrections are kept for the whole bank (later
  // queries reuse them); otherwise one block of scratch each, which stays in L1 (the bank-wide
  // arrays cost 8-15 us per query at N = 1024).
  const std::size_t kept = keep_ ? layout_.padded_size() : layout_.block_size();
  field_.assign(kept, 0.0f);
  corr_.assign(kept, 0.0f);
}

void DriftProcess::begin_query() {
  update_ = queries_ % static_cast<std::uint64_t>(refresh_k_) == 0;
  ++queries_;
}

const float* DriftProcess::block_corrections(int b, const BankState& bank, RandomStream& noise,
                                             const kernels::KernelSet& k) {
  const std::size_t o = keep_ ? layout_.block_offset(b) : 0;
  float* corr = corr_.data() + o;
  float* field = field_.data() + o;
  if (update_) {
    // d x kRows fresh normals, the block's unit field, its step in time, each ring's
    // own-weight change.
    noise.fill_normal(std::span<float>(z_));
    k.drift_block(corr, field, z_.data(), static_cast<float>(rho_),
                  static_cast<float>(std::sqrt(1.0 - rho_ * rho_)), static_cast<float>(a_),
                  static_cast<float>(std::sqrt(1.0 - a_ * a_)), have_field_, bank.ring_detunings(b),
                  bank.own_weights(b), ring_, static_cast<float>(sigma_), layout_.channels);
  }
  return corr;
}

void DriftProcess::end_query() {
  if (update_) have_field_ = true;
}

std::vector<double> DriftProcess::field() const {
  if (!keep_) return {};
  const int rows = layout_.rows, d = layout_.channels;
  std::vector<double> out(static_cast<std::size_t>(rows) * d, 0.0);
  if (!have_field_) return out;
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < d; ++j)
      out[static_cast<std::size_t>(r) * d + j] =
          sigma_ * static_cast<double>(field_[layout_.index(r, j)]);
  return out;
}

}  // namespace lightsim::photonics
