// What a sweep runs at each point (docs/sweeps.md, "Targets"): a registered operation
// (include/lightsim/ops/operation.h), adapted as the CLI and Python adapt it, so a point's
// stored result is the JSON that `lightsim <command> --json` prints for the same request and
// --set assignments.
//
// A point's key is a field of the operation's request when the request schema has it (e.g.
// `fabric`, `gpus`, `plan` of prefill_run), else a key path of a config the operation reads,
// passed as `--set key.path=value` after the command line's own --set.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/context.h"
#include "lightsim/core/json_fwd.h"
#include "lightsim/core/registry.h"
#include "lightsim/sweep/spec.h"

namespace lightsim::sweep {

class Target {
 public:
  virtual ~Target() = default;
  // Text identifying everything a point's result depends on besides the point's values (the
  // operation, its shared request, --set, and the configs it read when checked); hashed into
  // the store header. Complete once every point has been checked.
  virtual std::string fingerprint() const = 0;
  // Validates the point's request and every config it reads (named file, key, range) without
  // computing anything; called for every point before the first runs. `memory_budget` is the
  // run's (--memory-budget, Context::memory_budget), which the point's estimates are held to.
  virtual void check(const Point& point, std::uint64_t memory_budget) const = 0;
  // Runs one point. Called concurrently from pool threads: must not touch shared state.
  virtual Json run(const Point& point, Context& ctx) const = 0;
};

// The operation the spec names, adapted. `spec_file` locates relative paths among the request
// values (tried relative to the sweep file first); `load` holds the preset roots and the
// command line's --set assignments. A point runs with the seed of the Context it is given
// (the sweep's: --seed, or the operation's Info::default_seed, as on the CLI).
std::unique_ptr<Target> make_target(const SweepSpec& spec, const std::filesystem::path& spec_file,
                                    const Registry& registry, const config::LoadOptions& load);

}  // namespace lightsim::sweep
