// The photonic matrix-vector kernel: an N x d bank of programmed rings scores queries.
//
// Static part, computed once per impairment state (set_state): every ring's detuning
// (programmed through the DAC, plus fabrication/calibration error and thermal drift), then the
// bank's effective weights with crosstalk and bus order, W_eff[r][j] = T_eff - D_eff, and the
// total photodiode fractions S[r][j] = T_eff + D_eff (for shot noise).
// Per query (score): one pass over W_eff (a matrix-vector product) plus detector/RIN noise
// drawn from a core random stream, ADC quantization, and the conversion to scores.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/rng.h"
#include "lightsim/photonics/detection.h"
#include "lightsim/photonics/weights.h"

namespace lightsim::photonics {

struct DeviceSpec;
namespace kernels {
struct KernelSet;
struct RingWeightConsts {  // lone-ring weight in float (mvm_kernels.h)
  float k, lambda, p, q, r;
};
}  // namespace kernels

// What is impaired; each part can be switched off. All offsets are resonance shifts.
// Presets in configs/impairments/ (`preset: typical`).
struct ImpairmentSpec {
  static constexpr std::string_view kind = "impairments";
  static constexpr std::string_view preset_dir = "impairments";
  bool crosstalk = true;     // leakage between channels and bus order (off: own channel only)
  bool quantization = true;  // DAC codes (off: each ring sits exactly at its target detuning)
  bool dac_errors = true;    // per-trial DAC gain error (+ calibration table) and INL/DNL
  Length fabrication_sigma = Length::si(0.0);     // static resonance error per ring, untrimmed
  Length calibration_residual = Length::si(0.0);  // static error left by the lock, per ring
  Length drift_global_sigma = Length::si(0.0);    // drift common to the chip, per trial
  Length drift_local_sigma = Length::si(0.0);     // per-ring drift
  double correlation_rings = 0.0;  // correlation length of the per-ring drift, ring pitches
  // Per-query local drift in time (score_with_drift): an Ornstein-Uhlenbeck process with this
  // time constant (0: independent every query), updated every K = max(1, floor(tau / (10 T)))
  // queries by its exact transition over K T and held in between; T = query_period, or the
  // TIA integration window when query_period is 0.
  Time drift_time_constant = Time::si(0.0);
  Time query_period = Time::si(0.0);
  // Heat of neighbouring heaters shifts each ring through the tuning's thermal-crosstalk matrix
  // (thermo-optic devices; uncompensated by the weight programming).
  bool heater_crosstalk = true;
  bool noise = true;  // detector/RIN/ADC noise per query (terms: device.noise)
  static void describe(config::Schema<ImpairmentSpec>& s);
};

class MvmKernel {
 public:
  // `weights`: N x d requested weights in [-1, 1], row-major (N = weights.size() / d).
  MvmKernel(const DeviceSpec& device, const ImpairmentSpec& impairments,
            std::span<const float> weights)
      : MvmKernel(device, impairments, weights, true) {}
  // The kernel in the impairment state of (seed, trial): the same as the constructor above
  // followed by set_state(seed, trial), without computing the ideal state's static part first.
  MvmKernel(const DeviceSpec& device, const ImpairmentSpec& impairments,
            std::span<const float> weights, std::uint64_t seed, std::uint64_t trial)
      : MvmKernel(device, impairments, weights, false) {
    set_state(seed, trial);
  }

  // Rows per block of the per-query layout (see mvm.cpp).
  static constexpr int kBlockRows = 32;

  int rows() const { return rows_; }
  int channels() const { return d_; }

  // Draws the impairment state of Monte-Carlo trial `trial` from stream (seed, {trial, ...})
  // and recomputes the static part. The ideal state (no drift, no errors) is set on
  // construction.
  void set_state(std::uint64_t seed, std::uint64_t trial);

  // Scores one query. x: d inputs in [0, 1]; scores: N values in weight units (sum_j w x_j
  // when nothing is impaired); currents (optional): N balanced currents in A (TIA input).
  // Single-ended detection: currents are the drop-port currents and the scores the digitally
  // recovered sum_j x_j - 2 sum_j D_eff x_j.
  void score(std::span<const float> x, std::span<float> scores, RandomStream& noise,
             std::span<float> currents = {});
  // Same, with each ring's local drift redrawn for this query (global part kept): a field
  // correlated along the bus, rows independent (set_state's field also correlates down the
  // columns; docs/photonics.md says why this one does not), every ring's own-channel
  // weight moved through the exact lone-ring response (in float); the crosstalk terms keep the
  // state's values. With drift_time_constant > 0 the field is redrawn only every
  // drift_refresh_queries() queries (see ImpairmentSpec); set_state restarts the count.
  void score_with_drift(std::span<const float> x, std::span<float> scores, RandomStream& noise,
                        std::span<float> currents = {});
  // Queries between per-query drift updates (K, see ImpairmentSpec).
  int drift_refresh_queries() const { return refresh_k_; }
  // The local drift (metres, N x d row-major) of the last score_with_drift since set_state
  // (zeros before the first); kept only when drift_time_constant > 0, else empty.
  std::vector<double> query_drift() const;
  // Forces the SIMD code path (tests compare paths; the default is the best for this CPU).
  // Throws InternalError if the CPU lacks it.
  void use_simd_level(detail::SimdLevel level);

  // The static part: effective weights W_eff (N x d, row-major).
  std::vector<float> effective_weights() const;
  // Detuning of each ring in the current state (N x d, metres).
  const std::vector<double>& detunings() const { return detuning_; }

 private:
  // ideal_state: compute the static part of the ideal state (else set_state must follow).
  MvmKernel(const DeviceSpec& device, const ImpairmentSpec& impairments,
            std::span<const float> weights, bool ideal_state);
  void compute_static();
  void compute_heat();                     // heat_ from programmed_ (thermal crosstalk of heaters)
  void prepare(std::span<const float> x);  // u_, u2_
  // Index of (row r, channel j) in the blocked per-query layout (see mvm.cpp).
  std::size_t blocked(int r, int j) const {
    return (static_cast<std::size_t>(r / kBlockRows) * d_ + j) * kBlockRows + r % kBlockRows;
  }
  void finish(std::span<float> scores, std::span<float> currents, RandomStream& noise);
  // Single-ended detection: drop-port scores -> signed scores (no-op when balanced).
  void single_ended_reference(std::span<float> scores) const;

  ImpairmentSpec imp_;
  WeightProgrammer programmer_;
  DetectionModel detection_;
  DacSpec dac_spec_;
  NoiseSpec noise_spec_;
  int rows_, d_;
  int rows_pad_ = 0;  // rows_ rounded up to the block size
  std::vector<double> lambdas_;
  std::vector<double> inv_lambdas_;  // d: 1 / lambda_j
  std::vector<double> inv_res_;      // d: scratch of compute_static, 1 / resonance of each ring
  std::vector<float> requested_;     // N x d
  std::vector<double> target_;       // N x d target detunings of requested_ (DAC-independent)
  std::vector<double> programmed_;   // N x d detunings from the DAC (no drift, no errors)
  std::vector<double> static_err_;   // N x d fabrication + calibration error
  std::vector<double> drift_;        // N x d drift of the state (global + local)
  std::vector<double> heat_;         // N x d shift by the neighbours' heaters
  std::vector<double> detuning_;     // N x d total
  // Static part in the blocked layout (row blocks of 32, channel-major inside a block, zero
  // rows padding the last block) so the per-query loop runs over rows in SIMD lanes.
  std::vector<float> wt_, st_;  // W_eff, S
  std::vector<float> own_t_;    // lone-ring weight of each ring on its own channel
  std::vector<float> det_t_;    // detuning of each ring (metres)
  std::vector<float> bias_;     // N: offset current R P eps sum_j W_eff (A)
  std::vector<float> bias_s_;   // N: same for S
  // Per-query scratch.
  std::vector<float> u_, u2_, acc_, sum_, rin_, z_, cur_;
  std::vector<float> zq_;      // per block: drift normals, then the fresh unit field
  std::vector<float> zs_;      // per block: scratch of the column scan
  std::vector<float> carry_;   // d: the field in the last row of the previous block
  std::vector<float> qfield_;  // blocked: the per-query unit field in use
  std::vector<float> corr_;    // blocked: own-weight corrections of that field
  const kernels::KernelSet* kernels_ = nullptr;  // the SIMD path in use
  int refresh_k_ = 1;                            // queries per drift update
  double drift_a_ = 0.0;                         // OU transition over K queries, exp(-K T / tau)
  std::uint64_t queries_ = 0;                    // score_with_drift calls since set_state
  bool have_field_ = false;                      // qfield_ holds a field of the current state
  double heater_c_ = 0.0;                        // thermal crosstalk applied (0: none)
  // Lone-ring weight w(delta) = (p + q s^2) / (r + q s^2), s = sin(k delta / (lambda + delta)),
  // for per-query drift (mvm.cpp, drift_block).
  double ring_k_ = 0, ring_p_ = 0, ring_q_ = 0, ring_r_ = 0;
  kernels::RingWeightConsts ring_consts_{};
  double scale_ = 0;  // R P_ch (1 - eps): A per unit score
  double eps_ = 0, r_pch_ = 0;
  double rin_coef_ = 0, shot_coef_ = 0, const_var_ = 0;
  double drift_rho_ = 0;       // AR(1) coefficient of the local drift along a row
  bool single_ended_ = false;  // drop-port detection (DetectorSpec::mode)
  float x_sum_ = 0;            // sum_j x_j of the current query (single-ended reference)
};

}  // namespace lightsim::photonics
