// The Prism kv scorer (scorer.h).
#include "lightsim/prism/scorer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>

#include "lightsim/core/error.h"
#include "lightsim/core/rng.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/projection.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/prism/drift_time.h"
#include "lightsim/prism/programming.h"
#include "lightsim/prism/readout.h"
#include "lightsim/prism/voting.h"

namespace lightsim::prism {
namespace {

class PrismScorer final : public kv::Scorer {
 public:
  PrismScorer(std::shared_ptr<const AcceleratorSpec> accelerator,
              const kv::ProjectionSource& projection)
      : source_(projection), acc_(*accelerator), d_(acc_.device.grid.channels) {
    check_dim(acc_, source_.dim);
  }

  // The signature dimension must be the accelerator's wavelength channels.
  static void check_dim(const AcceleratorSpec& a, std::size_t dim) {
    const int d = a.device.grid.channels;
    if (dim != static_cast<std::size_t>(d))
      throw InputError(fmt::format(
          "scorer prism: the accelerator has d = {} wavelength channels but the signature "
          "dimension is {} (set --dim {})",
          d, dim, d));
  }

  void prepare(const kv::HeadView& head, const kv::BlockLayout& layout,
               const kv::HeadIndex& index) override {
    head_ = &head;
    projection_ = source_.for_head(head, index);
    // P stored transposed, [D, d], so P q runs as d independent accumulators (vectorized).
    pt_.resize(projection_.rows.size());
    for (std::size_t i = 0; i < projection_.dim; ++i)
      for (std::size_t j = 0; j < projection_.head_dim; ++j)
        pt_[j * projection_.dim + i] = projection_.rows[i * projection_.head_dim + j];
    const std::vector<float> means = kv::block_mean_keys(head, layout);
    const std::size_t nb = layout.blocks(), d = static_cast<std::size_t>(d_);
    signatures_.resize(nb * d);
    for (std::size_t b = 0; b < nb; ++b)
      projection_.apply(means.data() + b * head.head_dim, signatures_.data() + b * d);
    bank_ = map_signatures(signatures_, d_, acc_.device.requirements.weight_range,
                           acc_.programming.weight_bits, acc_.programming.weight_levels);
    readout_.emplace(acc_, bank_);
    seed_ = index.seed;
    head_id_ = (static_cast<std::uint64_t>(index.layer) << 32) | index.kv_head;
    kernel_.emplace(acc_.device, kernel_impairments(acc_), bank_.weights, seed_, head_id_);
    q_.resize(head.head_dim);
    pq_.resize(d);
    exact_.resize(nb);
    if (acc_.selection.votes > 1) {
      voter_.emplace(nb, layout.candidates(), static_cast<std::size_t>(acc_.selection.top_k));
      vote_.resize(nb);
    }
  }

  // A single evaluation is vote 0; with selection.votes = M > 1, M votes with noise streams
  // (seed, {PRSM, head, step}) for vote 0 and (seed, {PRSM, head, step, v}) for vote v, ranked
  // by the VoteCounter (out = rank scores, voting.h).
  void score(std::size_t step, std::span<float> out) const override {
    if (!voter_) {
      evaluate(step, 0, out);
      return;
    }
    voter_->reset();
    for (int v = 0; v < acc_.selection.votes; ++v) {
      evaluate(step, static_cast<std::uint64_t>(v), vote_);
      voter_->add(vote_);
    }
    voter_->rank_scores(out);
  }

  // One noisy evaluation of decode step `step`, vote `vote`: raw optical scores (offset
  // removed, optional exact re-rank).
  void evaluate(std::size_t step, std::uint64_t vote, std::span<float> out) const {
    const std::size_t dh = head_->head_dim, d = pq_.size();
    float* __restrict q = q_.data();
    std::fill(q, q + dh, 0.0f);
    for (std::size_t g = 0; g < head_->group; ++g) {
      const float* __restrict qg = head_->query(g, step);
      for (std::size_t j = 0; j < dh; ++j) q[j] += qg[j];
    }
    // P q through restrict pointers: the accumulators stay in registers instead of a store
    // and reload of pq_ per key dimension (the member vectors could alias).
    float* __restrict pq = pq_.data();
    const float* __restrict pt = pt_.data();
    std::fill(pq, pq + d, 0.0f);
    for (std::size_t j = 0; j < dh; ++j)
      for (std::size_t i = 0; i < d; ++i) pq[i] += pt[j * d + i] * q[j];
    RandomStream noise = vote == 0
                             ? RandomStream(seed_, {0x5052534dull /* "PRSM" */, head_id_, step})
                             : RandomStream(seed_, {0x5052534dull, head_id_, step, vote});
    readout_->read(*kernel_, pq_, noise, out);
    if (acc_.selection.rerank_k > 0) rerank(out);
  }

  double metadata_bytes() const override {
    return prism_metadata_bytes(acc_, bank_.row_sum.size());
  }

 private:
  // Top k' by optical score re-scored exactly (P q) . signature, placed above all others.
  void rerank(std::span<float> out) const {
    const std::size_t n = out.size();
    const std::size_t kp = std::min<std::size_t>(acc_.selection.rerank_k, n);
    order_.resize(n);
    for (std::size_t i = 0; i < n; ++i) order_[i] = i;
    std::partial_sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(kp),
                      order_.end(), [&](std::size_t a, std::size_t b) {
                        return out[a] > out[b] || (out[a] == out[b] && a < b);
                      });
    float top = -std::numeric_limits<float>::infinity();
    for (std::size_t i = kp; i < n; ++i) top = std::max(top, out[order_[i]]);
    float lo = std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < kp; ++i) {
      const std::size_t b = order_[i];
      float s = 0.0f;
      for (int j = 0; j < d_; ++j) s += pq_[static_cast<std::size_t>(j)] * signatures_[b * d_ + j];
      exact_[b] = s;
      lo = std::min(lo, s);
    }
    const float base = std::isfinite(top) ? top + 1.0f : 0.0f;
    for (std::size_t i = 0; i < kp; ++i) out[order_[i]] = exact_[order_[i]] - lo + base;
  }

  kv::ProjectionSource source_;
  AcceleratorSpec acc_;
  int d_ = 0;
  const kv::HeadView* head_ = nullptr;
  kv::ProjectionMatrix projection_;
  std::vector<float> pt_;          // P transposed, [D, d]
  std::vector<float> signatures_;  // [blocks, d]
  BankWeights bank_;
  std::uint64_t seed_ = 0, head_id_ = 0;
  // Per-query scratch and the kernel's scratch: score() is logically const (one scorer per
  // head, never shared between threads).
  mutable std::optional<photonics::MvmKernel> kernel_;
  mutable std::vector<float> q_, pq_, exact_;
  mutable std::optional<QueryReadout> readout_;  // encoding, kernel pass(es), offset
  mutable std::vector<std::size_t> order_;
  mutable std::optional<VoteCounter> voter_;  // when selection.votes > 1
  mutable std::vector<float> vote_;           // one vote's scores
};

}  // namespace

double prism_metadata_bytes(const AcceleratorSpec& a, std::size_t blocks) {
  return static_cast<double>(std::min<std::size_t>(a.selection.rerank_k, blocks)) *
         a.device.grid.channels * a.selection.signature_bytes;
}

std::unique_ptr<kv::Scorer> make_prism_scorer(const AcceleratorSpec& accelerator,
                                              const kv::ProjectionSource& projection) {
  return std::make_unique<PrismScorer>(std::make_shared<const AcceleratorSpec>(accelerator),
                                       projection);
}

kv::ScorerMaker prism_scorer(const AcceleratorSpec& accelerator, kv::ProjectionSource projection) {
  PrismScorer::check_dim(accelerator, projection.dim);
  return [a = std::make_shared<const AcceleratorSpec>(accelerator), p = std::move(projection)] {
    return std::make_unique<PrismScorer>(a, p);
  };
}

namespace {

kv::ScorerSetup bind_prism(const PrismScorerSpec& spec, const kv::ScorerEnvironment& env) {
  LIGHTSIM_CHECK(env.projections != nullptr, "prism scorer needs the projection family");
  const AcceleratorSpec a = load_accelerator(spec.accelerator, env.load);
  const auto dim = spec.dim > 0 ? static_cast<std::size_t>(spec.dim)
                                : static_cast<std::size_t>(a.device.grid.channels);
  return kv::ScorerSetup{
      kv::projected_label("prism", spec.projection, dim),
      prism_scorer(
          a, kv::projection_source(spec.projection, dim, spec.projection_file, *env.projections))};
}

// The signature dimension (given, or the accelerator's channels) projects the key: at most the
// cache's head_dim.
void check_prism(const PrismScorerSpec& spec, const kv::ScorerEnvironment& env,
                 const kv::OptionSources& at, const kv::SummaryGeometry& g) {
  if (spec.dim > 0) {
    kv::require_cache_range(
        at("dim"), spec.dim, 1, static_cast<std::int64_t>(g.head_dim),
        fmt::format("a signature projects the key: at most head_dim = {}", g.head_dim));
    return;
  }
  const AcceleratorSpec a = load_accelerator(spec.accelerator, env.load);
  kv::require_cache_range(
      fmt::format("{} (the accelerator's wavelength channels)", at("dim")), a.device.grid.channels,
      1, static_cast<std::int64_t>(g.head_dim),
      fmt::format("a signature projects the key: at most head_dim = {}", g.head_dim));
}

}  // namespace

void register_scorer(kv::ScorerFamily& family) {
  family.add(
      "prism",
      "Prism photonic bank: (P q) . (P mean key) through rings, TIA and ADC "
      "(needs --accelerator)",
      kv::with_cache_check<PrismScorerSpec>(
          kv::scorer_factory<PrismScorerSpec>(
              bind_prism,
              [](const PrismScorerSpec& spec, const kv::ScorerEnvironment& env,
                 const kv::SummaryGeometry& g, double budget) {
                // No knob: d is the accelerator's channels and rerank_k its digital interface.
                const AcceleratorSpec a = load_accelerator(spec.accelerator, env.load);
                kv::BudgetChoice<PrismScorerSpec> c;
                c.bytes_per_block = kv::per_block(prism_metadata_bytes(a, g.blocks), g);
                if (c.bytes_per_block <= budget)
                  c.setting = spec;
                else
                  c.reason = fmt::format(
                      "its re-rank reads {:.6g} B per block (selection.rerank_k = {}; no knob)",
                      c.bytes_per_block, a.selection.rerank_k);
                return c;
              }),
          "prism", check_prism));
}

void PrismScorerSpec::describe(config::Schema<PrismScorerSpec>& s) {
  s.help(
      "Options of the `prism` scorer: the Prism photonic bank scores (P q) . (P mean key) "
      "through its rings, TIA and ADC (src/prism/scorer.cpp).");
  s.field("projection", &PrismScorerSpec::projection,
          "the projection P (`lightsim list`, family kv_projection)");
  s.field("dim", &PrismScorerSpec::dim,
          "signature dimension d; must equal the accelerator's channels (0 = its channels)")
      .range(0, 1 << 16);
  s.field("projection_file", &PrismScorerSpec::projection_file,
          "learned projections .npy [layers, kv_heads, d, head_dim] (projection learned)");
  s.field("accelerator", &PrismScorerSpec::accelerator,
          "the accelerator: a configs/accelerators/ name or a YAML file (CLI: --accelerator)")
      .required();
}

}  // namespace lightsim::prism
