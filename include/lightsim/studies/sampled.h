// Figures of ours estimated from samples (a recall, a hit rate, a relative drop between two
// of them), carried with their 95% interval so that every claim prints it beside the figure
// (report::Claim::ours_ci95; docs/studies.md, "rejudge").
#pragma once

#include <cstddef>
#include <optional>

#include "lightsim/kv/metrics.h"
#include "lightsim/report/result.h"

namespace lightsim::studies {

// A sampled figure: its mean and the half-width of its 95% interval (kv::Estimate's ci95,
// 1.96 standard errors over the samples).
struct Sampled {
  double value = 0;
  double ci95 = 0;
};

inline Sampled sampled(const kv::Estimate& e) {
  return {e.mean, e.ci95};
}

// The 95% half-width of a mean over n samples from its first two moments (mean = E[x],
// mean_sq = E[x^2]): 1.96 sqrt(s^2 / n) with the unbiased s^2, as kv::estimate; 0 for n < 2.
double ci95_from_moments(double mean, double mean_sq, std::size_t n);

// (a - b) / a, the relative drop from a to b (a != 0). Half-width by first-order propagation
// with a and b treated as independent: sqrt(ci_b^2 + (b / a)^2 ci_a^2) / |a|. Two figures
// measured on the same queries are positively correlated, so this overstates the interval.
Sampled relative_drop(Sampled a, Sampled b);

// (b - a) / a, the relative gain from a to b (a != 0); the same half-width as relative_drop.
Sampled relative_gain(Sampled a, Sampled b);

// Sets the claim's figure and its interval (nothing when `figure` is empty).
void set_ours(report::Claim& claim, const std::optional<Sampled>& figure);

}  // namespace lightsim::studies
