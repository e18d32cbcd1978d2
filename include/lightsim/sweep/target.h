// What a sweep runs at each point (docs/sweeps.md, "Targets").
//
//   prism_cost    the accelerator's cost report (`lightsim prism cost CONFIG --json`);
//                 base config kind `accelerator`.
//   prefill_plan  one prefill plan evaluated, or the plan search's best (`lightsim prefill
//                 plan`), on one fabric at one GPU count; base config kind `prefill_scenario`.
//   study         a registered study at a size (`lightsim study run NAME --json`); base
//                 config kind `<name>_study`, configs/studies/<name>.yaml by default.
#pragma once

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
  // The schema the point's key paths address (the base config's kind).
  virtual const config::SchemaInfo& schema() const = 0;
  // Text identifying everything a point's result depends on besides the point's values (the
  // base config as read, --set assignments, target options); hashed into the store header.
  virtual std::string fingerprint() const = 0;
  // Reads the point's config, throwing its InputError (named file, key, range) without
  // running anything; called for every point before the first runs. May do nothing.
  virtual void check(const Point& point) const = 0;
  // Runs one point. Called concurrently from pool threads: must not touch shared state.
  virtual Json run(const Point& point, Context& ctx) const = 0;
  // Keys a point may set that are the target's own options, not key paths of the base config
  // (prefill_plan: fabric, gpus, plan). A point's value wins over the sweep file's.
  virtual std::vector<std::string> own_keys() const { return {}; }
};

// The key paths of a sweep that address the target's base config (its own keys removed).
std::vector<std::string> config_key_paths(const Target& target, const SweepSpec& spec);

// The target the spec names. `spec_file` locates relative `config:` paths; `load` holds the
// preset roots and --set assignments (applied to the base config, before the point's own).
std::unique_ptr<Target> make_target(const SweepSpec& spec, const std::filesystem::path& spec_file,
                                    const Registry& registry, const config::LoadOptions& load);

// The base config file `config` names: a path (relative to `spec_dir` first, then to the
// working directory) when it has a '/' or a .yaml/.yml/.json ending, else
// <root>/<preset_dir>/<config>.yaml for the first preset root that has it.
std::filesystem::path resolve_config(const std::string& config,
                                     const std::filesystem::path& spec_dir,
                                     const config::LoadOptions& load, std::string_view preset_dir);

}  // namespace lightsim::sweep
