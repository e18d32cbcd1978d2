// The FAISS IVF-PQ baseline scorer ("faiss_ivfpq"; options in ScorerOptions, scorer.h).
#pragma once

#include "lightsim/kv/scorer.h"

namespace lightsim::kv {

void register_faiss_scorer(ScorerFamily& family);

}  // namespace lightsim::kv
