// Quantization-aware training (QAT) of the d-dimensional signature projection P of one KV head
// (../shared/SPEC.md section 1.5; docs/prism.md "Compensation: QAT").
//
// Forward model of one decode query q (the group's summed query, as the Prism scorer):
//   S = Mb P^T                    block signatures [blocks, d] (Mb: block mean keys [blocks, D])
//   W = range Qw(S / m)           bank weights, m = max |S|, Qw(x) = round(x s) / s with
//                                 s = 2^(bits-1) - 1 (the seed's rule, programming.h)
//   u = P q, v = Qx((1 + u / max|u|) / 2) - 1/2   the intensity-encoded query minus the offset
//                                 the controller removes digitally (encode_query, query_bits)
//   s_b = W_b . v + sigma z_b     score in weight units, z_b ~ N(0, 1) drawn per (epoch, step)
// Loss: cross-entropy between the true attention mass over the candidate blocks, p_b (summed
// over the query group, normalized), and softmax(s / T): L = -sum_b p_b log softmax(s / T)_b.
// Backward: straight-through estimator through Qw and Qx (d Q(x) / dx := 1, Bengio et al.
// 2013, arXiv 1308.3432); the normalizers m and max|u| are treated as constants (they only set
// a scale the ranking does not see). Optimizer: Adam (Kingma & Ba 2015, arXiv 1412.6980),
// bias-corrected, on the mean gradient of each mini-batch of decode steps, its step size
// relative to the RMS entry of P (the loss does not depend on the scale of P).
// Training is serial per head (deterministic); callers parallelize over heads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "lightsim/kv/blocks.h"
#include "lightsim/kv/cache.h"
#include "lightsim/kv/projection.h"
#include "lightsim/prism/accelerator.h"

namespace lightsim::prism {

struct QatOptions {
  int weight_bits = 4;  // Qw resolution (programming.weight_bits of the target bank)
  WeightLevels weight_levels = WeightLevels::zero_centred;  // programming.weight_levels
  int query_bits = 8;           // Qx resolution (electronics.query_bits)
  double weight_range = 0.9;    // weights in [-range, range] (device.requirements.weight_range)
  double score_noise = 0.0;     // sigma, weight units (measure_score_noise, or a stated value)
  double temperature = 2.0;     // T of softmax(s / T), weight units (docs/studies.md, qat)
  int epochs = 60;              // passes over the training steps
  std::size_t batch = 8;        // decode steps per Adam step
  double learning_rate = 0.05;  // Adam step relative to the RMS entry of P (scale-free loss)
  double beta1 = 0.9, beta2 = 0.999, adam_epsilon = 1e-8;
};

// The options that model `a`'s bank: its weight and query bits and weight range (score_noise
// is left at 0; set it from measure_score_noise(a, ...) to train through the noise).
QatOptions qat_options_for(const AcceleratorSpec& a);

// The training data of one head: block mean keys, and per decode step the summed query of the
// group and the true block mass distribution over the candidate blocks (sum 1).
struct QatData {
  std::size_t head_dim = 0, blocks = 0;
  std::vector<float> block_means;           // [blocks, D]
  std::vector<std::size_t> steps;           // decode steps used
  std::vector<float> queries;               // [steps, D]
  std::vector<double> mass;                 // [steps, blocks], 0 on non-candidate blocks
  std::vector<unsigned char> is_candidate;  // [blocks]
};
QatData make_qat_data(const kv::HeadView& head, const kv::BlockLayout& layout,
                      std::span<const std::size_t> steps);

struct QatResult {
  kv::ProjectionMatrix projection;  // [d, D]
  std::vector<double> loss;         // mean training loss per epoch (before its updates)
};

// One head's training from `init` ([d, D]). Noise draws come from the stream
// (seed, {"QAT", stream_id, epoch, step}); the result depends on nothing else.
QatResult train_qat(const QatData& data, const kv::ProjectionMatrix& init,
                    const QatOptions& options, std::uint64_t seed, std::uint64_t stream_id);

// One epoch over the data (the benchmark's unit): updates `p` in place with Adam state `m`, `v`
// (each d x D, zero initially) and `t` (Adam steps so far). Returns the mean loss.
double qat_epoch(const QatData& data, const QatOptions& options, std::vector<float>& p,
                 std::size_t dim, std::vector<double>& m, std::vector<double>& v, long& t,
                 std::uint64_t seed, std::uint64_t stream_id, int epoch);

// Standard deviation of the per-query score noise of `a`'s detection chain in weight units
// (the MvmKernel's units): a bank of `rows` random weights in [-range, range] scores `queries`
// random inputs twice with independent noise streams; sigma = std(s1 - s2) / sqrt(2). The
// static impairments (drift, DAC errors, crosstalk) cancel in the difference.
double measure_score_noise(const AcceleratorSpec& a, std::uint64_t seed, int rows = 256,
                           int queries = 64);

// The "qat" projection fitter: PCA initialisation, then train_qat with `options` on the head's
// first qat_training_steps(steps, train_fraction) decode steps at the block layout `blocks`;
// the remaining steps are the held-out part (kv::EvalOptions::first_step).
kv::ProjectionFitter qat_projection(const QatOptions& options, double train_fraction = 0.5,
                                    const kv::BlockOptions& blocks = {});
// The decode steps QAT trains on: floor(train_fraction x steps), at least 1.
std::size_t qat_training_steps(std::size_t steps, double train_fraction = 0.5);

// Registers qat_projection(options, train_fraction) as "qat" in the kv_projection family (at
// the default block layout, kv::BlockOptions{}).
void register_qat_projection(kv::ProjectionFamily& family, const QatOptions& options,
                             double train_fraction = 0.5);

}  // namespace lightsim::prism
