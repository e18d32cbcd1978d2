// The run context: seed, threads, logger, progress and thread pool. Passed explicitly to
// everything that needs them; lightsim has no global mutable state.
#pragma once

#include <atomic>
#include <cstdint>
#include <iostream>
#include <ostream>
#include <string_view>
#include <utility>

#include "lightsim/core/error.h"
#include "lightsim/core/log.h"
#include "lightsim/core/memory_budget.h"
#include "lightsim/core/parallel.h"
#include "lightsim/core/progress.h"
#include "lightsim/core/rng.h"

namespace lightsim {

struct ContextOptions {
  std::uint64_t seed = 0;
  std::size_t threads = 0;  // total parallelism, caller included; 0 = hardware concurrency
  LogLevel log_level = LogLevel::info;
  std::ostream* log_stream = &std::cerr;  // not owned
  Progress::Options progress{};
  // Set (from another thread or a signal handler) to ask the run to stop; not owned, may be
  // null (never cancelled). Long loops poll Context::cancelled() between work items.
  const std::atomic<bool>* cancel = nullptr;
  // Bytes the run may allocate for its large arrays (memory_budget.h); 0 = the default, 80% of
  // physical memory.
  std::uint64_t memory_budget = 0;
};

// Non-copyable and non-movable (it owns running threads); hold it by value in main or in a
// unique_ptr.
class Context {
 public:
  Context() : Context(ContextOptions{}) {}
  explicit Context(const ContextOptions& options)
      : seed_(options.seed),
        logger_(options.log_level, *options.log_stream),
        progress_(options.progress),
        pool_(options.threads),
        cancel_(options.cancel),
        memory_budget_(options.memory_budget != 0 ? options.memory_budget
                                                  : default_memory_budget()) {}
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  std::uint64_t seed() const { return seed_; }
  std::size_t threads() const { return pool_.size(); }
  Logger& log() { return logger_; }
  Progress& progress() { return progress_; }
  ThreadPool& pool() { return pool_; }
  // Bytes the run may allocate for its large arrays (ContextOptions::memory_budget).
  std::uint64_t memory_budget() const { return memory_budget_; }

  // The stop flag itself (ContextOptions::cancel; null = never cancelled), for a model loop
  // below the Context's users that polls it directly (prism::DriftOptions::cancel).
  const std::atomic<bool>* cancel_flag() const { return cancel_; }
  // True once the run was asked to stop (ContextOptions::cancel).
  bool cancelled() const { return cancel_ != nullptr && cancel_->load(std::memory_order_relaxed); }
  // Throws Interrupted("<what>: interrupted") when cancelled().
  void throw_if_cancelled(std::string_view what) const {
    if (cancelled()) [[unlikely]]
      LIGHTSIM_THROW(Interrupted, "{}: interrupted", what);
  }

  // RandomStream keyed by (seed, ids...); at most StreamKey::kMaxIds ids.
  template <typename... Ids>
  RandomStream stream(Ids... ids) const {
    static_assert(sizeof...(Ids) <= StreamKey::kMaxIds, "too many stream ids");
    return RandomStream(seed_, {static_cast<std::uint64_t>(ids)...});
  }

 private:
  std::uint64_t seed_;
  Logger logger_;
  Progress progress_;
  ThreadPool pool_;
  const std::atomic<bool>* cancel_;
  std::uint64_t memory_budget_;
};

// Context overloads of the loops in parallel.h (same contracts).
template <typename F>
void parallel_for(Context& ctx, std::size_t n, F&& body, std::size_t grain = 0) {
  parallel_for(ctx.pool(), n, std::forward<F>(body), grain);
}
template <typename F>
void parallel_for_chunks(Context& ctx, std::size_t n, std::size_t grain, F&& body) {
  parallel_for_chunks(ctx.pool(), n, grain, std::forward<F>(body));
}
template <typename T, typename Map, typename Combine>
T parallel_reduce(Context& ctx, std::size_t n, T init, Map&& map, Combine&& combine,
                  std::size_t grain = 0) {
  return parallel_reduce(ctx.pool(), n, std::move(init), std::forward<Map>(map),
                         std::forward<Combine>(combine), grain);
}

}  // namespace lightsim
