// Shared pieces of the lightsim command-line program (apps/lightsim/).
#pragma once

#include <CLI/CLI.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/context.h"
#include "lightsim/core/registry.h"
#include "lightsim/report/result.h"

namespace lightsim::cli {

// Options every subcommand accepts (before or after the subcommand name).
struct GlobalOptions {
  std::uint64_t seed = 1;
  bool seed_given = false;
  unsigned threads = 0;  // 0 = all hardware threads
  bool json = false;     // machine-readable output on stdout
  bool quiet = false;    // no progress, warnings only
  std::filesystem::path out = "out";
  std::vector<std::filesystem::path> config_path;  // extra preset roots, searched first
  std::vector<std::string> assignments;            // --set KEY=VALUE
  const std::atomic<bool>* cancel = nullptr;       // set by main's SIGINT/SIGTERM handler
  std::uint64_t memory_budget = 0;                 // --memory-budget in bytes; 0 = default

  // Preset roots (--config-path, then the data folder's configs/, lightsim/core/data_dir.h) and
  // --set assignments. Every copy shares which assignments a document took (config::Assignments).
  config::LoadOptions load_options() const;
  // UsageError naming a --set KEY that no config the command read has (exit 2). Each command
  // calls it once it has read its configs, before it computes or writes anything; main calls
  // it again after the command, so no assignment is ever ignored.
  void require_all_used() const { load_options().assignments.require_all_used(); }
  // Context options from these flags: seed (or `default_seed` when --seed was not given),
  // threads, log level and progress mode (--quiet), and the plain progress line period.
  ContextOptions context_options(std::uint64_t default_seed, Time progress_interval) const;

 private:
  mutable std::optional<config::Assignments> tracked_;  // built from `assignments` once
  mutable bool shadows_reported_ = false;               // presets --config-path shadows
};

// Each command file adds its subcommand(s) to the app; the callback runs after parsing.
void add_list_command(CLI::App& app, const GlobalOptions& options, const Registry& registry);
void add_config_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry);
void add_reproduce_command(CLI::App& app, const GlobalOptions& options, const Registry& registry);
void add_report_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry);
void add_study_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry);
void add_sweep_command(CLI::App& app, const GlobalOptions& options, const Registry& registry);
// One subcommand per registered operation (src/ops/), flags derived from its request schema.
// Called last: it adds to the command groups the other files created.
void add_operation_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry);

// Registers every module's spec kinds and implementation families.
void register_all(Registry& registry);

}  // namespace lightsim::cli
