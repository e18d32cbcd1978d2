// Deterministic parallel loops on an explicitly owned thread pool.
//
// Contract shared by parallel_for, parallel_for_chunks and parallel_reduce:
//   * [0, n) is cut into chunks [c * grain, min(n, (c + 1) * grain)). The boundaries depend
//     only on n and grain (grain 0 = default_grain(n)), never on the number of threads.
//   * parallel_reduce combines the chunk results in chunk order on the calling thread:
//     combine(...combine(combine(init, r0), r1)..., r_last). A floating-point reduction is
//     therefore bit-identical for any thread count.
//   * If bodies throw, the exception of the lowest-index throwing chunk is rethrown on the
//     caller after all running chunks finished; chunks above it that had not started are
//     skipped. (Chunks are claimed in increasing order, so every chunk below a throwing one
//     runs: the exception reported is deterministic if the bodies are.)
//   * A call from inside a body (nested), a call while another thread is using the pool, and
//     any call on a 1-thread pool run inline on the caller, chunk by chunk in order.
//   * Bodies must not write shared state without their own synchronization.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace lightsim {

// Chunk geometry of a loop over [0, n).
struct Chunks {
  static constexpr std::size_t kDefaultChunks = 256;
  // grain 0 -> ceil(n / kDefaultChunks), at least 1.
  Chunks(std::size_t n_items, std::size_t grain_items);
  std::size_t begin(std::size_t c) const { return c * grain; }
  std::size_t end(std::size_t c) const { return std::min(n, (c + 1) * grain); }

  std::size_t n;
  std::size_t grain;
  std::size_t count;
};

// Worker threads plus the calling thread. Owned by a Context; never global.
class ThreadPool {
 public:
  // `threads` is the total parallelism including the caller; 0 = hardware concurrency.
  // More than kMaxThreads is a UsageError ("threads: ..."), as is a system that cannot start
  // the workers (std::system_error): no thread is left running.
  static constexpr std::size_t kMaxThreads = 1024;
  explicit ThreadPool(std::size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  std::size_t size() const { return size_; }

  // Runs task(c) for every c in [0, n_chunks) under the contract above.
  template <typename F>
  void run(std::size_t n_chunks, F& task) {
    run_erased(n_chunks,
               ChunkTask{&task, [](void* obj, std::size_t c) { (*static_cast<F*>(obj))(c); }});
  }

 private:
  struct ChunkTask {
    void* obj;
    void (*call)(void*, std::size_t);
  };
  struct Impl;
  void run_erased(std::size_t n_chunks, ChunkTask task);

  std::size_t size_;
  std::unique_ptr<Impl> impl_;
};

// body(begin, end) for each chunk.
template <typename F>
void parallel_for_chunks(ThreadPool& pool, std::size_t n, std::size_t grain, F&& body) {
  const Chunks chunks(n, grain);
  auto task = [&](std::size_t c) { body(chunks.begin(c), chunks.end(c)); };
  pool.run(chunks.count, task);
}

// body(i) for each i in [0, n).
template <typename F>
void parallel_for(ThreadPool& pool, std::size_t n, F&& body, std::size_t grain = 0) {
  parallel_for_chunks(pool, n, grain, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) body(i);
  });
}

// map(begin, end) -> T per chunk; results combined in chunk order: combine(T, T) -> T.
template <typename T, typename Map, typename Combine>
T parallel_reduce(ThreadPool& pool, std::size_t n, T init, Map&& map, Combine&& combine,
                  std::size_t grain = 0) {
  const Chunks chunks(n, grain);
  std::vector<std::optional<T>> partial(chunks.count);
  auto task = [&](std::size_t c) { partial[c].emplace(map(chunks.begin(c), chunks.end(c))); };
  pool.run(chunks.count, task);
  T acc = std::move(init);
  for (auto& p : partial) acc = combine(std::move(acc), std::move(*p));
  return acc;
}

}  // namespace lightsim
