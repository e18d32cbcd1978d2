// The Prism scorer: a kv::Scorer that scores a KV head's blocks on the photonic bank.
//
// prepare: fit the head's d x D projection P ("kv_projection" family, as the signature
// scorer), signatures P mean_key(block), map them to weights (programming.h), program an
// MvmKernel with them and draw the bank's impairment state (accelerator.impairments; one
// Monte-Carlo state per (layer, KV head), i.e. per bank).
// score: P q for the group's summed query, intensity-encoded (encode_query), one pass of the
// kernel (balanced photocurrents, noise, TIA and ADC), the digital offset sum_j w_j / 2
// removed, then the optional exact re-rank of the top k' (selection.rerank_k): the k' blocks
// with the highest optical score get the exact signature score, shifted above every other
// block, so the top k of the output are the best k of the k' by exact score.
// Monte-Carlo voting (selection.votes = M > 1, voting.h): the query is evaluated M times on
// the same bank state, vote v with its own noise stream (vote 0 is the single evaluation), and
// the output holds rank scores of the voted order (confidence, mean score, lower index).
// Time multiplexing and fan-out do not change the values (the same rings see the same
// weights pass by pass), so the kernel holds all logical rows at once.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/registry.h"
#include "lightsim/kv/scorer.h"
#include "lightsim/prism/accelerator.h"

namespace lightsim::prism {

// Options of the "prism" kv scorer (kind scorer_prism; `lightsim config explain scorer_prism`).
struct PrismScorerSpec {
  static constexpr std::string_view kind = "scorer_prism";
  std::string projection = "pca";  // "kv_projection" family name
  std::int64_t dim = 0;            // signature dimension d; 0 = the accelerator's channels
  std::string projection_file;     // .npy [layers, kv_heads, d, D] for "learned"; "" = none
  std::string accelerator;         // configs/accelerators/ name or YAML file (required)
  static void describe(config::Schema<PrismScorerSpec>& s);
};

// A Prism scorer on `accelerator` with P from `projection`, whose d must equal the
// accelerator's channels (else InputError naming both).
std::unique_ptr<kv::Scorer> make_prism_scorer(const AcceleratorSpec& accelerator,
                                              const kv::ProjectionSource& projection);
// The same as a maker (one scorer per head, the accelerator shared).
kv::ScorerMaker prism_scorer(const AcceleratorSpec& accelerator, kv::ProjectionSource projection);

// The traffic ledger's metadata bytes per KV head per step of a Prism scorer over `blocks`
// blocks: the digital interface reads the exact signatures of the re-ranked blocks only,
// min(rerank_k, blocks) x d x signature_bytes; the optical scores need no summary traffic
// (the signatures sit in the rings).
double prism_metadata_bytes(const AcceleratorSpec& accelerator, std::size_t blocks);

// Adds "prism" to the kv scorer family (its options: PrismScorerSpec).
void register_scorer(kv::ScorerFamily& family);

}  // namespace lightsim::prism
