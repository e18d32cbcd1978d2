// The abstract Prism Monte-Carlo and the physical model beside it (docs/prism.md, "Abstract
// Monte-Carlo").
//
// Abstract model (a standard one; no published Prism paper defines it): per trial, N x d
// unit-Gaussian signatures S and a unit-Gaussian query q; weights W = Qb(S / max|S|) + sigma z
// (Qb = quantize_weight at programming.weight_levels, z ~ N(0, 1) per weight); scores W q;
// Recall@k = |top_k(W q) & top_k(S q)| / k.
// Physical model: the same S and q through the bank (map_signatures, MvmKernel, QueryReadout)
// with impairments.weight_noise = sigma: `model` with every physical impairment off (crosstalk,
// DAC quantization and errors, heater crosstalk, detector noise) at the balanced (signed)
// encoding and 16-bit query drive, which is the abstract model in physical units; `impaired`
// with the accelerator's own impairments and encoding, plus the same weight noise.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lightsim/prism/accelerator.h"

namespace lightsim::prism {

struct MonteCarloOptions {
  int dim = 64;     // d (the device is re-gridded to d channels)
  int rows = 1024;  // N signatures
  int top_k = 32;   // k
  int trials = 24;  // bank states (S, noise) per point
  int queries = 8;  // queries per trial
  std::vector<int> bits{4, 5, 6, 7, 8};
  std::vector<double> weight_noise{0.0, 0.02, 0.05};  // sigma, fraction of full scale
  std::uint64_t seed = 0;
};

// Mean Recall@k over trials x queries and its 95% confidence half-width (1.96 x the standard
// error of the per-trial means).
struct RecallEstimate {
  double mean = 0, ci95 = 0;
};

struct MonteCarloPoint {
  int bits = 0;
  double weight_noise = 0;
  RecallEstimate abstract{}, model{}, impaired{};
};

// The abstract model's Recall@k of one query (signatures [N, d] row-major; `noise` N x d
// standard normals, or empty for sigma = 0).
double abstract_recall(std::span<const float> signatures, std::span<const float> query, int d,
                       int bits, WeightLevels levels, double sigma, std::span<const float> noise,
                       int k);

// `a` re-gridded to d channels (the `impaired` configuration), and the same with every physical
// impairment off, the balanced encoding and 16-bit query drive (the `model` configuration).
AcceleratorSpec at_dim(const AcceleratorSpec& a, int dim);
AcceleratorSpec abstract_equivalent(const AcceleratorSpec& a, int dim);

// Mean Recall@k over `queries` ([Q, d] row-major) of the bank of `a` programmed with
// `signatures` at `bits` (a.programming.weight_levels, a.impairments incl. weight_noise) in the
// impairment state of (seed, trial); query k's detector noise from (seed, {"AMCW", trial, k+1}).
double physical_recall(const AcceleratorSpec& a, std::span<const float> signatures,
                       std::span<const float> queries, int bits, int k, std::uint64_t seed,
                       std::uint64_t trial);

// Every (bits, weight_noise) point of `o` on accelerator `a`; deterministic for any thread
// count (one random stream per trial: seed, {"AMCS", trial} for S and q, {"AMCW", trial} for
// the abstract noise; the bank's own streams for the physical noise).
std::vector<MonteCarloPoint> abstract_montecarlo(const AcceleratorSpec& a,
                                                 const MonteCarloOptions& o);

}  // namespace lightsim::prism
