// The per-query local drift of a bank's rings (MvmKernel::score_with_drift): each query sees
// its own local drift field on top of the bank's state, every ring's own-channel weight moved
// through the exact lone-ring response (in float); the crosstalk terms keep the state's values.
//
// The field is a unit-variance AR(1) field along the bus (drift_neighbour_correlation), rows
// independent (docs/photonics.md, "Per-query drift", says why the state's field also
// correlates down the columns and this one does not), scaled by drift_local_sigma (m). With
// drift_time_constant tau > 0 it is an Ornstein-Uhlenbeck process in time, redrawn every
// K = refresh_queries() queries by its exact transition over K T and held in between
// (ImpairmentSpec); with tau = 0 it is drawn afresh every query.
#pragma once

#include <cstdint>
#include <vector>

#include "lightsim/core/aligned.h"
#include "lightsim/core/rng.h"
#include "lightsim/photonics/bank_state.h"
#include "lightsim/photonics/impairments.h"

namespace lightsim::photonics {

struct DeviceSpec;
namespace kernels {
struct KernelSet;
struct RingWeightConsts {  // lone-ring weight in float (src/photonics/mvm_kernels.h)
  float k, lambda, p, q, r;
};
}  // namespace kernels

class DriftProcess {
 public:
  // Throws InternalError when drift_time_constant > 0 and the query period is 0, UsageError
  // when thermal_drift is set but drift_time_constant is not (no thermal model resolved it).
  DriftProcess(const DeviceSpec& device, const ImpairmentSpec& impairments, const Ring& ring,
               const BlockLayout& layout);

  // Queries between field updates (K >= 1).
  int refresh_queries() const { return refresh_k_; }
  // A new bank state: the next query draws a fresh field (no memory of the last state's).
  void restart() {
    queries_ = 0;
    have_field_ = false;
  }

  // One query: begin_query, then block_corrections for blocks 0, 1, ... in order, then
  // end_query. On an update query block_corrections draws the block's d x kRows normals from
  // `noise` (one fill per block: consecutive fills equal one fill of the total, so the draws
  // depend on the stream only) and steps the field; otherwise it returns the held corrections.
  // Returns the change of each ring's own-channel weight in block b (blocked layout).
  void begin_query();
  const float* block_corrections(int b, const BankState& bank, RandomStream& noise,
                                 const kernels::KernelSet& k);
  void end_query();
  // Between begin_query and end_query of a query that draws nothing (the field has memory in
  // time and this is not an update query): the held corrections of every block, blocked
  // (block b at layout().block_offset(b)), which block_corrections would return block by
  // block; null otherwise.
  const float* held_corrections() const {
    return keep_ && have_field_ && !update_ ? corr_.data() : nullptr;
  }

  // The local drift (metres, N x d row-major) of the last query since restart (zeros before
  // the first); kept only when drift_time_constant > 0, else empty.
  std::vector<double> field() const;

 private:
  BlockLayout layout_;
  double sigma_ = 0.0;  // drift_local_sigma (m)
  double rho_ = 0.0;    // AR(1) coefficient along a row
  bool keep_ = false;   // the field has memory in time (drift_time_constant > 0)
  int refresh_k_ = 1;   // queries per field update
  double a_ = 0.0;      // OU transition over K queries, exp(-K T / tau)
  // Lone-ring weight w(delta) = (p + q s^2) / (r + q s^2), s = sin(k delta / (lambda + delta)).
  kernels::RingWeightConsts ring_{};
  std::uint64_t queries_ = 0;  // queries since restart
  bool update_ = false;        // the current query redraws the field
  bool have_field_ = false;    // field_ holds a field of the current state
  // (Cache-line aligned: the kernels read and write them in 64-byte vectors.)
  AlignedVector<float> z_;      // per block: the normals, then the fresh unit field
  AlignedVector<float> field_;  // blocked (one block when !keep_): the unit field in use
  AlignedVector<float> corr_;   // blocked (one block when !keep_): own-weight corrections
};

}  // namespace lightsim::photonics
