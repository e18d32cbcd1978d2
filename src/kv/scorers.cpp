// The registered block scorers (scorer.h) and their option specs (scorer_specs.h); the
// oracle's softmax is shared with metrics.cpp.
#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "lightsim/core/error.h"
#include "lightsim/kv/attention.h"
#include "lightsim/kv/kernels.h"
#include "lightsim/kv/scorer.h"
#include "lightsim/kv/scorer_specs.h"

namespace lightsim::kv {

std::vector<std::size_t> top_k_blocks(std::span<const float> scores, const BlockLayout& layout,
                                      std::size_t k) {
  std::vector<std::size_t> c = layout.candidates();
  k = std::min(k, c.size());
  auto better = [&](std::size_t a, std::size_t b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  };
  std::partial_sort(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(k), c.end(), better);
  c.resize(k);
  return c;
}

namespace {

float dot(const float* a, const float* b, std::size_t n) {
  float s = 0;
  for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

class BaseScorer : public Scorer {
 protected:
  void bind(const HeadView& head, const BlockLayout& layout) {
    head_ = &head;
    layout_ = &layout;
    geometry_ = {head.tokens, head.head_dim, layout.blocks(), layout.block_tokens()};
  }
  // Sum of the group's queries at `step` (for scorers linear in q).
  void summed_query(std::size_t step, std::vector<float>& q) const {
    q.assign(head_->head_dim, 0.0f);
    for (std::size_t g = 0; g < head_->group; ++g)
      for (std::size_t d = 0; d < head_->head_dim; ++d) q[d] += head_->query(g, step)[d];
  }
  const HeadView* head_ = nullptr;
  const BlockLayout* layout_ = nullptr;
  SummaryGeometry geometry_;
};

class ExactScorer final : public BaseScorer {
 public:
  explicit ExactScorer(double summary_bytes) : bytes_(summary_bytes) {}
  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex&) override {
    bind(head, layout);
  }
  void score(std::size_t step, std::span<float> out) const override {
    std::vector<double> mass = group_block_mass(*head_, *layout_, step);
    for (std::size_t b = 0; b < out.size(); ++b) out[b] = static_cast<float>(mass[b]);
  }
  double metadata_bytes() const override {
    return exact_metadata_bytes({.summary_bytes = bytes_}, geometry_);
  }

 private:
  double bytes_;
};

class MeanKeyScorer final : public BaseScorer {
 public:
  explicit MeanKeyScorer(double summary_bytes) : bytes_(summary_bytes) {}
  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex&) override {
    bind(head, layout);
    means_ = block_mean_keys(head, layout);
  }
  void score(std::size_t step, std::span<float> out) const override {
    std::vector<float> q;
    summed_query(step, q);
    for (std::size_t b = 0; b < out.size(); ++b)
      out[b] = dot(q.data(), means_.data() + b * head_->head_dim, head_->head_dim);
  }
  double metadata_bytes() const override {
    return mean_key_metadata_bytes({.summary_bytes = bytes_}, geometry_);
  }

 private:
  double bytes_;
  std::vector<float> means_;
};

class QuestScorer final : public BaseScorer {
 public:
  explicit QuestScorer(double summary_bytes) : bytes_(summary_bytes) {}
  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex&) override {
    bind(head, layout);
    block_min_max_keys(head, layout, lo_, hi_);
  }
  void score(std::size_t step, std::span<float> out) const override {
    const std::size_t dim = head_->head_dim;
    std::fill(out.begin(), out.end(), 0.0f);
    for (std::size_t g = 0; g < head_->group; ++g)
      for (std::size_t b = 0; b < out.size(); ++b)
        out[b] +=
            quest_bound(head_->query(g, step), lo_.data() + b * dim, hi_.data() + b * dim, dim);
  }
  double metadata_bytes() const override {
    return quest_metadata_bytes({.summary_bytes = bytes_}, geometry_);
  }

 private:
  double bytes_;
  std::vector<float> lo_, hi_;
};

class RepKeysScorer final : public BaseScorer {
 public:
  RepKeysScorer(std::size_t reps, double summary_bytes) : bytes_(summary_bytes), reps_(reps) {
    LIGHTSIM_CHECK_AS(InputError, reps_ >= 1, "rep_keys needs at least 1 representative key");
  }
  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex&) override {
    bind(head, layout);
    reps_data_ = block_representative_keys(head, layout, reps_);
  }
  void score(std::size_t step, std::span<float> out) const override {
    const std::size_t dim = head_->head_dim;
    std::fill(out.begin(), out.end(), 0.0f);
    for (std::size_t g = 0; g < head_->group; ++g)
      for (std::size_t b = 0; b < out.size(); ++b) {
        float best = -INFINITY;
        for (std::size_t r = 0; r < reps_; ++r)
          best = std::max(
              best, dot(head_->query(g, step), reps_data_.data() + (b * reps_ + r) * dim, dim));
        out[b] += best;
      }
  }
  double metadata_bytes() const override {
    return rep_keys_metadata_bytes(reps_, bytes_, geometry_);
  }

 private:
  double bytes_;
  std::size_t reps_;
  std::vector<float> reps_data_;
};

class SignatureScorer final : public BaseScorer {
 public:
  SignatureScorer(ProjectionSource projection, double summary_bytes)
      : source_(std::move(projection)), bytes_(summary_bytes) {}
  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex& index) override {
    bind(head, layout);
    projection_ = source_.for_head(head, index);
    const std::vector<float> means = block_mean_keys(head, layout);
    // Stored in the blocked layout [tiles, d, 64] of the vectorized kernel (kernels.h).
    const std::size_t nb = layout.blocks(), d = projection_.dim;
    std::vector<float> sig(nb * d);
    for (std::size_t b = 0; b < nb; ++b)
      projection_.apply(means.data() + b * head.head_dim, sig.data() + b * d);
    pack_signatures(sig.data(), nb, d, signatures_);
  }
  void score(std::size_t step, std::span<float> out) const override {
    LIGHTSIM_CHECK(out.size() == signatures_.blocks, "signature scorer: one score per block");
    std::vector<float> q, pq(projection_.dim);
    summed_query(step, q);
    projection_.apply(q.data(), pq.data());
    score_signatures_blocked(signatures_, pq.data(), out.data());
  }
  double metadata_bytes() const override {
    return signature_metadata_bytes(signatures_.dim, bytes_, geometry_);
  }

 private:
  ProjectionSource source_;
  double bytes_;
  ProjectionMatrix projection_;
  BlockedSignatures signatures_;
};

}  // namespace

double exact_metadata_bytes(const ExactScorerSpec& spec, const SummaryGeometry& g) {
  return summary_bytes(static_cast<std::int64_t>(g.tokens), 1,
                       static_cast<std::int64_t>(g.head_dim), spec.summary_bytes);
}
double mean_key_metadata_bytes(const MeanKeyScorerSpec& spec, const SummaryGeometry& g) {
  return summary_bytes(static_cast<std::int64_t>(g.blocks), 1,
                       static_cast<std::int64_t>(g.head_dim), spec.summary_bytes);
}
double quest_metadata_bytes(const QuestScorerSpec& spec, const SummaryGeometry& g) {
  return summary_bytes(static_cast<std::int64_t>(g.blocks), 2,
                       static_cast<std::int64_t>(g.head_dim), spec.summary_bytes);
}
double rep_keys_metadata_bytes(std::size_t reps, double bytes, const SummaryGeometry& g) {
  return summary_bytes(static_cast<std::int64_t>(g.blocks), static_cast<int>(reps),
                       static_cast<std::int64_t>(g.head_dim), bytes);
}
double signature_metadata_bytes(std::size_t dim, double bytes, const SummaryGeometry& g) {
  return summary_bytes(static_cast<std::int64_t>(g.blocks), 1, static_cast<std::int64_t>(dim),
                       bytes);
}

ProjectionMatrix ProjectionSource::for_head(const HeadView& head, const HeadIndex& index) const {
  if (index.projection != nullptr) {
    LIGHTSIM_CHECK_AS(InputError,
                      index.projection->dim == dim && index.projection->head_dim == head.head_dim,
                      "the given projection is {} x {} but the scorer needs {} x {}",
                      index.projection->dim, index.projection->head_dim, dim, head.head_dim);
    return *index.projection;
  }
  LIGHTSIM_CHECK(static_cast<bool>(fit), "this scorer takes its projection from the caller");
  RandomStream rng = projection_stream(index.seed, index.layer, index.kv_head);
  return fit(ProjectionInput{&head, dim, index.layer, index.kv_head, &rng, learned.get()});
}

ProjectionSource projection_source(std::string_view projection, std::size_t dim,
                                   const std::filesystem::path& file,
                                   const ProjectionFamily& projections) {
  ProjectionSource source;
  source.dim = dim;
  source.fit = projections.get(projection);
  if (!file.empty()) source.learned = std::make_shared<const NpyArray>(read_npy(file, 4));
  return source;
}

ProjectionSource learned_projection(std::shared_ptr<const NpyArray> array) {
  LIGHTSIM_CHECK(array != nullptr && array->shape.size() == 4,
                 "learned_projection: expected a [layers, kv_heads, d, D] array");
  ProjectionSource source;
  source.dim = array->shape[2];
  source.fit = standard_projection("learned");
  source.learned = std::move(array);
  return source;
}

OptionSources OptionSources::spec_keys(std::string prefix) {
  OptionSources s;
  s.scorer_ = std::move(prefix);
  return s;
}

bool OptionSources::given(std::string_view field) const {
  return document_ != nullptr && document_->find(field) != nullptr;
}

std::string OptionSources::operator()(std::string_view field) const {
  if (document_ == nullptr) return fmt::format("{}{}", scorer_, field);
  const config::Node* node = document_->find(field);
  if (node == nullptr) return fmt::format("{} {} (default)", scorer_, field);
  const config::Location& at = node->location();
  // A flag's or keyword's location is its own name ("scorer_options.nlist (--nlist)").
  if (at.line == 0) return at.source;
  return fmt::format("{}: {}", at.str(), field);
}

std::string out_of_cache_range(std::string_view where, std::int64_t value, std::int64_t lo,
                               std::int64_t hi, std::string_view why) {
  return fmt::format("{}: {} is out of range [{}, {}] for this cache ({})", where, value, lo, hi,
                     why);
}

void require_cache_range(std::string_view where, std::int64_t value, std::int64_t lo,
                         std::int64_t hi, std::string_view why) {
  if (value < lo || value > hi) throw UsageError(out_of_cache_range(where, value, lo, hi, why));
}

void check_signature(const SignatureScorerSpec& spec, const OptionSources& at,
                     const SummaryGeometry& g) {
  require_cache_range(
      at("dim"), spec.dim, 1, static_cast<std::int64_t>(g.head_dim),
      fmt::format("a signature projects the key: at most head_dim = {}", g.head_dim));
}

std::string projected_label(std::string_view scorer, std::string_view projection, std::size_t dim) {
  return fmt::format("{}:{}:d{}", scorer, projection, dim);
}

ScorerMaker exact_scorer(const ExactScorerSpec& spec) {
  return [b = spec.summary_bytes] { return std::make_unique<ExactScorer>(b); };
}
ScorerMaker mean_key_scorer(const MeanKeyScorerSpec& spec) {
  return [b = spec.summary_bytes] { return std::make_unique<MeanKeyScorer>(b); };
}
ScorerMaker quest_scorer(const QuestScorerSpec& spec) {
  return [b = spec.summary_bytes] { return std::make_unique<QuestScorer>(b); };
}
ScorerMaker rep_keys_scorer(const RepKeysScorerSpec& spec) {
  return [r = static_cast<std::size_t>(spec.reps), b = spec.summary_bytes] {
    return std::make_unique<RepKeysScorer>(r, b);
  };
}
ScorerMaker signature_scorer(ProjectionSource projection, double summary_bytes) {
  LIGHTSIM_CHECK_AS(InputError, projection.dim >= 1, "signature: dim must be at least 1");
  return [p = std::move(projection), summary_bytes] {
    return std::make_unique<SignatureScorer>(p, summary_bytes);
  };
}

namespace {

// A scorer without a projection: its label is its name; fit(spec, g, budget) its size rule.
template <config::Spec S, class Fit>
ScorerFactory plain(std::string name, ScorerMaker (*make)(const S&), Fit fit) {
  return scorer_factory<S>(
      [name, make](const S& spec, const ScorerEnvironment&) {
        return ScorerSetup{name, make(spec)};
      },
      [fit](const S& spec, const ScorerEnvironment&, const SummaryGeometry& g, double budget) {
        return fit(spec, g, budget);
      });
}

// A scorer without a knob: it fits when its summaries do.
template <class S>
BudgetChoice<S> fixed_size(const S& spec, double bytes_per_block, double budget,
                           std::string_view what) {
  BudgetChoice<S> c;
  c.bytes_per_block = bytes_per_block;
  if (bytes_per_block <= budget)
    c.setting = spec;
  else
    c.reason =
        fmt::format("its {} take {:.6g} B per block (no smaller setting)", what, bytes_per_block);
  return c;
}

// The largest n in [1, most] with bytes(n) <= budget (bytes increasing in n), else the choice
// with the reason.
template <class S, class Bytes, class Apply>
BudgetChoice<S> largest_fitting(const S& spec, std::size_t most, double budget,
                                std::string_view knob, Bytes bytes, Apply apply) {
  BudgetChoice<S> c;
  std::size_t lo = 1, hi = most;
  if (bytes(1) > budget) {
    c.bytes_per_block = bytes(1);
    c.reason = fmt::format("{} = 1 takes {:.6g} B per block", knob, c.bytes_per_block);
    return c;
  }
  while (lo < hi) {  // invariant: bytes(lo) <= budget
    const std::size_t mid = lo + (hi - lo + 1) / 2;
    if (bytes(mid) <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  S s = spec;
  apply(s, lo);
  c.setting = s;
  c.knob = fmt::format("{}={}", knob, lo);
  c.bytes_per_block = bytes(lo);
  return c;
}

BudgetChoice<RepKeysScorerSpec> fit_rep_keys(const RepKeysScorerSpec& spec,
                                             const SummaryGeometry& g, double budget) {
  // More representatives than a block's tokens add nothing: at most block_tokens.
  return largest_fitting(
      spec, g.block_tokens, budget, "reps",
      [&](std::size_t r) {
        return per_block(rep_keys_metadata_bytes(r, spec.summary_bytes, g), g);
      },
      [](RepKeysScorerSpec& s, std::size_t r) { s.reps = static_cast<std::int64_t>(r); });
}

BudgetChoice<SignatureScorerSpec> fit_signature(const SignatureScorerSpec& spec,
                                                const SummaryGeometry& g, double budget) {
  const auto bytes = [&](std::size_t d) {
    return per_block(signature_metadata_bytes(d, spec.summary_bytes, g), g);
  };
  if (!spec.projection_file.empty())  // the file fixes d
    return fixed_size(spec, bytes(static_cast<std::size_t>(spec.dim)), budget,
                      "signatures (d fixed by projection_file)");
  // d = head_dim is the whole key: at most head_dim.
  return largest_fitting(
      spec, g.head_dim, budget, "dim", bytes,
      [](SignatureScorerSpec& s, std::size_t d) { s.dim = static_cast<std::int64_t>(d); });
}

}  // namespace

void register_scorers(ScorerFamily& family) {
  family.add("exact", "true softmax attention mass per block (oracle)",
             plain<ExactScorerSpec>(
                 "exact", exact_scorer,
                 [](const ExactScorerSpec& spec, const SummaryGeometry& g, double budget) {
                   return fixed_size(spec, per_block(exact_metadata_bytes(spec, g), g), budget,
                                     "keys (every key is read)");
                 }));
  family.add("mean_key", "q . mean key of the block",
             plain<MeanKeyScorerSpec>(
                 "mean_key", mean_key_scorer,
                 [](const MeanKeyScorerSpec& spec, const SummaryGeometry& g, double budget) {
                   return fixed_size(spec, per_block(mean_key_metadata_bytes(spec, g), g), budget,
                                     "mean keys");
                 }));
  family.add("quest", "Quest bound over the block's key bounding box",
             plain<QuestScorerSpec>(
                 "quest", quest_scorer,
                 [](const QuestScorerSpec& spec, const SummaryGeometry& g, double budget) {
                   return fixed_size(spec, per_block(quest_metadata_bytes(spec, g), g), budget,
                                     "min and max keys");
                 }));
  family.add("rep_keys", "max q . k over representative keys (InfLLM)",
             plain<RepKeysScorerSpec>("rep_keys", rep_keys_scorer, fit_rep_keys));
  family.add(
      "signature", "(P q) . (P mean key), d-dim projection",
      with_cache_check<SignatureScorerSpec>(
          scorer_factory<SignatureScorerSpec>(
              [](const SignatureScorerSpec& spec, const ScorerEnvironment& env) {
                LIGHTSIM_CHECK(env.projections != nullptr,
                               "signature scorer needs the projection family");
                const auto dim = static_cast<std::size_t>(spec.dim);
                return ScorerSetup{
                    projected_label("signature", spec.projection, dim),
                    signature_scorer(projection_source(spec.projection, dim, spec.projection_file,
                                                       *env.projections),
                                     spec.summary_bytes)};
              },
              [](const SignatureScorerSpec& spec, const ScorerEnvironment&,
                 const SummaryGeometry& g,
                 double budget) { return fit_signature(spec, g, budget); }),
          "signature",
          [](const SignatureScorerSpec& spec, const ScorerEnvironment&, const OptionSources& at,
             const SummaryGeometry& g) { check_signature(spec, at, g); }));
  family.add(
      "faiss_ivfpq", "FAISS IVF-PQ over token keys, inner product (baseline)",
      with_cache_check<FaissIvfPqScorerSpec>(
          plain<FaissIvfPqScorerSpec>("faiss_ivfpq", faiss_ivfpq_scorer, fit_faiss_ivfpq),
          "faiss_ivfpq",
          [](const FaissIvfPqScorerSpec& spec, const ScorerEnvironment&, const OptionSources& at,
             const SummaryGeometry& g) { check_faiss_ivfpq(spec, at, g); }));
}

void ExactScorerSpec::describe(config::Schema<ExactScorerSpec>& s) {
  s.help("Options of the `exact` scorer: the true softmax attention mass per block (oracle).");
  s.field("summary_bytes", &ExactScorerSpec::summary_bytes,
          "bytes per key element read (traffic ledger; 2 = bf16)")
      .range(0.125, 8.0);
}

void MeanKeyScorerSpec::describe(config::Schema<MeanKeyScorerSpec>& s) {
  s.help("Options of the `mean_key` scorer: q . mean key of the block.");
  s.field("summary_bytes", &MeanKeyScorerSpec::summary_bytes,
          "bytes per stored mean-key element (2 = bf16)")
      .range(0.125, 8.0);
}

void QuestScorerSpec::describe(config::Schema<QuestScorerSpec>& s) {
  s.help("Options of the `quest` scorer: Quest's bound over the block's key bounding box.");
  s.field("summary_bytes", &QuestScorerSpec::summary_bytes,
          "bytes per stored min/max element (2 = bf16)")
      .range(0.125, 8.0);
}

void RepKeysScorerSpec::describe(config::Schema<RepKeysScorerSpec>& s) {
  s.help("Options of the `rep_keys` scorer: max q . k over representative keys (InfLLM).");
  s.field("reps", &RepKeysScorerSpec::reps, "representative keys per block").range(1, 1 << 16);
  s.field("summary_bytes", &RepKeysScorerSpec::summary_bytes,
          "bytes per stored key element (2 = bf16)")
      .range(0.125, 8.0);
}

void SignatureScorerSpec::describe(config::Schema<SignatureScorerSpec>& s) {
  s.help("Options of the `signature` scorer: (P q) . (P mean key) with a d x D projection P.");
  s.field("projection", &SignatureScorerSpec::projection,
          "the projection P (`lightsim list`, family kv_projection)");
  s.field("dim", &SignatureScorerSpec::dim, "signature dimension d (at most head_dim)")
      .range(1, 1 << 16);
  s.field("projection_file", &SignatureScorerSpec::projection_file,
          "learned projections .npy [layers, kv_heads, d, head_dim] (projection learned)");
  s.field("summary_bytes", &SignatureScorerSpec::summary_bytes,
          "bytes per stored signature element (2 = bf16)")
      .range(0.125, 8.0);
}

void register_scorer_specs(Registry& registry) {
  registry.add_spec<ExactScorerSpec>();
  registry.add_spec<MeanKeyScorerSpec>();
  registry.add_spec<QuestScorerSpec>();
  registry.add_spec<RepKeysScorerSpec>();
  registry.add_spec<SignatureScorerSpec>();
  registry.add_spec<FaissIvfPqScorerSpec>();
}

}  // namespace lightsim::kv
