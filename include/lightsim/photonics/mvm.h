// The photonic matrix-vector kernel: an N x d bank of programmed rings scores queries.
//
// It composes the three parts of the model:
//   BankState (bank_state.h): the static state of one Monte-Carlo trial, computed once per
//     impairment state (set_state): every ring's detuning and the bank's effective weights;
//   DriftProcess (drift_process.h): the per-query local drift of score_with_drift;
//   DetectionChain (detection_chain.h): modulation, detector/RIN/TIA noise drawn from a core
//     random stream, ADC quantization and the conversion to scores.
// Per query (score): one pass over W_eff (a matrix-vector product, SIMD over rows), then the
// detection chain.
#pragma once

#include <cstdint>
#include <span>

#include "lightsim/core/rng.h"
#include "lightsim/photonics/bank_state.h"
#include "lightsim/photonics/detection_chain.h"
#include "lightsim/photonics/drift_process.h"
#include "lightsim/photonics/impairments.h"

namespace lightsim::photonics {

struct DeviceSpec;

class MvmKernel {
 public:
  // `weights`: N x d requested weights in [-1, 1], row-major (N = weights.size() / d), in the
  // ideal impairment state (no drift, no errors).
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

  int rows() const { return bank_.rows(); }
  int channels() const { return bank_.channels(); }

  // The impairment state of Monte-Carlo trial `trial` (BankState::set_state); the per-query
  // drift restarts.
  void set_state(std::uint64_t seed, std::uint64_t trial);

  // Scores one query. x: d inputs in [0, 1]; scores: N values in weight units (sum_j w x_j
  // when nothing is impaired); currents (optional): N detector currents in A (TIA input).
  // Single-ended detection: currents are the drop-port currents and the scores the digitally
  // recovered sum_j x_j - 2 sum_j D_eff x_j.
  void score(std::span<const float> x, std::span<float> scores, RandomStream& noise,
             std::span<float> currents = {});
  // Same, with the per-query local drift of DriftProcess on each ring's own-channel weight
  // (its normals drawn from `noise` before the detection noise). Balanced detection only
  // (InputError otherwise).
  void score_with_drift(std::span<const float> x, std::span<float> scores, RandomStream& noise,
                        std::span<float> currents = {});
  // Forces the SIMD code path of the queries and of later set_state calls (tests compare
  // paths; the default is the best for this CPU). Throws InternalError if the CPU lacks it.
  void use_simd_level(detail::SimdLevel level);

  const BankState& bank() const { return bank_; }
  const DriftProcess& drift() const { return drift_; }
  const DetectionChain& detection() const { return detection_; }

 private:
  // ideal_state: compute the static part of the ideal state (else set_state must follow).
  MvmKernel(const DeviceSpec& device, const ImpairmentSpec& impairments,
            std::span<const float> weights, bool ideal_state);

  BankState bank_;
  DetectionChain detection_;
  DriftProcess drift_;
  const kernels::KernelSet* kernels_;  // the SIMD path in use
};

}  // namespace lightsim::photonics
