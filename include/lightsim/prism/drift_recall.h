// Retrieval quality that thermal drift leaves (docs/thermal.md, "Recall under drift"): the
// resonance errors of a drift run (prism::simulate_drift, after the TEC, sensor correction and
// relocks) become the Prism scorer's impairment state, and Recall@k is measured on a synthetic
// KV cache against the exact projected top-k, beside the same scorer with no drift (the ideal
// of this accelerator) and with the same run left uncalibrated.
//
// Impairment states (photonics::ImpairmentSpec, the four resonance-error fields replaced in the
// accelerator's own impairments; every other field kept):
//   ideal         fabrication_sigma = calibration_residual = drift_* = 0
//   calibrated    DriftRun::impairments (lock residual, local and global drift)
//   uncalibrated  DriftRun::uncalibrated (no lock, no sensor correction: the fabrication error
//                 and everything that drifted since)
// One impairment draw per bank (per KV head) from HeadIndex{layer, head, seed}: the three
// states share their noise streams, so a zero drift state gives the ideal's recall exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {

// The synthetic cache (kv::generate_kv_cache defaults otherwise): one layer, `kv_heads` KV
// heads of 7 query heads each, head_dim 128, `tokens` tokens (128-token blocks), `steps`
// decode queries; the projection is each head's PCA to the accelerator's d.
struct DriftRecallOptions {
  std::int64_t tokens = 8192;
  std::int64_t steps = 8;
  std::int64_t kv_heads = 2;
  std::vector<std::size_t> k = {8, 32};
};

struct RecallAtK {
  std::size_t k = 0;
  double ideal = 0.0;         // mean over heads x steps of |top_k(prism) & top_k(exact)| / k
  double calibrated = 0.0;    // with the run's drift after its locks
  double uncalibrated = 0.0;  // with the run's drift and no lock
};

struct DriftRecall {
  std::int64_t tokens = 0, steps = 0, kv_heads = 0, blocks = 0;
  std::vector<RecallAtK> recall;
};

// The accelerator's impairments with the resonance-error fields taken from `state`.
photonics::ImpairmentSpec with_drift_state(photonics::ImpairmentSpec base,
                                           const photonics::ImpairmentSpec& state);

// Recall under the three states of `run` (see above). Deterministic for ctx's seed.
DriftRecall drift_recall(const AcceleratorSpec& a, const DriftRun& run,
                         const DriftRecallOptions& options, Context& ctx);

// Recall@k of `states` (one per state) for the same cache: out[s][ki] for k = options.k[ki].
// The building block of drift_recall, exposed for tests.
std::vector<std::vector<double>> recall_under(const AcceleratorSpec& a,
                                              const std::vector<photonics::ImpairmentSpec>& states,
                                              const DriftRecallOptions& options, Context& ctx);

}  // namespace lightsim::prism
