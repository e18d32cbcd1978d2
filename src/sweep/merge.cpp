// Joining shard stores (include/lightsim/sweep/merge.h).
#include "lightsim/sweep/merge.h"

#include <algorithm>
#include <optional>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/error.h"
#include "lightsim/sweep/store.h"

namespace lightsim::sweep {
namespace {

Json without_shard(Json header) {
  header.erase("shard");
  return header;
}

// The first key whose value differs between two headers (besides the shard).
std::string differing_key(const Json& a, const Json& b) {
  for (const auto& [key, value] : a.items())
    if (key != "shard" && (!b.contains(key) || b[key] != value)) return key;
  for (const auto& [key, value] : b.items())
    if (key != "shard" && !a.contains(key)) return key;
  return "";
}

}  // namespace

MergeSummary merge_shards(const std::vector<std::filesystem::path>& stores,
                          std::filesystem::path out) {
  LIGHTSIM_CHECK_AS(UsageError, !stores.empty(), "sweep merge: no shard store given");
  std::vector<StoreFile> files;
  files.reserve(stores.size());
  for (const auto& path : stores) files.push_back(read_store(path));

  const StoreFile& first = files.front();
  const Json header = without_shard(first.header);
  const auto points = header.at("points").get<std::size_t>();
  const std::size_t count = first.shard.count;
  std::vector<std::optional<std::size_t>> file_of_shard(count);
  for (std::size_t f = 0; f < files.size(); ++f) {
    const StoreFile& file = files[f];
    const std::string where = stores[f].string();
    LIGHTSIM_CHECK_AS(InputError, !file.shard.whole(),
                      "sweep merge: '{}' is not a shard store (its header has no \"shard\"; "
                      "it was written by a run without --shard)",
                      where);
    const std::string key = differing_key(first.header, file.header);
    LIGHTSIM_CHECK_AS(InputError, key.empty(),
                      "sweep merge: '{}' and '{}' are not shards of one sweep: their headers' "
                      "\"{}\" differ ({} vs {})",
                      stores.front().string(), where, key,
                      first.header.contains(key) ? first.header[key].dump() : "missing",
                      file.header.contains(key) ? file.header[key].dump() : "missing");
    LIGHTSIM_CHECK_AS(InputError, file.shard.count == count,
                      "sweep merge: '{}' is shard {} and '{}' shard {}: one sweep's shards have "
                      "one N",
                      stores.front().string(), first.shard.text(), where, file.shard.text());
    LIGHTSIM_CHECK_AS(
        InputError, !file_of_shard[file.shard.index],
        "sweep merge: shard {} is given twice ('{}' and '{}')", file.shard.text(),
        file_of_shard[file.shard.index] ? stores[*file_of_shard[file.shard.index]].string() : "",
        where);
    file_of_shard[file.shard.index] = f;
    LIGHTSIM_CHECK_AS(InputError, file.torn_bytes == 0,
                      "sweep merge: '{}' ends in a torn line ({} bytes, an interrupted run): "
                      "finish shard {} with --shard {} --resume first",
                      where, file.torn_bytes, file.shard.text(), file.shard.text());
  }
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < count; ++i)
    if (!file_of_shard[i]) missing.push_back(i);
  LIGHTSIM_CHECK_AS(InputError, missing.empty(),
                    "sweep merge: {} of the {} shards are missing (shard indices {}): give every "
                    "store <name>.shard-I-of-{}.jsonl",
                    missing.size(), count, fmt::join(missing, ", "), count);

  // Every point once, from its own shard, every shard complete.
  std::vector<const std::string*> line_of(points, nullptr);
  for (std::size_t f = 0; f < files.size(); ++f) {
    const StoreFile& file = files[f];
    const std::string where = stores[f].string();
    std::size_t have = 0, want = 0;
    for (const StoreFile::Record& r : file.records) {
      const std::string at = fmt::format("{}:{}", where, r.line_no);
      LIGHTSIM_CHECK_AS(InputError, r.index < points && file.shard.owns(r.index),
                        "sweep merge: {}: point {} is not one of shard {}'s (indices < {} equal "
                        "to {} mod {})",
                        at, r.index, file.shard.text(), points, file.shard.index, count);
      LIGHTSIM_CHECK_AS(InputError, line_of[r.index] == nullptr,
                        "sweep merge: {}: point {} stored twice", at, r.index);
      line_of[r.index] = &r.line;
      ++have;
    }
    for (std::size_t i = file.shard.index; i < points; i += count) ++want;
    LIGHTSIM_CHECK_AS(InputError, have == want,
                      "sweep merge: shard {} ('{}') is incomplete: {} of its {} points; finish it "
                      "with `lightsim sweep SPEC --shard {} --resume` first",
                      file.shard.text(), where, have, want, file.shard.text());
  }

  if (out.empty())
    out = stores.front().parent_path() / (header.at("name").get<std::string>() + ".jsonl");
  LIGHTSIM_CHECK_AS(InputError, !std::filesystem::exists(out),
                    "sweep merge: '{}' already exists; delete it or give another --output",
                    out.string());
  std::string text = header.dump() + "\n";
  for (const std::string* line : line_of) text += *line + "\n";
  write_file_atomic(out, text);
  return {out, points, count};
}

}  // namespace lightsim::sweep
