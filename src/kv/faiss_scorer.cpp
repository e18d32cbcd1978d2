// The FAISS IVF-PQ baseline scorer (scorer.h): an IvfPqIndex (ivfpq.h) over one head's token
// keys, inner product.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "lightsim/core/error.h"
#include "lightsim/kv/ivfpq.h"
#include "lightsim/kv/scorer_specs.h"

namespace lightsim::kv {
namespace {

class FaissIvfPqScorer final : public Scorer {
 public:
  explicit FaissIvfPqScorer(const FaissIvfPqScorerSpec& spec) : spec_(spec) {}

  void prepare(const HeadView& head, const BlockLayout& layout, const HeadIndex& index) override {
    head_ = &head;
    layout_ = &layout;
    geometry_ = {head.tokens, head.head_dim, layout.blocks(), layout.block_tokens()};
    nlist_ = ivfpq_nlist(spec_, head.tokens);
    LIGHTSIM_CHECK_AS(InputError, nlist_ <= head.tokens,
                      "faiss_ivfpq: nlist = {} exceeds the {} tokens", nlist_, head.tokens);
    // FAISS warns below 39 training points per centroid; 8 per PQ centroid is enough for the
    // sub-quantizers here (the coarse quantizer keeps the default).
    index_.emplace(
        head.keys, head.tokens, head.head_dim,
        IvfPqParams{.nlist = nlist_,
                    .pq_m = static_cast<std::size_t>(spec_.pq_m),
                    .pq_nbits = static_cast<std::size_t>(spec_.pq_nbits),
                    .seed = static_cast<int>(
                        (index.seed * 1315423911u + index.layer * 97 + index.kv_head) & 0x7fffffff),
                    .coarse_min_points = 39,
                    .pq_min_points = 8,
                    .cancel = index.cancel,
                    .progress = index.progress});
    nprobe_ = std::min(static_cast<std::size_t>(spec_.nprobe), nlist_);
    retrieve_ = std::min(static_cast<std::size_t>(spec_.retrieve), head.tokens);
    distances_.resize(retrieve_);
    labels_.resize(retrieve_);
  }

  void score(std::size_t step, std::span<float> out) const override {
    std::fill(out.begin(), out.end(), 0.0f);
    const double inv_sqrt_d = 1.0 / std::sqrt(static_cast<double>(head_->head_dim));
    for (std::size_t g = 0; g < head_->group; ++g) {
      index_->search(head_->query(g, step), retrieve_, nprobe_, distances_.data(), labels_.data());
      const float best = distances_[0];
      for (std::size_t i = 0; i < retrieve_; ++i) {
        if (labels_[i] < 0) continue;
        const auto t = static_cast<std::size_t>(labels_[i]);
        out[t / layout_->block_tokens()] +=
            static_cast<float>(std::exp((distances_[i] - best) * inv_sqrt_d));
      }
    }
  }

  // ids of the results are not counted.
  double metadata_bytes() const override {
    return ivfpq_metadata_bytes(nlist_, nprobe_, index_->code_size(), geometry_);
  }

 private:
  FaissIvfPqScorerSpec spec_;
  const HeadView* head_ = nullptr;
  const BlockLayout* layout_ = nullptr;
  SummaryGeometry geometry_;
  std::size_t nlist_ = 0, nprobe_ = 0, retrieve_ = 0;
  std::optional<IvfPqIndex> index_;
  mutable std::vector<float> distances_;
  mutable std::vector<std::int64_t> labels_;
};

}  // namespace

std::size_t ivfpq_nlist(const FaissIvfPqScorerSpec& spec, std::size_t tokens) {
  if (spec.nlist) return static_cast<std::size_t>(spec.nlist);
  return std::max<std::size_t>(
      1,
      std::min(tokens / 39, static_cast<std::size_t>(4 * std::sqrt(static_cast<double>(tokens)))));
}

double ivfpq_metadata_bytes(std::size_t nlist, std::size_t nprobe, std::size_t code_size,
                            const SummaryGeometry& g) {
  const double code_bytes = static_cast<double>(code_size);
  return static_cast<double>(nlist * g.head_dim) * 4.0 +
         static_cast<double>(g.tokens) * code_bytes * static_cast<double>(nprobe) /
             static_cast<double>(nlist);
}

BudgetChoice<FaissIvfPqScorerSpec> fit_faiss_ivfpq(const FaissIvfPqScorerSpec& spec,
                                                   const SummaryGeometry& g, double budget) {
  const std::size_t nlist = ivfpq_nlist(spec, g.tokens);
  const std::size_t nprobe = std::min(static_cast<std::size_t>(spec.nprobe), nlist);
  // FAISS's ProductQuantizer code: ceil(pq_m pq_nbits / 8) bytes per token.
  const auto bytes = [&](std::size_t m) {
    const std::size_t code = (m * static_cast<std::size_t>(spec.pq_nbits) + 7) / 8;
    return per_block(ivfpq_metadata_bytes(nlist, nprobe, code, g), g);
  };
  BudgetChoice<FaissIvfPqScorerSpec> c;
  for (std::size_t m = g.head_dim; m >= 1; --m) {
    if (g.head_dim % m != 0 || bytes(m) > budget) continue;
    c.setting = spec;
    c.setting->pq_m = static_cast<std::int64_t>(m);
    c.knob = fmt::format("pq_m={}", m);
    c.bytes_per_block = bytes(m);
    return c;
  }
  c.bytes_per_block = bytes(1);
  c.reason = fmt::format(
      "pq_m = 1 takes {:.6g} B per block ({:.6g} of them the {} fp32 coarse centroids)",
      c.bytes_per_block, per_block(ivfpq_metadata_bytes(nlist, nprobe, 0, g), g), nlist);
  return c;
}

std::vector<std::int64_t> divisors(std::size_t n) {
  std::vector<std::int64_t> out;
  for (std::size_t m = 1; m <= n; ++m)
    if (n % m == 0) out.push_back(static_cast<std::int64_t>(m));
  return out;
}

std::optional<std::string> pq_m_not_dividing(std::string_view where, std::int64_t pq_m,
                                             std::size_t head_dim) {
  if (pq_m >= 1 && head_dim % static_cast<std::size_t>(pq_m) == 0) return std::nullopt;
  return fmt::format(
      "{}: {} does not divide this cache's head_dim {} (PQ sub-quantizers split the key; "
      "allowed: {})",
      where, pq_m, head_dim, fmt::join(divisors(head_dim), ", "));
}

void check_faiss_ivfpq(const FaissIvfPqScorerSpec& spec, const OptionSources& at,
                       const SummaryGeometry& g) {
  const auto tokens = static_cast<std::int64_t>(g.tokens);
  const auto head_dim = static_cast<std::size_t>(g.head_dim);
  if (auto message = pq_m_not_dividing(at("pq_m"), spec.pq_m, head_dim)) throw UsageError(*message);
  require_cache_range(at("nlist"), spec.nlist, 0, tokens,
                      fmt::format("0 = about 4 sqrt(tokens); at most the {} tokens of a KV head, "
                                  "the index's training points",
                                  tokens));
  const auto nlist = static_cast<std::int64_t>(ivfpq_nlist(spec, g.tokens));
  // nprobe and retrieve left at their defaults are clipped to what the cache has; given ones
  // must fit.
  if (at.given("nprobe"))
    require_cache_range(
        at("nprobe"), spec.nprobe, 1, nlist,
        spec.nlist > 0 ? fmt::format("nlist = {} lists", nlist)
                       : fmt::format("nlist = {} lists, about 4 sqrt({} tokens)", nlist, tokens));
  if (at.given("retrieve"))
    require_cache_range(at("retrieve"), spec.retrieve, 1, tokens,
                        fmt::format("the {} tokens of a KV head", tokens));
  std::int64_t max_bits = 0;
  while (max_bits < 62 && (std::int64_t{2} << max_bits) <= tokens) ++max_bits;
  require_cache_range(
      at("pq_nbits"), spec.pq_nbits, 1, max_bits,
      fmt::format("2^pq_nbits PQ centroids train on the {} tokens of a KV head", tokens));
}

ScorerMaker faiss_ivfpq_scorer(const FaissIvfPqScorerSpec& spec) {
  return [spec] { return std::make_unique<FaissIvfPqScorer>(spec); };
}

void FaissIvfPqScorerSpec::describe(config::Schema<FaissIvfPqScorerSpec>& s) {
  s.help(
      "Options of the `faiss_ivfpq` scorer: a FAISS IndexIVFPQ (inner product) over the head's "
      "token keys; a block scores the estimated softmax mass of its retrieved tokens.");
  s.field("nlist", &FaissIvfPqScorerSpec::nlist,
          "inverted lists (0 = about 4 sqrt(tokens), at most tokens / 39; at most the tokens)")
      .range(0, 1 << 24);
  s.field("pq_m", &FaissIvfPqScorerSpec::pq_m, "PQ sub-quantizers; must divide head_dim")
      .range(1, 4096);
  s.field("pq_nbits", &FaissIvfPqScorerSpec::pq_nbits,
          "bits per sub-quantizer code (2^pq_nbits <= tokens)")
      .range(1, 16);
  s.field("nprobe", &FaissIvfPqScorerSpec::nprobe, "lists scanned per query (at most nlist)")
      .range(1, 1 << 24);
  s.field("retrieve", &FaissIvfPqScorerSpec::retrieve,
          "tokens retrieved per query head (at most the tokens)")
      .range(1, 1 << 24);
}

}  // namespace lightsim::kv
