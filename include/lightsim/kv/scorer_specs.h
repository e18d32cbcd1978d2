// The options of each kv scorer (scorer.h), one spec kind per implementation, and the typed
// makers that bind them. A config selects a scorer by name (`lightsim kv select --scorer
// NAME`, a YAML file of kind scorer_<name>) and `lightsim config explain scorer_<name>` lists
// its fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/kv/scorer.h"

namespace lightsim::kv {

// exact: the oracle reads every key.
struct ExactScorerSpec {
  static constexpr std::string_view kind = "scorer_exact";
  double summary_bytes = 2;  // bytes per key element read (bf16)
  static void describe(config::Schema<ExactScorerSpec>& s);
};

struct MeanKeyScorerSpec {
  static constexpr std::string_view kind = "scorer_mean_key";
  double summary_bytes = 2;  // bytes per stored mean-key element
  static void describe(config::Schema<MeanKeyScorerSpec>& s);
};

struct QuestScorerSpec {
  static constexpr std::string_view kind = "scorer_quest";
  double summary_bytes = 2;  // bytes per stored min/max element
  static void describe(config::Schema<QuestScorerSpec>& s);
};

struct RepKeysScorerSpec {
  static constexpr std::string_view kind = "scorer_rep_keys";
  std::int64_t reps = 4;     // representative keys per block
  double summary_bytes = 2;  // bytes per stored key element
  static void describe(config::Schema<RepKeysScorerSpec>& s);
};

struct SignatureScorerSpec {
  static constexpr std::string_view kind = "scorer_signature";
  std::string projection = "pca";  // "kv_projection" family name
  std::int64_t dim = 32;           // signature dimension d
  std::string projection_file;     // .npy [layers, kv_heads, d, D] for "learned"; "" = none
  double summary_bytes = 2;        // bytes per stored signature element
  static void describe(config::Schema<SignatureScorerSpec>& s);
};

// FAISS IndexIVFPQ over the head's token keys, inner product.
struct FaissIvfPqScorerSpec {
  static constexpr std::string_view kind = "scorer_faiss_ivfpq";
  std::int64_t nlist = 0;       // inverted lists; 0 = about 4 sqrt(tokens), at most tokens / 39
  std::int64_t pq_m = 16;       // PQ sub-quantizers (must divide head_dim)
  std::int64_t pq_nbits = 8;    // bits per sub-quantizer code
  std::int64_t nprobe = 16;     // lists scanned per query
  std::int64_t retrieve = 256;  // tokens retrieved per query head
  static void describe(config::Schema<FaissIvfPqScorerSpec>& s);
};

// The traffic ledger's metadata bytes per KV head per decode step of each scorer (the scorers'
// metadata_bytes() and their size rules for equal-bytes comparisons both use these; formulas
// in docs/metrics.md). blocks = all blocks of the layout.
double exact_metadata_bytes(const ExactScorerSpec& spec, const SummaryGeometry& g);
double mean_key_metadata_bytes(const MeanKeyScorerSpec& spec, const SummaryGeometry& g);
double quest_metadata_bytes(const QuestScorerSpec& spec, const SummaryGeometry& g);
double rep_keys_metadata_bytes(std::size_t reps, double summary_bytes, const SummaryGeometry& g);
double signature_metadata_bytes(std::size_t dim, double summary_bytes, const SummaryGeometry& g);
// FAISS IVF-PQ: the fp32 coarse centroids plus the PQ codes of the probed lists (expected
// share nprobe / nlist of the tokens); code_size bytes per token.
double ivfpq_metadata_bytes(std::size_t nlist, std::size_t nprobe, std::size_t code_size,
                            const SummaryGeometry& g);
// The inverted lists used for `tokens` (spec.nlist, or 0 = about 4 sqrt(tokens), at most
// tokens / 39, at least 1).
std::size_t ivfpq_nlist(const FaissIvfPqScorerSpec& spec, std::size_t tokens);

ScorerMaker exact_scorer(const ExactScorerSpec& spec);
ScorerMaker mean_key_scorer(const MeanKeyScorerSpec& spec);
ScorerMaker quest_scorer(const QuestScorerSpec& spec);
ScorerMaker rep_keys_scorer(const RepKeysScorerSpec& spec);
// (P q) . (P mean key) with P from `projection`; summary_bytes per stored signature element.
ScorerMaker signature_scorer(ProjectionSource projection, double summary_bytes = 2);
ScorerMaker faiss_ivfpq_scorer(const FaissIvfPqScorerSpec& spec);

// The size rule of faiss_ivfpq (ScorerFactory::fit): the largest pq_m dividing head_dim whose
// metadata fits the budget (nlist, nprobe and pq_nbits kept).
BudgetChoice<FaissIvfPqScorerSpec> fit_faiss_ivfpq(const FaissIvfPqScorerSpec& spec,
                                                   const SummaryGeometry& g, double budget);

// The options' ranges that depend on the cache (ScorerFactory::check), at one head's geometry:
// faiss_ivfpq's pq_m divides head_dim, nlist in [0, tokens] (0 = automatic), 2^pq_nbits <=
// tokens, and a given nprobe in [1, nlist] and retrieve in [1, tokens] (defaults are clipped);
// signature's dim in [1, head_dim]. UsageError naming the option where it was set.
void check_faiss_ivfpq(const FaissIvfPqScorerSpec& spec, const OptionSources& at,
                       const SummaryGeometry& g);
void check_signature(const SignatureScorerSpec& spec, const OptionSources& at,
                     const SummaryGeometry& g);
// The message when pq_m does not divide head_dim ("WHERE: 3 does not divide this cache's
// head_dim 128 (...; allowed: 1, 2, 4, ...)"), for the scorer's check and the studies' spec
// rules; nullopt when it does.
std::optional<std::string> pq_m_not_dividing(std::string_view where, std::int64_t pq_m,
                                             std::size_t head_dim);
// The divisors of n in increasing order (the pq_m a head_dim of n allows).
std::vector<std::int64_t> divisors(std::size_t n);

// Registers the scorer spec kinds (for config check, explain and the reference doc).
void register_scorer_specs(Registry& registry);

}  // namespace lightsim::kv
