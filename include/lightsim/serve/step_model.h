// How long one batch step of a model instance takes (docs/serving.md, "Step model").
//
// A step processes `tokens` new prompt tokens (chunked prefill) and/or one new token for each of
// `batch` decoding sequences. The scheduler times a step as prefill(tokens, prior) +
// decode(batch, context): a mixed step pays both parts (Sarathi-Serve's hybrid batch, timed as
// its prefill and decode parts run one after the other).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "lightsim/serve/scenario.h"

namespace lightsim::serve {

class StepModel {
 public:
  virtual ~StepModel() = default;
  // s: a step over `tokens` >= 1 new prompt tokens whose sequences already hold `prior` >= 0
  // cached tokens (token-weighted mean over the requests in the step).
  virtual double prefill(std::int64_t tokens, double prior) const = 0;
  // s: one decode step of `batch` >= 1 sequences whose mean context is `context` >= 1 tokens.
  virtual double decode(std::int64_t batch, double context) const = 0;
};

// What an instance can hold and what a request needs: the admission test of the scheduler.
struct InstanceMemory {
  double kv_bytes_per_token = 0;  // B
  double kv_capacity = 0;         // B of KV cache per instance
};

// Fixed costs (FixedStepSpec): prefill = base + per_token x tokens, decode = base +
// per_sequence x batch; both independent of the context.
class FixedStepModel final : public StepModel {
 public:
  explicit FixedStepModel(const FixedStepSpec& spec);
  double prefill(std::int64_t tokens, double prior) const override;
  double decode(std::int64_t batch, double context) const override;

 private:
  double prefill_base_, prefill_per_token_, decode_base_, decode_per_sequence_;
};

// Memoizes another step model on a geometric grid (8 points per octave in tokens, batch and
// context; integers below 16 exactly) and interpolates linearly between grid points, so a run
// of 10^5 requests asks the inner model only a few hundred times. The inner model is asked at
// grid points only. Not thread-safe (one per simulation).
class CachedStepModel final : public StepModel {
 public:
  explicit CachedStepModel(std::shared_ptr<const StepModel> inner);
  double prefill(std::int64_t tokens, double prior) const override;
  double decode(std::int64_t batch, double context) const override;
  std::size_t inner_calls() const { return cache_.size(); }

 private:
  double at(bool prefill, int i, int j) const;  // inner model at grid point (i, j)
  double interpolate(bool prefill, double x, double y) const;
  std::shared_ptr<const StepModel> inner_;
  mutable std::unordered_map<std::uint64_t, double> cache_;
};

// Grid of CachedStepModel: index of the grid point at or below x (x >= 0) and its value.
int grid_index(double x);
double grid_value(int i);

}  // namespace lightsim::serve
