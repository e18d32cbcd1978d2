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
#include <vector>

#include "lightsim/kv/scorer.h"
#include "lightsim/prism/accelerator.h"

namespace lightsim::prism {

// Builds a Prism scorer; options.accelerator must hold a const AcceleratorSpec, and
// options.dim must equal its channels (d).
std::unique_ptr<kv::Scorer> make_prism_scorer(const kv::ScorerOptions& options);

// Adds "prism" to the kv scorer family.
void register_scorer(kv::ScorerFamily& family);

// Options carrying `accelerator` for the prism scorer.
void attach_accelerator(kv::ScorerOptions& options, const AcceleratorSpec& accelerator);

}  // namespace lightsim::prism
