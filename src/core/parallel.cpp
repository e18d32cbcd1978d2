#include "lightsim/core/parallel.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <system_error>
#include <thread>

#include "lightsim/core/error.h"

namespace lightsim {
namespace {

// True while this thread runs a chunk: nested loops then run inline.
thread_local bool tl_in_chunk = false;

class InChunk {
 public:
  InChunk() : saved_(tl_in_chunk) { tl_in_chunk = true; }
  ~InChunk() { tl_in_chunk = saved_; }
  InChunk(const InChunk&) = delete;
  InChunk& operator=(const InChunk&) = delete;

 private:
  bool saved_;
};

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
// Polling before a worker sleeps: ~1000 pause instructions, roughly 5-50 us by CPU.
constexpr int kSpinIterations = 1000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

Chunks::Chunks(std::size_t n_items, std::size_t grain_items)
    : n(n_items),
      grain(grain_items != 0
                ? grain_items
                : std::max<std::size_t>(1, (n_items + kDefaultChunks - 1) / kDefaultChunks)),
      count((n_items + grain - 1) / grain) {}

struct ThreadPool::Impl {
  struct Job {
    Job(std::size_t n, ChunkTask t) : n_chunks(n), task(t) {}
    std::size_t n_chunks;
    ChunkTask task;
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> failed{kNone};  // lowest chunk that threw so far
    std::mutex error_mutex;
    std::exception_ptr error;
  };

  static void work(Job& job) {
    InChunk guard;
    for (;;) {
      const std::size_t c = job.next.fetch_add(1, std::memory_order_relaxed);
      // Chunks are claimed in increasing order: past a failure, everything left is skipped.
      if (c >= job.n_chunks || c > job.failed.load(std::memory_order_acquire)) return;
      try {
        job.task.call(job.task.obj, c);
      } catch (...) {
        std::lock_guard lock(job.error_mutex);
        if (c < job.failed.load(std::memory_order_relaxed)) {
          job.error = std::current_exception();
          job.failed.store(c, std::memory_order_release);
        }
      }
    }
  }

  void worker_loop() {
    std::uint64_t seen = 0;
    for (;;) {
      for (int i = 0; i < kSpinIterations && generation.load(std::memory_order_acquire) == seen &&
                      !stop.load(std::memory_order_relaxed);
           ++i)
        cpu_relax();
      Job* job_now = nullptr;
      {
        std::unique_lock lock(mutex);
        if (generation.load(std::memory_order_relaxed) == seen && !stop.load()) {
          ++sleepers;
          wake.wait(lock, [&] { return generation.load() != seen || stop.load(); });
          --sleepers;
        }
        if (stop.load()) return;
        seen = generation.load(std::memory_order_relaxed);
        job_now = job;
        if (job_now == nullptr) continue;  // woke after that job was closed
        ++active;
      }
      work(*job_now);
      std::lock_guard lock(mutex);
      if (--active == 0) done.notify_all();
    }
  }

  std::mutex mutex;  // guards job, active, sleepers; generation and stop are written under it
  std::condition_variable wake, done;
  Job* job = nullptr;
  std::atomic<std::uint64_t> generation{0};
  std::atomic<bool> stop{false};
  std::size_t active = 0;
  std::size_t sleepers = 0;
  std::mutex submit;  // one loop at a time; others run inline
  std::vector<std::thread> workers;
};

namespace {
std::size_t checked_threads(std::size_t threads) {
  LIGHTSIM_CHECK_AS(UsageError, threads <= ThreadPool::kMaxThreads,
                    "threads: expected 0 (all hardware threads) to {}, got {}",
                    ThreadPool::kMaxThreads, threads);
  return threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}
}  // namespace

ThreadPool::ThreadPool(std::size_t threads)
    : size_(checked_threads(threads)), impl_(std::make_unique<Impl>()) {
  try {
    impl_->workers.reserve(size_ - 1);
    for (std::size_t i = 1; i < size_; ++i)
      impl_->workers.emplace_back([impl = impl_.get()] { impl->worker_loop(); });
  } catch (const std::system_error& e) {
    {
      std::lock_guard lock(impl_->mutex);
      impl_->stop.store(true);
    }
    impl_->wake.notify_all();
    for (auto& t : impl_->workers) t.join();
    LIGHTSIM_THROW(UsageError, "threads: could not start {} worker threads ({})", size_ - 1,
                   e.what());
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stop.store(true);
  }
  impl_->wake.notify_all();
  for (auto& t : impl_->workers) t.join();
}

void ThreadPool::run_erased(std::size_t n_chunks, ChunkTask task) {
  if (n_chunks == 0) return;
  std::unique_lock<std::mutex> submit(impl_->submit, std::defer_lock);
  if (impl_->workers.empty() || n_chunks == 1 || tl_in_chunk || !submit.try_lock()) {
    InChunk guard;
    for (std::size_t c = 0; c < n_chunks; ++c) task.call(task.obj, c);
    return;
  }
  Impl::Job job(n_chunks, task);
  bool sleeping = false;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->job = &job;
    impl_->generation.fetch_add(1, std::memory_order_release);
    sleeping = impl_->sleepers > 0;
  }
  if (sleeping) impl_->wake.notify_all();
  Impl::work(job);
  {
    std::unique_lock lock(impl_->mutex);
    impl_->job = nullptr;  // late wakers now skip this job
    impl_->done.wait(lock, [&] { return impl_->active == 0; });
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace lightsim
