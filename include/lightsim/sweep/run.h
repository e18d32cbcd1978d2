// Running a sweep: points on the thread pool, batches across processes (MPI ranks), finished
// points appended to the result store by rank 0 (docs/sweeps.md).
//
// Every rank expands the same points and validates them. Rank 0 opens the store and sends the
// pending indices to all. Pending points are taken in index order, `batch` at a time. Within a
// batch the ranks take points dynamically: each rank draws the next chunk of T points (T = its
// thread count) from a counter shared by all ranks (Communicator::fetch_add, one-sided under
// MPI) and runs it on its thread pool, until the batch is used up; a rank with cheap points
// simply takes more chunks. Which rank ran a point never reaches the store.
// Rank 0 gathers the batch, appends its finished points in index order (one fsync), and all
// ranks agree whether to go on: a point that threw stops the sweep with its error (lowest
// index first), a cancellation (SIGINT/SIGTERM on any rank) with Interrupted saying how to
// resume. At the end the store is put in index order, so it is the same file for any number
// of ranks, threads, batches and interruptions.
#pragma once

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "lightsim/core/context.h"
#include "lightsim/core/json_fwd.h"
#include "lightsim/sweep/shard.h"
#include "lightsim/sweep/spec.h"
#include "lightsim/sweep/target.h"

namespace lightsim::sweep {

// The collective operations a sweep needs; SingleProcess is the 1-rank case, the lightsim
// binary adds an MPI one when launched by mpirun/srun.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Rank 0's `text` on every rank.
  virtual std::string broadcast(const std::string& text) = 0;
  // Every rank's `text`, in rank order, on rank 0 (empty elsewhere).
  virtual std::vector<std::string> gather(const std::string& text) = 0;
  // A counter shared by all ranks, 0 at construction: adds `n` and returns the value before,
  // atomically across ranks, without the other ranks taking part (any rank may call it while
  // the others compute).
  virtual std::size_t fetch_add(std::size_t n) = 0;
  // Sets the counter back to 0. Rank 0 only, and only while no rank can call fetch_add (between
  // two collective calls that every rank's fetch_add calls precede or follow).
  virtual void reset_counter() = 0;
};

class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string broadcast(const std::string& text) override { return text; }
  std::vector<std::string> gather(const std::string& text) override { return {text}; }
  std::size_t fetch_add(std::size_t n) override { return std::exchange(counter_, counter_ + n); }
  void reset_counter() override { counter_ = 0; }

 private:
  std::size_t counter_ = 0;
};

struct SweepOptions {
  // The store is <out>/Shard::store_file(name) (rank 0 creates <out>), for the shard that the
  // header names ("shard"; the whole sweep without it).
  std::filesystem::path out;
  bool resume = false;
  std::size_t batch = 0;  // 0 = 4 x threads x ranks
  // Set by SIGINT/SIGTERM (not owned, may be null); points poll it, and so does each point's
  // own Context (a 1-thread, quiet Context with the run's seed).
  const std::atomic<bool>* cancel = nullptr;
};

struct SweepSummary {
  std::filesystem::path store;
  std::size_t points = 0;        // in the sweep
  std::size_t shard_points = 0;  // of them, in this run's shard
  std::string shard;             // "I/N", or empty for the whole sweep
  std::size_t already_done = 0;  // found in the store at start (resume)
  std::size_t ran = 0;           // finished by this run
  // Of them, how many each rank ran (rank order; on rank 0, empty elsewhere). Depends on timing:
  // reported, never stored.
  std::vector<std::size_t> ran_per_rank;
  std::size_t dropped_bytes = 0;  // torn last line cut off when resuming
  std::string spec_hash;
};

// The store header: identifies the sweep (hash of the spec, the target's fingerprint and the
// seed) so that a resume with anything changed is refused. A shard's header ends with
// "shard": "I/N"; without it, the header is the whole sweep's (what `sweep merge` writes).
Json store_header(const SweepSpec& spec, const std::string& spec_text, const Target& target,
                  std::size_t points, std::uint64_t seed, const Shard& shard = {});

// Checks every point before any runs (Target::check: the request and every config the point
// reads, --set applied), polling ctx's cancellation at every point: a 100k-point sweep checks for
// tens of seconds, and SIGINT/ SIGTERM end it with Interrupted within a point. The first bad point
// is a ConfigError naming `spec_file`, the point's index and its assignments.
void check_points(const SweepSpec& spec, const std::filesystem::path& spec_file,
                  const Target& target, const std::vector<Point>& points, Context& ctx);

// Runs every point not yet in the store (see above). Throws the lowest-index point's error
// (prefixed "point N (key=value, ...)"), or Interrupted after storing what finished.
SweepSummary run_sweep(const SweepSpec& spec, const Json& header, const Target& target,
                       const std::vector<Point>& points, const SweepOptions& options, Context& ctx,
                       Communicator& comm);

}  // namespace lightsim::sweep
