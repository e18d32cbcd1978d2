// lightsim: command-line entry point. The only place that turns errors into exit codes:
//   0 success, 2 bad input (usage, config, units, data files), 1 any other failure.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>

#include "cli.h"
#include "lightsim/core/error.h"

namespace lightsim::cli {
namespace {

// The one piece of process-wide state: a signal handler can only reach a static. Set on
// SIGINT/SIGTERM; studies and sweeps poll it through Context::cancelled() and stop between
// work items, keeping what finished (exit code 130). A second signal kills the process.
std::atomic<bool> g_stop_requested{false};

extern "C" void request_stop(int signal_number) {
  g_stop_requested.store(true);
  std::signal(signal_number, SIG_DFL);
}

int run(int argc, char** argv) {
  Registry registry;
  register_all(registry);

  GlobalOptions options;
  options.cancel = &g_stop_requested;
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  CLI::App app{"lightsim: photonic hardware for LLM inference, simulated", "lightsim"};
  app.fallthrough();             // global options are accepted after the subcommand too
  app.require_subcommand(0, 1);  // none is reported below, after an unknown word is named
  app.set_version_flag("--version", "lightsim " LIGHTSIM_VERSION);
  app.add_option_function<std::uint64_t>(
         "--seed",
         [&](std::uint64_t seed) {
           options.seed = seed;
           options.seed_given = true;
         },
         "Seed of every random stream (results are identical for any thread count)")
      ->type_name("UINT")
      ->check(CLI::NonNegativeNumber);  // strtoull would wrap "-3" silently
  app.add_option("--threads", options.threads, "Worker threads (0 = all hardware threads)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 4096u));
  app.add_flag("--json", options.json, "Machine-readable output on stdout");
  app.add_flag("-q,--quiet", options.quiet, "No progress output; warnings and errors only");
  app.add_option("--out", options.out, "Output folder for results")->capture_default_str();
  app.add_option("--config-path", options.config_path,
                 "Extra folder searched for presets before the built-in configs/ (repeatable)")
      ->type_name("DIR");
  app.add_option("--set", options.assignments,
                 "Override a config key, e.g. --set ring.q_loaded=2e4 (repeatable)")
      ->type_name("KEY=VALUE");

  add_list_command(app, options, registry);
  add_config_commands(app, options, registry);
  add_reproduce_command(app, options, registry);
  add_kv_commands(app, options, registry);
  add_report_commands(app, options, registry);
  add_study_commands(app, options, registry);
  add_sweep_command(app, options, registry);
  add_operation_commands(app, options, registry);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "lightsim: error: " << e.what() << " (see `lightsim --help`)\n";
    return 2;
  }
  if (app.get_subcommands().empty()) {
    std::cerr << "lightsim: error: A subcommand is required (see `lightsim --help`)\n";
    return 2;
  }
  options.require_all_used();  // a command that never checked still rejects a stray --set
  return 0;
}

void print_error(const char* what) {
  std::fflush(stdout);
  std::cerr << "lightsim: error: " << what << "\n";
}

}  // namespace
}  // namespace lightsim::cli

int main(int argc, char** argv) {
  try {
    return lightsim::cli::run(argc, argv);
  } catch (const lightsim::Interrupted& e) {
    lightsim::cli::print_error(e.what());
    return 130;
  } catch (const lightsim::InputError& e) {
    lightsim::cli::print_error(e.what());
    return 2;
  } catch (const std::exception& e) {
    lightsim::cli::print_error(e.what());
    return 1;
  } catch (...) {
    lightsim::cli::print_error("unknown exception");
    return 1;
  }
}
