// The detection chain of a bank's rows (MvmKernel): the modulated input lines, the photodiode
// signals a pass over the bank accumulates, their analog noise and ADC quantization, and the
// conversion of the currents back to scores.
//
// Line j carries R P_ch u_j with u_j = eps + (1 - eps) x_j (P_ch: laser power per line after the
// link budget's losses, eps: the modulator's extinction leak, R: responsivity). A row's current
// is scale acc + offset (A), acc = sum_j W_eff x_j (weight units), scale = R P_ch (1 - eps),
// offset = R P_ch eps sum_j W_eff, plus one Gaussian of the summed variances: detector dark
// shot, thermal, TIA and NEP noise (half the dark shot and NEP single-ended: one photodiode),
// signal shot noise 2 q R P_ch (sum_j S u_j) B and RIN (R P_ch)^2 RIN B sum_j W_eff^2 u_j^2.
// The ADC clips and rounds the current, and scores = (current - offset) / scale. Single-ended
// detection reads the drop port: scores are then sum_j x_j - 2 sum_j D_eff x_j (T - D = 1 - 2 D
// for a lossless ring).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "lightsim/core/aligned.h"
#include "lightsim/core/rng.h"
#include "lightsim/photonics/bank_state.h"
#include "lightsim/photonics/detection.h"

namespace lightsim::photonics {

struct DeviceSpec;
namespace kernels {
struct KernelSet;
}

class DetectionChain {
 public:
  // noise: draw the device's noise terms (ImpairmentSpec::noise; off: none of them).
  DetectionChain(const DeviceSpec& device, bool noise, const BlockLayout& layout);

  bool single_ended() const { return single_ended_; }
  // Whether a pass must accumulate sum_j S u_j (shot noise) and sum_j W_eff^2 u_j^2 (RIN).
  bool shot_noise() const { return shot_coef_ > 0; }
  bool rin_noise() const { return rin_coef_ > 0; }

  // The offset currents of the bank's rows (A) from its row sums (BankState::row_weight_sums).
  void set_offsets(const std::vector<double>& row_weight_sums);

  // One query: modulate (x: d inputs in [0, 1]; InternalError unless d), a pass over
  // every block into acc/sum/rin2, then finish.
  void modulate(std::span<const float> x);
  const float* line_factors() const { return u_.data(); }            // d: u_j
  const float* line_factors_sq() const { return u2_.data(); }        // d: u_j^2
  float* acc(int b) { return acc_.data() + layout_.block_row(b); }   // sum_j W_eff x_j
  float* sum(int b) { return sum_.data() + layout_.block_row(b); }   // sum_j S u_j
  float* rin2(int b) { return rin_.data() + layout_.block_row(b); }  // sum_j W_eff^2 u_j^2
  // scores: N values in weight units; currents (optional): N detector currents in A (TIA input;
  // balanced: through minus drop, single-ended: drop). Noise normals come from `noise`.
  void finish(std::span<float> scores, std::span<float> currents, RandomStream& noise,
              const kernels::KernelSet& k);

 private:
  // Single-ended detection: drop-port scores -> signed scores (no-op when balanced).
  void single_ended_reference(std::span<float> scores) const;

  DetectionModel detection_;
  NoiseSpec noise_spec_;
  BlockLayout layout_;
  bool single_ended_;
  double eps_ = 0, r_pch_ = 0;
  double scale_ = 0;  // R P_ch (1 - eps): A per unit score
  double rin_coef_ = 0, shot_coef_ = 0, const_var_ = 0;
  std::vector<float> offset_;             // N: offset current of each row (A)
  std::vector<float> u_, u2_;             // d: line factors of the query
  float x_sum_ = 0;                       // sum_j x_j of the query (single-ended reference)
  AlignedVector<float> acc_, sum_, rin_;  // rows_pad: the pass's accumulators (64-byte aligned)
  std::vector<float> z_, cur_;            // N: the noise normals, the currents when not asked
};

}  // namespace lightsim::photonics
