// Running a sweep across threads and ranks (include/lightsim/sweep/run.h).
#include "lightsim/sweep/run.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <new>

#include <fmt/ranges.h>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/json.h"
#include "lightsim/core/out_of_memory.h"
#include "lightsim/sweep/store.h"

namespace lightsim::sweep {
namespace {

// What rank 0 tells every rank after opening the store and after each batch.
struct Verdict {
  std::string stop;  // "", "error", "input_error", "cancelled"
  std::string message;
};

Json to_json(const Verdict& v) {
  return {{"stop", v.stop}, {"message", v.message}};
}

[[noreturn]] void raise(const Verdict& v) {
  if (v.stop == "input_error") throw InputError(v.message);
  if (v.stop == "cancelled") throw Interrupted(v.message);
  throw Error(v.message);
}

std::string describe_point(const Point& p) {
  return fmt::format("point {} ({})", p.index, fmt::join(p.assignments(), ", "));
}

// Runs this rank's share of a batch; returns {"cancelled": bool, "results": [...]}, each
// result {"index", "line"} or {"index", "error", "input"}.
Json run_share(const std::vector<std::size_t>& share, const std::vector<Point>& points,
               const Target& target, const SweepOptions& options, Context& ctx) {
  std::vector<Json> outcome(share.size());
  parallel_for(
      ctx, share.size(),
      [&](std::size_t k) {
        if (ctx.cancelled()) return;  // skipped: stays pending
        const Point& p = points[share[k]];
        try {
          ContextOptions co;
          co.seed = ctx.seed();
          co.threads = 1;
          co.log_level = LogLevel::warn;
          co.progress.mode = ProgressMode::quiet;
          co.cancel = options.cancel;
          co.memory_budget = ctx.memory_budget();  // --memory-budget bounds every point too
          Context point_ctx(co);
          const Json result = target.run(p, point_ctx);
          outcome[k] = {{"index", p.index},
                        {"line", record_line(p.index, p.id(), p.values_json(), result)}};
        } catch (const Interrupted&) {
          // stopped mid-point: not finished, stays pending
        } catch (const InputError& e) {
          outcome[k] = {{"index", p.index}, {"error", e.what()}, {"input", true}};
        } catch (const std::bad_alloc&) {
          // The point's input asks for more memory than the process can get: bad input
          // (exit 2), like any other point error it stops the sweep and the point stays pending.
          outcome[k] = {{"index", p.index},
                        {"error", out_of_memory_message("running the point")},
                        {"input", true}};
        } catch (const std::exception& e) {
          outcome[k] = {{"index", p.index}, {"error", e.what()}, {"input", false}};
        }
      },
      1);
  Json results = Json::array();
  for (auto& o : outcome)
    if (!o.is_null()) results.push_back(std::move(o));
  return {{"cancelled", ctx.cancelled()}, {"results", results}};
}

// This rank's part of the batch pending[b, e): chunks of ctx.threads() positions drawn from the
// shared counter (positions b + counter) until the batch is used up or the run is cancelled.
// Returns run_share's {"cancelled", "results"} over every chunk it ran.
Json run_taken(const std::vector<std::size_t>& pending, std::size_t b, std::size_t e,
               const std::vector<Point>& points, const Target& target, const SweepOptions& options,
               Context& ctx, Communicator& comm) {
  const std::size_t chunk = std::max<std::size_t>(1, ctx.threads());
  Json results = Json::array();
  while (!ctx.cancelled()) {
    const std::size_t first = b + comm.fetch_add(chunk);
    if (first >= e) break;
    const std::vector<std::size_t> share(
        pending.begin() + static_cast<std::ptrdiff_t>(first),
        pending.begin() + static_cast<std::ptrdiff_t>(std::min(e, first + chunk)));
    Json part = run_share(share, points, target, options, ctx);
    for (Json& r : part["results"]) results.push_back(std::move(r));
  }
  return {{"cancelled", ctx.cancelled()}, {"results", results}};
}

}  // namespace

Json store_header(const SweepSpec& spec, const std::string& spec_text, const Target& target,
                  std::size_t points, std::uint64_t seed, const Shard& shard) {
  Json header = {{"lightsim_sweep", 1},
                 {"name", spec.name},
                 {"target", spec.target},
                 {"points", points},
                 {"seed", seed},
                 {"spec_hash", fnv1a_hex(spec_text + "\n" + target.fingerprint())},
                 {"lightsim_version", LIGHTSIM_VERSION}};
  if (!shard.whole()) header["shard"] = shard.text();
  return header;
}

void check_points(const SweepSpec& spec, const std::filesystem::path& spec_file,
                  const Target& target, const std::vector<Point>& points, Context& ctx) {
  for (const Point& p : points) {
    ctx.throw_if_cancelled(fmt::format("sweep '{}' (checking point {} of {}; nothing was run)",
                                       spec.name, p.index, points.size()));
    try {
      target.check(p, ctx.memory_budget());
    } catch (const InputError& e) {
      LIGHTSIM_THROW(ConfigError, "{}: point {} ({}): {}", spec_file.string(), p.index,
                     fmt::join(p.assignments(), ", "), e.what());
    }
  }
}

SweepSummary run_sweep(const SweepSpec& spec, const Json& header, const Target& target,
                       const std::vector<Point>& points, const SweepOptions& options, Context& ctx,
                       Communicator& comm) {
  const bool root = comm.rank() == 0;
  SweepSummary summary;
  const Shard shard =
      header.contains("shard") ? parse_shard(header["shard"].get<std::string>(), "shard") : Shard{};
  summary.store = options.out / shard.store_file(spec.name);
  summary.points = points.size();
  summary.shard = shard.whole() ? "" : shard.text();
  for (const Point& p : points) summary.shard_points += shard.owns(p.index) ? 1 : 0;
  summary.spec_hash = header.at("spec_hash").get<std::string>();

  // Rank 0 opens the store; every rank learns the pending points (or the error).
  std::unique_ptr<ResultStore> store;
  std::exception_ptr open_error;
  std::string opened;
  if (root) {
    Json msg;
    try {
      prepare_output_dir(options.out);
      std::vector<StoredPoint> expected;
      expected.reserve(points.size());
      for (const Point& p : points) expected.push_back({p.id(), p.values_json().dump()});
      store =
          std::make_unique<ResultStore>(summary.store, header, options.resume, std::move(expected));
      Json pending = Json::array();
      std::vector<bool> have(points.size(), false);
      for (std::size_t i : store->done()) have[i] = true;
      for (std::size_t i = 0; i < points.size(); ++i)
        if (!have[i] && shard.owns(i)) pending.push_back(i);
      msg = {{"pending", pending}, {"done", store->size()}, {"dropped", store->dropped_bytes()}};
    } catch (const InputError& e) {
      open_error = std::current_exception();
      msg = to_json(Verdict{"input_error", e.what()});
    } catch (const std::bad_alloc&) {
      const std::string what = fmt::format("sweep '{}': {}", spec.name,
                                           out_of_memory_message("opening the result store"));
      open_error = std::make_exception_ptr(OutOfMemory(what));
      msg = to_json(Verdict{"input_error", what});
    } catch (const std::exception& e) {
      open_error = std::current_exception();
      msg = to_json(Verdict{"error", e.what()});
    }
    opened = msg.dump();
  }
  const Json start = Json::parse(comm.broadcast(opened));
  if (open_error) std::rethrow_exception(open_error);
  if (start.contains("stop")) raise({start["stop"], start["message"]});
  const auto pending = start["pending"].get<std::vector<std::size_t>>();
  summary.already_done = start["done"].get<std::size_t>();
  summary.dropped_bytes = start["dropped"].get<std::size_t>();

  const auto ranks = static_cast<std::size_t>(comm.size());
  const std::size_t batch =
      options.batch > 0 ? options.batch : std::max<std::size_t>(1, 4 * ctx.threads() * ranks);
  std::optional<ProgressTask> progress;
  if (root) progress.emplace(ctx.progress().start("sweep " + spec.name, pending.size()));

  if (root) summary.ran_per_rank.assign(ranks, 0);
  for (std::size_t b = 0; b < pending.size(); b += batch) {
    const std::size_t e = std::min(pending.size(), b + batch);
    const std::string mine = run_taken(pending, b, e, points, target, options, ctx, comm).dump();
    const std::vector<std::string> parts = comm.gather(mine);

    std::string said;
    if (root) {
      // Every rank is past its last fetch_add of this batch (it gathered), none has started
      // the next (it waits for the verdict).
      comm.reset_counter();
      Verdict v;
      try {
        std::vector<std::pair<std::size_t, std::string>> records;
        std::size_t first_error = points.size();
        bool cancelled = false;
        for (std::size_t rank = 0; rank < parts.size(); ++rank) {
          const Json j = Json::parse(parts[rank]);
          cancelled = cancelled || j["cancelled"].get<bool>();
          for (const Json& r : j["results"]) {
            const auto index = r["index"].get<std::size_t>();
            if (r.contains("line")) {
              records.emplace_back(index, r["line"].get<std::string>());
              ++summary.ran_per_rank[rank];
            } else if (index < first_error) {
              first_error = index;
              v = {r["input"].get<bool>() ? "input_error" : "error",
                   fmt::format("sweep '{}': {}: {}", spec.name, describe_point(points[index]),
                               r["error"].get<std::string>())};
            }
          }
        }
        std::sort(records.begin(), records.end());
        store->append(records);
        summary.ran += records.size();
        progress->advance(records.size());
        if (v.stop.empty() && (cancelled || ctx.cancelled()))
          v = {"cancelled",
               fmt::format("sweep '{}' interrupted: {} of {} points are in {}; run the same "
                           "command with --resume to continue",
                           spec.name, store->size(), summary.shard_points, summary.store.string())};
        else if (!v.stop.empty())
          v.message += fmt::format(
              " ({} of {} points are in {}; fix the point and rerun with "
              "--resume)",
              store->size(), summary.shard_points, summary.store.string());
      } catch (const std::bad_alloc&) {
        v = {"input_error", fmt::format("sweep '{}': {}", spec.name,
                                        out_of_memory_message("recording a batch of results"))};
      } catch (const std::exception& ex) {
        v = {"error", ex.what()};
      }
      said = to_json(v).dump();
    }
    const Json verdict = Json::parse(comm.broadcast(said));
    if (!verdict["stop"].get<std::string>().empty()) raise({verdict["stop"], verdict["message"]});
  }
  if (root) {
    progress->finish();
    store->sort();
  }
  return summary;
}

}  // namespace lightsim::sweep
