// Joining the shard stores of one sweep (docs/sweeps.md, "Job arrays").
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

namespace lightsim::sweep {

struct MergeSummary {
  std::filesystem::path out;
  std::size_t points = 0;
  std::size_t shards = 0;
};

// Writes the store of the whole sweep from the complete stores of its shards 0..N-1, each given
// once (in any order): the header without "shard", then every record in index order, so the file
// is byte-identical to a single run's. `out` empty = <folder of the first store>/<name>.jsonl.
// Refused (InputError, nothing written) when a file is not a shard store, the headers differ
// in anything but the shard (another sweep, seed or --set: the key is named), a shard is
// missing, given twice or incomplete (its missing points counted, with the command that
// completes it), a store ends in a torn line, a record is outside its shard, or `out` exists.
MergeSummary merge_shards(const std::vector<std::filesystem::path>& stores,
                          std::filesystem::path out);

}  // namespace lightsim::sweep
