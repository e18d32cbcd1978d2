// Exact chunked prefill through a pipeline (docs/prefill.md, "Pipeline").
//
// A wave of b sequences (S tokens each) is cut into MB micro-batches of equal token count,
// consecutive in the sequences' order. Under a causal mask a token at position p attends to
// p + 1 keys, so a micro-batch's attention cost depends on where its tokens sit: a range
// [a, e) of one sequence costs (e^2 - a^2) / 2 (in S^2 units), later chunks of a sequence cost
// more. chunk_attention_factors gives each micro-batch's cost over the average (they sum to
// MB); pipeline_makespan runs unequal micro-batches through the stages in order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace lightsim::prefill {

// Attention cost of each of `microbatches` micro-batches of a wave of `sequences` sequences,
// over the average micro-batch. All 1 when every micro-batch holds whole sequences.
std::vector<double> chunk_attention_factors(double sequences, std::int64_t microbatches);

struct PipelineTimes {
  double latency = 0;     // completion of the last micro-batch
  double first_wave = 0;  // completion of micro-batch `wave - 1` (the first wave's requests)
};

// Permutation flow shop in order (GPipe's forward schedule; Huang et al. 2019): micro-batch
// j of `count` takes stage[s] + (factor[j mod wave] - 1) attention[s] on stage s and `send`
// between stages. C(s, j) = max(C(s-1, j) + send, C(s, j-1)) + t(s, j). With all factors 1 it
// equals sum_s stage[s] + (PP - 1) send + (count - 1) max_s stage[s].
PipelineTimes pipeline_makespan(std::span<const double> stage, std::span<const double> attention,
                                std::span<const double> factor, std::int64_t count, double send);

}  // namespace lightsim::prefill
