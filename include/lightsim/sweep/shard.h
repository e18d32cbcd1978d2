// One shard of a sweep, for job arrays (docs/sweeps.md, "Job arrays"): shard I of N owns the
// points whose index is I mod N (round-robin, so every shard gets a share of each grid axis
// and of the expensive corner), runs them into a store of its own,
// <out>/<name>.shard-I-of-N.jsonl, and `lightsim sweep merge` joins the N complete shard stores
// into the store a single run writes, byte for byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lightsim::sweep {

struct Shard {
  std::size_t index = 0;  // I, in [0, count)
  std::size_t count = 1;  // N >= 1; 1 = the whole sweep

  bool whole() const { return count == 1; }
  bool owns(std::size_t point) const { return point % count == index; }
  // "I/N", as --shard takes it and the store header records it.
  std::string text() const;
  // The store's file name: "<name>.jsonl" for the whole sweep, "<name>.shard-I-of-N.jsonl".
  std::string store_file(const std::string& name) const;
};

// Parses "I/N" (0 <= I < N, N <= 100000). Throws UsageError naming `what` (e.g. "--shard") and
// the expected form, e.g. for "3/3", "1-of-4", "-1/2".
Shard parse_shard(std::string_view text, std::string_view what);

}  // namespace lightsim::sweep
