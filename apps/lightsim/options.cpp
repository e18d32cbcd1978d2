#include "cli.h"

#include <cmath>

#include "lightsim/core/config_roots.h"
#include "lightsim/core/config_shadow.h"
#include "lightsim/core/data_dir.h"

namespace lightsim::cli {

config::LoadOptions GlobalOptions::load_options() const {
  config::LoadOptions o;
  for (const auto& root : config_path)
    o.config_roots.push_back(config::require_config_root(root, "--config-path"));
  o.config_roots.push_back(data_configs_dir());
  if (!shadows_reported_) {  // once a run, before any preset is read
    shadows_reported_ = true;
    if (!config_path.empty())
      for (const config::ShadowedPreset& s : config::shadowed_presets(o))
        fmt::print(stderr, "lightsim: warning: preset {} is read from {} (--config-path), not {}\n",
                   s.name, s.used.string(), s.shadowed.string());
  }
  if (!tracked_) tracked_ = config::Assignments(assignments);
  o.assignments = *tracked_;
  return o;
}

ContextOptions GlobalOptions::context_options(std::uint64_t default_seed,
                                              Time progress_interval) const {
  ContextOptions o;
  o.seed = seed_given ? seed : default_seed;
  o.threads = threads;
  o.cancel = cancel;
  o.memory_budget = memory_budget;
  o.log_level = quiet ? LogLevel::warn : LogLevel::info;
  o.progress.mode = quiet ? ProgressMode::quiet : ProgressMode::automatic;
  o.progress.plain_interval = std::chrono::milliseconds(
      static_cast<std::chrono::milliseconds::rep>(std::llround(progress_interval.si() * 1e3)));
  return o;
}

}  // namespace lightsim::cli
