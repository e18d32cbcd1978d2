// `lightsim sweep SPEC.yaml [--resume]`: a study or a command-level evaluation at every point
// of a grid, a list or a random sample of config assignments, on the thread pool and, under
// mpirun/srun, across ranks; results appended to <out>/<name>.jsonl (docs/sweeps.md).
#include <iostream>

#include "cli.h"
#include "lightsim/core/json.h"
#include "lightsim/ops/operation.h"
#include "lightsim/sweep/run.h"
#include "mpi_communicator.h"

namespace lightsim::cli {
namespace {

struct SweepCommandOptions {
  std::filesystem::path spec;
  bool resume = false;
};

void run_sweep_command(const SweepCommandOptions& o, const GlobalOptions& options,
                       const Registry& registry) {
  // MPI first, so that every rank reads and validates the same files and fails the same way.
  const std::unique_ptr<sweep::Communicator> comm = make_communicator();
  const bool root = comm->rank() == 0;

  // --set applies to the configs the target reads, not to the sweep file.
  const config::LoadOptions load = options.load_options();
  config::LoadOptions spec_load = load;
  spec_load.assignments.clear();
  const config::Node document = config::load_document(o.spec);
  const auto spec = config::read_spec<sweep::SweepSpec>(document, spec_load);

  // Everything that can be wrong with the input fails here, before any point runs.
  const std::vector<sweep::Point> points = sweep::expand(spec);
  const auto target = sweep::make_target(spec, o.spec, registry, load);
  for (const sweep::Point& p : points) {
    try {
      target->check(p);
    } catch (const InputError& e) {
      LIGHTSIM_THROW(ConfigError, "{}: point {} ({}): {}", o.spec.string(), p.index,
                     fmt::join(p.assignments(), ", "), e.what());
    }
  }

  // (Each point's check has required every --set to be used by its configs.)
  const ops::Info& op = ops::find_operation(registry, spec.target).info();
  ContextOptions co = options.context_options(op.default_seed, Time::si(5.0));
  if (!root) co.progress.mode = ProgressMode::quiet;
  Context ctx(co);
  const Json header =
      sweep::store_header(spec, config::to_yaml(document), *target, points.size(), ctx.seed());
  if (root && !options.quiet)
    ctx.log().info("sweep {}: {} points of {} on {} rank(s) x {} thread(s)", spec.name,
                   points.size(), spec.target, comm->size(), ctx.threads());

  sweep::SweepOptions so;
  so.out = options.out;
  so.resume = o.resume;
  so.batch = static_cast<std::size_t>(spec.batch);
  so.cancel = options.cancel;
  const sweep::SweepSummary s = sweep::run_sweep(spec, header, *target, points, so, ctx, *comm);
  if (!root) return;
  if (options.json) {
    std::cout << dump_json({{"store", s.store.string()},
                            {"points", s.points},
                            {"already_done", s.already_done},
                            {"ran", s.ran},
                            {"dropped_bytes", s.dropped_bytes},
                            {"spec_hash", s.spec_hash},
                            {"ranks", comm->size()}});
    return;
  }
  if (s.dropped_bytes > 0)
    fmt::print("lightsim sweep: dropped a torn last line ({} bytes) from an interrupted run\n",
               s.dropped_bytes);
  fmt::print("lightsim sweep: {} points ({} already in the store, {} run now) in {}\n", s.points,
             s.already_done, s.ran, s.store.string());
}

}  // namespace

void add_sweep_command(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  auto o = std::make_shared<SweepCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Run a study or an evaluation over a grid, list or random sample of config keys; "
      "results in <out>/<name>.jsonl (resumable; distributed under mpirun)");
  cmd->add_option("SPEC", o->spec, "Sweep file (kind: sweep), e.g. configs/sweeps/*.yaml")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_flag("--resume", o->resume,
                "Continue the store of an earlier run of the same sweep (finished points are "
                "kept, never run twice)");
  cmd->callback([o, &options, &registry] { run_sweep_command(*o, options, registry); });
}

}  // namespace lightsim::cli
