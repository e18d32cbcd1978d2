// Fixed and cached step models (step_model.h).
#include "lightsim/serve/step_model.h"

#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"

namespace lightsim::serve {

FixedStepModel::FixedStepModel(const FixedStepSpec& spec)
    : prefill_base_(spec.prefill_base.si()),
      prefill_per_token_(spec.prefill_per_token.si()),
      decode_base_(spec.decode_base.si()),
      decode_per_sequence_(spec.decode_per_sequence.si()) {}

double FixedStepModel::prefill(std::int64_t tokens, double /*prior*/) const {
  return prefill_base_ + prefill_per_token_ * static_cast<double>(tokens);
}

double FixedStepModel::decode(std::int64_t batch, double /*context*/) const {
  return decode_base_ + decode_per_sequence_ * static_cast<double>(batch);
}

namespace {
constexpr int kExact = 16;        // grid points 0..15 are the integers
constexpr double kPerOctave = 8;  // above: 16 x 2^(k / 8)
}  // namespace

double grid_value(int i) {
  if (i < kExact) return i;
  return std::round(kExact * std::exp2(static_cast<double>(i - kExact) / kPerOctave));
}

int grid_index(double x) {
  if (x < kExact) return static_cast<int>(std::floor(std::max(0.0, x)));
  int i = kExact + static_cast<int>(std::floor(kPerOctave * std::log2(x / kExact)));
  while (i > kExact && grid_value(i) > x) --i;  // rounding of the grid values
  while (grid_value(i + 1) <= x) ++i;
  return i;
}

CachedStepModel::CachedStepModel(std::shared_ptr<const StepModel> inner)
    : inner_(std::move(inner)) {
  LIGHTSIM_CHECK(inner_ != nullptr, "CachedStepModel without an inner model");
}

double CachedStepModel::at(bool prefill, int i, int j) const {
  const std::uint64_t key = (static_cast<std::uint64_t>(prefill) << 63) |
                            (static_cast<std::uint64_t>(i) << 32) | static_cast<std::uint32_t>(j);
  const auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  const auto x = static_cast<std::int64_t>(std::max(1.0, grid_value(i)));
  const double y = grid_value(j);
  const double v = prefill ? inner_->prefill(x, y) : inner_->decode(x, std::max(1.0, y));
  cache_.emplace(key, v);
  return v;
}

double CachedStepModel::interpolate(bool prefill, double x, double y) const {
  const int i = std::max(1, grid_index(x));
  const int j = grid_index(y);
  const double x0 = grid_value(i), x1 = grid_value(i + 1);
  const double y0 = grid_value(j), y1 = grid_value(j + 1);
  const double fx = std::clamp((x - x0) / (x1 - x0), 0.0, 1.0);
  const double fy = std::clamp((y - y0) / (y1 - y0), 0.0, 1.0);
  const double a = at(prefill, i, j), b = at(prefill, i + 1, j);
  if (fy == 0) return a + fx * (b - a);
  const double c = at(prefill, i, j + 1), d = at(prefill, i + 1, j + 1);
  return (1 - fy) * (a + fx * (b - a)) + fy * (c + fx * (d - c));
}

double CachedStepModel::prefill(std::int64_t tokens, double prior) const {
  return interpolate(true, static_cast<double>(tokens), prior);
}

double CachedStepModel::decode(std::int64_t batch, double context) const {
  return interpolate(false, static_cast<double>(batch), context);
}

}  // namespace lightsim::serve
