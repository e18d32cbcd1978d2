// Blocks of a KV head's context and their summaries.
//
// The context [0, T) is cut into blocks of B tokens (the last may be shorter). Sink tokens
// [0, sink_tokens) and the recent window [T - recent_tokens, T) are always resident (read every
// step). A block is a *candidate* for selection when it holds at least one non-resident token;
// selecting it fetches exactly its non-resident tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lightsim/kv/cache.h"

namespace lightsim::kv {

struct BlockOptions {
  std::size_t block_tokens = 128;   // B
  std::size_t sink_tokens = 4;      // StreamingLLM keeps 4 sink tokens
  std::size_t recent_tokens = 512;  // recent window always read
};

class BlockLayout {
 public:
  BlockLayout(std::size_t tokens, const BlockOptions& options);

  std::size_t tokens() const { return tokens_; }
  std::size_t block_tokens() const { return block_; }
  std::size_t blocks() const { return blocks_; }
  std::size_t begin(std::size_t b) const { return b * block_; }
  std::size_t end(std::size_t b) const { return std::min(tokens_, (b + 1) * block_); }
  bool resident(std::size_t t) const { return t < sink_end_ || t >= recent_begin_; }
  std::size_t resident_tokens() const { return sink_end_ + (tokens_ - recent_begin_); }
  std::size_t sink_end() const { return sink_end_; }          // sink = [0, sink_end)
  std::size_t recent_begin() const { return recent_begin_; }  // recent = [recent_begin, T)
  // Non-resident tokens of block b (what selecting it fetches).
  std::size_t fetch_tokens(std::size_t b) const;
  // Blocks with at least one non-resident token, ascending.
  const std::vector<std::size_t>& candidates() const { return candidates_; }
  bool is_candidate(std::size_t b) const { return fetch_tokens(b) > 0; }

 private:
  std::size_t tokens_, block_, blocks_, sink_end_, recent_begin_;
  std::vector<std::size_t> candidates_;
};

// Per-block summaries of one head's keys; every output is row-major [blocks, head_dim] (or
// [blocks, reps, head_dim]). Summaries cover every token of the block, resident or not.
std::vector<float> block_mean_keys(const HeadView& head, const BlockLayout& layout);
void block_min_max_keys(const HeadView& head, const BlockLayout& layout, std::vector<float>& lo,
                        std::vector<float>& hi);
// `reps` representative keys per block (InfLLM-style): the block's keys with the largest
// distance from the head's mean key (the most distinctive ones), in token order; a block with
// fewer tokens repeats its last pick.
std::vector<float> block_representative_keys(const HeadView& head, const BlockLayout& layout,
                                             std::size_t reps);

// Quest's bound: sum_d max(q_d lo_d, q_d hi_d) >= q . k for every k inside [lo, hi].
inline float quest_bound(const float* q, const float* lo, const float* hi, std::size_t dim) {
  float s = 0;
  for (std::size_t d = 0; d < dim; ++d) s += std::max(q[d] * lo[d], q[d] * hi[d]);
  return s;
}

// Bytes of a scan of block summaries: blocks x summaries per block (min+max = 2, mean = 1) x
// dims x bytes per element.
inline double summary_bytes(std::int64_t blocks, int summaries, std::int64_t dims,
                            double bytes_per_element) {
  return static_cast<double>(blocks) * summaries * static_cast<double>(dims) * bytes_per_element;
}

}  // namespace lightsim::kv
