// The static state of an N x d bank of programmed rings (one Monte-Carlo trial): what every
// query of that trial sees.
//
// Each ring's detuning is its DAC-programmed detuning (quantized, through the trial's DAC gain
// error and INL/DNL) plus fabrication and calibration error, the trial's drift (chip-wide
// global + a local field correlated along the bus and down the columns) and the shift by its
// neighbours' heaters. From the detunings: the bank's effective weights with crosstalk and bus
// order, W_eff[r][j] = T_eff - D_eff (balanced detection; D_eff single-ended), and the total
// photodiode fractions S[r][j] = T_eff + D_eff (for shot noise); dimensionless power fractions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "lightsim/core/aligned.h"
#include "lightsim/photonics/impairments.h"
#include "lightsim/photonics/weights.h"

namespace lightsim::photonics {

struct DeviceSpec;
namespace kernels {
struct KernelSet;
}  // namespace kernels

// Layout of the per-query matrices: rows in blocks of kRows, each block channel-major (element
// (r, j) at ((r / kRows) d + j) kRows + r % kRows), the row count padded with zero rows to whole
// blocks. A block's accumulators then stay in SIMD registers over all d channels, and each
// block reads its d x kRows floats of a matrix contiguously (src/photonics/mvm_kernels.h).
struct BlockLayout {
  static constexpr int kRows = 32;
  BlockLayout(int n_rows, int n_channels)
      : rows(n_rows), channels(n_channels), rows_pad((n_rows + kRows - 1) / kRows * kRows) {}
  int blocks() const { return rows_pad / kRows; }
  std::size_t block_size() const { return static_cast<std::size_t>(kRows) * channels; }
  std::size_t padded_size() const { return static_cast<std::size_t>(rows_pad) * channels; }
  // Offset of block b's first element, and of its first row in a per-row array.
  std::size_t block_offset(int b) const { return static_cast<std::size_t>(b) * block_size(); }
  std::size_t block_row(int b) const { return static_cast<std::size_t>(b) * kRows; }
  // Index of (row r, channel j).
  std::size_t index(int r, int j) const {
    return (static_cast<std::size_t>(r / kRows) * channels + j) * kRows + r % kRows;
  }
  int rows, channels;
  int rows_pad;  // rows rounded up to whole blocks
};

class BankState {
 public:
  // `weights`: N x d requested weights in [-1, 1], row-major (N = weights.size() / d; throws
  // InternalError unless it is a whole number > 0). ideal_state: compute the ideal state's
  // static part (no drift, no errors, ideal DAC); otherwise set_state must follow before use.
  BankState(const DeviceSpec& device, const ImpairmentSpec& impairments,
            std::span<const float> weights, bool ideal_state);

  // Draws the impairment state of Monte-Carlo trial `trial` from stream (seed, {"PHOT",
  // trial}) and recomputes the static part. The draws, in stream order (stream version 2,
  // docs/photonics.md "Impairment state"): the chip's DAC INL/DNL profile
  // (DacInstance::sample) and 2 float uniforms per ring for its gain and calibrated gain (when
  // dac_errors); one float normal per ring for its static error (fabrication and calibration
  // residual, independent normals, so one normal of their root-sum-square sigma); one double
  // normal for the global drift; one float normal per ring for the local drift field; one float
  // normal per ring for the weight-space noise (only when impairments.weight_noise > 0).
  void set_state(std::uint64_t seed, std::uint64_t trial);
  // The SIMD path of the static part (every path gives the same bits; tests compare them).
  void use_kernels(const kernels::KernelSet& k) { kernels_ = &k; }

  const BlockLayout& layout() const { return layout_; }
  int rows() const { return layout_.rows; }
  int channels() const { return layout_.channels; }
  const WeightProgrammer& programmer() const { return programmer_; }

  // Block b of the blocked matrices: W_eff, S, each ring's lone-ring weight on its own channel
  // and each ring's detuning (metres).
  const float* weights(int b) const { return wt_.data() + layout_.block_offset(b); }
  const float* fractions(int b) const { return st_.data() + layout_.block_offset(b); }
  const float* own_weights(int b) const { return own_t_.data() + layout_.block_offset(b); }
  const float* ring_detunings(int b) const { return det_t_.data() + layout_.block_offset(b); }
  // N: sum_j W_eff of each row, in double (the modulators' extinction leak reaches the
  // detectors through it: DetectionChain::set_offsets).
  const std::vector<double>& row_weight_sums() const { return row_sum_; }

  // W_eff (N x d, row-major).
  std::vector<float> effective_weights() const;
  // Detuning of each ring in the current state (N x d, row-major, metres).
  const std::vector<double>& detunings() const { return detuning_; }

 private:
  void compute_heat();    // heat_ from programmed_ (thermal crosstalk of the heaters)
  void compute_static();  // detuning_ and the blocked matrices from the parts
  // programmed_ from `target` through an ideal DAC (or exactly, without quantization).
  void program_ideal(const std::vector<double>& target);

  const kernels::KernelSet* kernels_;
  ImpairmentSpec imp_;
  WeightProgrammer programmer_;
  DacSpec dac_spec_;
  BlockLayout layout_;
  bool single_ended_;                // drop-port detection: the through port is not detected
  double heater_c_ = 0.0;            // thermal crosstalk of the heaters applied (0: none)
  double drift_rho_ = 0.0;           // drift_neighbour_correlation
  double weight_sigma_ = 0.0;        // weight-space noise sigma, weight units (0: off)
  std::vector<double> lambdas_;      // d channel wavelengths (m)
  std::vector<double> inv_lambdas_;  // d: 1 / lambda_j
  std::vector<double> heater_pow_;   // d: heater_c_^k, k = |i - j|
  // d x d: sine and cosine of the half-phase of channel j at ring i's channel, A_ji =
  // (phase_constant / 2)(1/lambda_j - 1/lambda_i) (kernels::MixBlock).
  std::vector<double> sin_a_, cos_a_;
  std::vector<float> draws_;      // scratch of set_state: the float draws
  std::vector<float> dac_draws_;  // scratch of set_state: 2 uniforms per ring for its DAC
  std::vector<double> dac_gain_, dac_ideal_;  // scratch of set_state: each ring's DAC gain, code
  std::vector<double> noisy_target_;          // N x d targets with weight-space noise (set_state)
  // Blocked scratch of compute_static: each ring's half-phase on its own channel (B_i) and at
  // the ring's design wavelength, their sine and cosine; one block's thru and drop.
  // (The blocked arrays are cache-line aligned: the kernels read them in 64-byte vectors.)
  AlignedVector<double> half_, half_own_, sin_b_, cos_b_, sin_own_, cos_own_, thru_, drop_;
  std::vector<float> requested_;    // N x d
  std::vector<double> target_;      // N x d target detunings of requested_ (DAC-independent)
  std::vector<double> programmed_;  // N x d detunings from the DAC (no drift, no errors)
  std::vector<double> static_err_;  // N x d fabrication + calibration error
  std::vector<double> drift_;       // N x d drift of the state (global + local)
  std::vector<double> heat_;        // N x d shift by the neighbours' heaters
  std::vector<double> detuning_;    // N x d total
  AlignedVector<float> wt_, st_;    // blocked: W_eff, S
  AlignedVector<float> own_t_;      // blocked: lone-ring weight of each ring on its own channel
  AlignedVector<float> det_t_;      // blocked: detuning of each ring (metres)
  std::vector<double> row_sum_;     // N: sum_j W_eff
};

}  // namespace lightsim::photonics
