// lightsim: command-line entry point. The only place that turns errors into exit codes:
//   0 success, 2 bad input (usage, config, units, data files, an input too large for the
//   memory: std::bad_alloc), 130 interrupted, 1 any other failure.
#include <atomic>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>

#include "cli.h"
#include "lightsim/core/error.h"
#include "lightsim/core/out_of_memory.h"
#include "lightsim/core/units.h"

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

// --memory-budget: a data size ("20 GB", "512 MiB") of at least 1 MiB.
std::uint64_t parse_memory_budget(const std::string& text) {
  double bytes = 0;
  try {
    bytes = parse<dims::data>(text).si();
  } catch (const UnitError& e) {
    LIGHTSIM_THROW(UsageError, "--memory-budget '{}': {}", text, e.what());
  }
  LIGHTSIM_CHECK_AS(UsageError, std::isfinite(bytes) && bytes >= 1048576.0 && bytes < 1.8e19,
                    "--memory-budget '{}': expected a data size from 1 MiB to 16 EiB, e.g. '20 GB'",
                    text);
  return static_cast<std::uint64_t>(bytes);
}

// --seed: a decimal integer in [0, 2^64 - 1]. from_chars refuses a sign, other text and
// overflow (strtoull wrapped "-3" and saturated values above 2^64 silently).
std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t seed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seed);
  LIGHTSIM_CHECK_AS(UsageError, error == std::errc() && end == text.data() + text.size(),
                    "--seed '{}': expected an integer in [0, 18446744073709551615]", text);
  return seed;
}

// "lightsim kv generate": the command the parse selected (its subcommands are known before
// their callbacks run), for the out-of-memory message.
std::string command_path(const CLI::App& app) {
  std::string path = "lightsim";
  const CLI::App* at = &app;
  for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) {
    at = subs.front();
    path += " " + at->get_name();
  }
  return path;
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
  app.add_option_function<std::string>(
         "--seed",
         [&](const std::string& text) {
           options.seed = parse_seed(text);
           options.seed_given = true;
         },
         "Seed of every random stream (results are identical for any thread count)")
      ->type_name("UINT");
  app.add_option("--threads", options.threads, "Worker threads (0 = all hardware threads)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 4096u));
  app.add_option_function<std::string>(
         "--memory-budget",
         [&](const std::string& text) { options.memory_budget = parse_memory_budget(text); },
         "Memory the run may allocate for its arrays, e.g. '20 GB' (default 80% of RAM); a "
         "command that needs more refuses before it starts")
      ->type_name("SIZE");
  app.add_flag("--json", options.json, "Machine-readable output on stdout");
  app.add_flag("-q,--quiet", options.quiet, "No progress output; warnings and errors only");
  app.add_option("--out", options.out, "Output folder for results")->capture_default_str();
  app.add_option("--config-path", options.config_path,
                 "Extra folder searched for presets before the data folder's configs/ "
                 "($LIGHTSIM_DATA or beside the program; repeatable)")
      ->type_name("DIR");
  app.add_option("--set", options.assignments,
                 "Override a config key, e.g. --set ring.q_loaded=2e4 (repeatable)")
      ->type_name("KEY=VALUE");

  add_list_command(app, options, registry);
  add_config_commands(app, options, registry);
  add_reproduce_command(app, options, registry);
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
  } catch (const std::bad_alloc&) {
    // The command's arrays are freed by now (unwound); name the command. Its AtomicFiles
    // removed their temp files while unwinding, so nothing half-written is left.
    throw OutOfMemory(out_of_memory_message(fmt::format("running `{}`", command_path(app))));
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
  } catch (const std::bad_alloc&) {  // outside a command (registration, option setup)
    lightsim::cli::print_error(lightsim::out_of_memory_message("").c_str());
    return 2;
  } catch (const std::exception& e) {
    lightsim::cli::print_error(e.what());
    return 1;
  } catch (...) {
    lightsim::cli::print_error("unknown exception");
    return 1;
  }
}
