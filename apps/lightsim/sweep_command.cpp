// `lightsim sweep SPEC.yaml [--resume]`: a study or a command-level evaluation at every point
// of a grid, a list or a random sample of config assignments, on the thread pool and, under
// mpirun/srun, across ranks; results appended to <out>/<name>.jsonl (docs/sweeps.md).
// `lightsim sweep merge` joins the stores of a job array's shards; `lightsim sweep export`
// writes a store as CSV.
#include <iostream>

#include <fmt/ranges.h>

#include "cli.h"
#include "lightsim/core/atomic_file.h"
#include "lightsim/core/json.h"
#include "lightsim/core/memory_budget.h"
#include "lightsim/ops/operation.h"
#include "lightsim/sweep/export.h"
#include "lightsim/sweep/memory.h"
#include "lightsim/sweep/merge.h"
#include "lightsim/sweep/run.h"
#include "lightsim/sweep/store.h"
#include "mpi_communicator.h"

namespace lightsim::cli {
namespace {

struct SweepCommandOptions {
  std::filesystem::path spec;
  bool resume = false;
  std::string shard;  // "I/N", empty = the whole sweep
};

struct MergeCommandOptions {
  std::vector<std::filesystem::path> stores;
  std::filesystem::path output;
};

struct ExportCommandOptions {
  std::filesystem::path store;
  bool csv = false;
  std::vector<std::string> columns;
  std::filesystem::path output;
};

void run_sweep_command(const SweepCommandOptions& o, const GlobalOptions& options,
                       const Registry& registry) {
  // MPI first, so that every rank reads and validates the same files and fails the same way.
  const sweep::Shard shard =
      o.shard.empty() ? sweep::Shard{} : sweep::parse_shard(o.shard, "--shard");
  check_launcher_has_pmi(shard);
  const std::unique_ptr<sweep::Communicator> comm = make_communicator();
  const bool root = comm->rank() == 0;

  // --set applies to the configs the target reads, not to the sweep file.
  const config::LoadOptions load = options.load_options();
  config::LoadOptions spec_load = load;
  spec_load.assignments.clear();
  const config::Node document = config::load_document(o.spec);
  const auto spec = config::read_spec<sweep::SweepSpec>(document, spec_load);

  // Everything that can be wrong with the input fails here, before any point runs (each
  // point's check also requires every --set to be used by its configs).
  const auto target = sweep::make_target(spec, o.spec, registry, load);
  const ops::Info& op = ops::find_operation(registry, spec.target).info();
  ContextOptions co = options.context_options(op.default_seed, Time::si(5.0));
  if (!root) {  // rank 0 reports for all
    co.progress.mode = ProgressMode::quiet;
    co.log_level = LogLevel::warn;
  }
  Context ctx(co);
  // The point lists grow with the point count (10^7 allowed): estimated before they exist.
  require_memory(sweep::estimate_sweep_bytes(spec), ctx.memory_budget(),
                 fmt::format("{}: sweep '{}' of {} points (its point lists)", o.spec.string(),
                             spec.name, sweep::point_count(spec)));
  const std::vector<sweep::Point> points = sweep::expand(spec);
  sweep::check_points(spec, o.spec, *target, points, ctx);
  const Json header = sweep::store_header(spec, config::to_yaml(document), *target, points.size(),
                                          ctx.seed(), shard);
  if (root && !options.quiet)
    ctx.log().info("sweep {}: {} points of {}{} on {} rank(s) x {} thread(s)", spec.name,
                   points.size(), spec.target,
                   shard.whole() ? "" : fmt::format(", shard {}", shard.text()), comm->size(),
                   ctx.threads());

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
                            {"shard", s.shard},
                            {"shard_points", s.shard_points},
                            {"already_done", s.already_done},
                            {"ran", s.ran},
                            {"dropped_bytes", s.dropped_bytes},
                            {"spec_hash", s.spec_hash},
                            {"ranks", comm->size()},
                            {"ran_per_rank", s.ran_per_rank}});
    return;
  }
  if (comm->size() > 1)
    ctx.log().info("sweep {}: points run per rank: {}", spec.name, fmt::join(s.ran_per_rank, ", "));
  if (s.dropped_bytes > 0)
    fmt::print("lightsim sweep: dropped a torn last line ({} bytes) from an interrupted run\n",
               s.dropped_bytes);
  if (shard.whole())
    fmt::print("lightsim sweep: {} points ({} already in the store, {} run now) in {}\n", s.points,
               s.already_done, s.ran, s.store.string());
  else
    fmt::print(
        "lightsim sweep: shard {}: {} of the {} points ({} already in the store, {} run now) in "
        "{}\n",
        s.shard, s.shard_points, s.points, s.already_done, s.ran, s.store.string());
}

void run_merge_command(const MergeCommandOptions& o, const GlobalOptions& options) {
  const sweep::MergeSummary s = sweep::merge_shards(o.stores, o.output);
  if (options.json) {
    std::cout << dump_json({{"store", s.out.string()}, {"points", s.points}, {"shards", s.shards}});
    return;
  }
  fmt::print("lightsim sweep merge: {} points from {} shards in {}\n", s.points, s.shards,
             s.out.string());
}

void run_export_command(const ExportCommandOptions& o) {
  LIGHTSIM_CHECK_AS(UsageError, o.csv, "sweep export: choose the format: --csv");
  sweep::CsvOptions co;
  co.columns = o.columns;
  const std::string csv = sweep::store_csv(sweep::read_store(o.store), co);
  if (o.output.empty() || o.output == "-") {
    std::cout << csv;
    return;
  }
  write_file_atomic(o.output, csv);
}

}  // namespace

void add_sweep_command(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  auto o = std::make_shared<SweepCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Run a study or an evaluation over a grid, list or random sample of config keys; "
      "results in <out>/<name>.jsonl (resumable; distributed under mpirun)");
  cmd->add_option("SPEC", o->spec, "Sweep file (kind: sweep), e.g. configs/sweeps/*.yaml")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--resume", o->resume,
                "Continue the store of an earlier run of the same sweep (finished points are "
                "kept, never run twice)");
  cmd->add_option("--shard", o->shard,
                  "Run only shard I of N (the points with index = I mod N, 0 <= I < N) into "
                  "<out>/<name>.shard-I-of-N.jsonl, for job arrays; join them with `sweep merge`")
      ->type_name("I/N");
  cmd->require_subcommand(0, 1);
  cmd->callback([o, cmd, &options, &registry] {
    if (!cmd->get_subcommands().empty()) return;  // merge / export ran
    LIGHTSIM_CHECK_AS(UsageError, !o->spec.empty(),
                      "sweep: SPEC is required (a sweep file), or a subcommand: merge, export");
    run_sweep_command(*o, options, registry);
  });

  auto m = std::make_shared<MergeCommandOptions>();
  CLI::App* merge = cmd->add_subcommand(
      "merge",
      "Join the complete stores of shards 0..N-1 of one sweep into the store a single run "
      "writes (byte for byte)");
  merge->add_option("STORES", m->stores, "The shard stores, <out>/<name>.shard-I-of-N.jsonl")
      ->required()
      ->check(CLI::ExistingFile);
  merge->add_option("--output", m->output,
                    "Path of the merged store (default: <name>.jsonl beside the first shard)");
  merge->callback([m, &options] { run_merge_command(*m, options); });

  auto e = std::make_shared<ExportCommandOptions>();
  CLI::App* exp = cmd->add_subcommand(
      "export", "Write a sweep store as a table: one CSV row per point, one column per key");
  exp->add_option("STORE", e->store, "A sweep store (<out>/<name>.jsonl)")
      ->required()
      ->check(CLI::ExistingFile);
  exp->add_flag("--csv", e->csv, "CSV (RFC 4180), the format written");
  exp->add_option("--columns", e->columns,
                  "Keep only the result columns whose name starts with one of these prefixes "
                  "(e.g. result.searches.0.best); index, id and values.* are always kept")
      ->delimiter(',');
  exp->add_option("--output", e->output, "File to write (default: standard output)");
  exp->callback([e] { run_export_command(*e); });
}

}  // namespace lightsim::cli
