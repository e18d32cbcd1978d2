#include "lightsim/core/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "lightsim/core/error.h"
#include "lightsim/core/rng.h"

namespace lightsim {
namespace {

const std::size_t kThreadCounts[] = {1, 2, 7};

TEST(Parallel, ChunksDependOnlyOnSizeAndGrain) {
  const Chunks c(1000, 0);
  EXPECT_EQ(c.grain, 4u);  // ceil(1000 / 256)
  EXPECT_EQ(c.count, 250u);
  const Chunks d(10, 3);
  EXPECT_EQ(d.count, 4u);
  EXPECT_EQ(d.begin(3), 9u);
  EXPECT_EQ(d.end(3), 10u);
  EXPECT_EQ(Chunks(0, 0).count, 0u);
}

TEST(Parallel, ForVisitsEveryIndexExactlyOnce) {
  for (std::size_t threads : kThreadCounts) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (std::size_t n : {0, 1, 5, 1000, 100003}) {
      std::vector<std::atomic<int>> hits(n);
      parallel_for(pool, n, [&](std::size_t i) { hits[i].fetch_add(1); });
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << i << " of " << n;
    }
  }
}

TEST(Parallel, FloatingPointReduceIsBitIdenticalForAnyThreadCount) {
  const std::size_t n = 1'000'003;
  auto map = [](std::size_t b, std::size_t e) {
    double s = 0;
    for (std::size_t i = b; i < e; ++i) s += std::sin(static_cast<double>(i)) / (1.0 + i);
    return s;
  };
  auto add = [](double a, double b) { return a + b; };
  // Serial reference with the same chunking.
  const Chunks chunks(n, 0);
  double ref = 0.25;
  for (std::size_t c = 0; c < chunks.count; ++c) ref = ref + map(chunks.begin(c), chunks.end(c));
  for (std::size_t threads : kThreadCounts) {
    ThreadPool pool(threads);
    for (int repeat = 0; repeat < 3; ++repeat) {
      const double got = parallel_reduce(pool, n, 0.25, map, add);
      EXPECT_EQ(std::memcmp(&got, &ref, sizeof got), 0) << threads << " threads";
    }
  }
}

TEST(Parallel, RandomStreamsPerIndexGiveTheSameResultForAnyThreadCount) {
  constexpr std::size_t n = 2000;
  auto run = [](std::size_t threads) {
    ThreadPool pool(threads);
    std::vector<float> first(n);
    const double sum = parallel_reduce(
        pool, n, 0.0,
        [&](std::size_t b, std::size_t e) {
          double s = 0;
          std::vector<float> z(257);
          for (std::size_t i = b; i < e; ++i) {
            RandomStream stream(1234, {7, i});
            stream.fill_normal(std::span<float>(z));
            first[i] = z[0];
            for (float v : z) s += v;
          }
          return s;
        },
        [](double a, double b) { return a + b; }, 3);
    return std::make_pair(sum, first);
  };
  const auto ref = run(1);
  for (std::size_t threads : {2, 7}) {
    const auto got = run(threads);
    EXPECT_EQ(std::memcmp(&got.first, &ref.first, sizeof(double)), 0) << threads;
    EXPECT_EQ(got.second, ref.second) << threads;
  }
}

TEST(Parallel, ExceptionFromLowestThrowingChunkPropagates) {
  for (std::size_t threads : kThreadCounts) {
    ThreadPool pool(threads);
    std::atomic<std::size_t> ran{0};
    try {
      parallel_for(
          pool, 1000,
          [&](std::size_t i) {
            ran.fetch_add(1);
            if (i == 10 || i == 500) LIGHTSIM_THROW(ConfigError, "bad index {}", i);
          },
          1);
      FAIL() << "no throw";
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()), "bad index 10") << threads << " threads";
    }
    // Chunks above the throwing one are skipped only if they had not started: on one thread
    // exactly the 11 up to it run. With more threads the others may claim every remaining
    // chunk before the throw is recorded (seen under ASan on a loaded machine: all 1000 ran),
    // so the count is no contract there; the reported exception (above) is.
    if (threads == 1) {
      EXPECT_EQ(ran.load(), 11u);
    }
    // The pool stays usable.
    std::atomic<int> count{0};
    parallel_for(pool, 100, [&](std::size_t) { count.fetch_add(1); });
    EXPECT_EQ(count.load(), 100);
  }
}

TEST(Parallel, NestedLoopsRunInlineWithoutDeadlock) {
  ThreadPool pool(2);
  std::vector<std::atomic<int>> hits(50 * 40);
  parallel_for(pool, 50, [&](std::size_t i) {
    parallel_for(pool, 40, [&](std::size_t j) { hits[i * 40 + j].fetch_add(1); });
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(Parallel, ConcurrentCallersShareAPoolSafely) {
  ThreadPool pool(3);
  auto sum_to = [&pool](std::size_t n) {
    return parallel_reduce(
        pool, n, std::size_t{0},
        [](std::size_t b, std::size_t e) {
          std::size_t s = 0;
          for (std::size_t i = b; i < e; ++i) s += i;
          return s;
        },
        [](std::size_t a, std::size_t b) { return a + b; });
  };
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&] {
      for (std::size_t n = 1; n < 3000; n += 97)
        if (sum_to(n) != n * (n - 1) / 2) wrong.fetch_add(1);
    });
  for (auto& c : callers) c.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Parallel, ZeroThreadsMeansHardwareConcurrency) {
  ThreadPool pool(0);
  EXPECT_GE(pool.size(), 1u);
}

}  // namespace
}  // namespace lightsim
