// Sweep shards for job arrays (include/lightsim/sweep/shard.h).
#include "lightsim/sweep/shard.h"

#include <charconv>

#include "lightsim/core/error.h"

namespace lightsim::sweep {
namespace {

constexpr std::size_t kMaxShards = 100000;

bool parse_count(std::string_view s, std::size_t& out) {
  if (s.empty() || s.size() > 9) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

std::string Shard::text() const {
  return fmt::format("{}/{}", index, count);
}

std::string Shard::store_file(const std::string& name) const {
  if (whole()) return name + ".jsonl";
  return fmt::format("{}.shard-{}-of-{}.jsonl", name, index, count);
}

Shard parse_shard(std::string_view text, std::string_view what) {
  const auto slash = text.find('/');
  Shard s;
  const bool ok = slash != std::string_view::npos && parse_count(text.substr(0, slash), s.index) &&
                  parse_count(text.substr(slash + 1), s.count) && s.count >= 1 &&
                  s.count <= kMaxShards && s.index < s.count;
  LIGHTSIM_CHECK_AS(UsageError, ok,
                    "{} '{}': expected I/N with whole numbers 0 <= I < N <= {} (shard I of N, "
                    "e.g. --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT with "
                    "--array=0-{{N-1}})",
                    what, text, kMaxShards);
  return s;
}

}  // namespace lightsim::sweep
