#include "lightsim/core/context.h"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lightsim/core/error.h"

namespace lightsim {
namespace {

TEST(Log, FiltersByLevelAndWritesWholeLines) {
  std::ostringstream out;
  Logger log(LogLevel::warn, out);
  log.error("disk {}", "full");
  log.warn("{} rings", 3);
  log.info("hidden");
  log.debug("hidden");
  EXPECT_EQ(out.str(), "[error] disk full\n[warn] 3 rings\n");
  log.set_level(LogLevel::debug);
  log.debug("now {}", "visible");
  EXPECT_EQ(out.str(), "[error] disk full\n[warn] 3 rings\n[debug] now visible\n");
}

TEST(Log, ParsesLevelNames) {
  EXPECT_EQ(parse_log_level("debug"), LogLevel::debug);
  EXPECT_EQ(parse_log_level("error"), LogLevel::error);
  EXPECT_THROW(parse_log_level("verbose"), ConfigError);
}

TEST(Log, LinesFromManyThreadsNeverInterleave) {
  std::ostringstream out;
  Logger log(LogLevel::info, out);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&log, t] {
      for (int i = 0; i < 500; ++i) log.info("thread {} line {} end", t, i);
    });
  for (auto& t : threads) t.join();
  std::istringstream in(out.str());
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    ASSERT_EQ(line.rfind("[info] thread ", 0), 0u) << line;
    ASSERT_EQ(line.substr(line.size() - 4), " end") << line;
  }
  EXPECT_EQ(lines, 2000);
}

TEST(Context, OwnsSeedThreadsLoggerProgressAndPool) {
  std::ostringstream log_out, progress_out;
  ContextOptions o;
  o.seed = 77;
  o.threads = 2;
  o.log_stream = &log_out;
  o.progress.mode = ProgressMode::quiet;
  o.progress.out = &progress_out;
  Context ctx(o);
  EXPECT_EQ(ctx.seed(), 77u);
  EXPECT_EQ(ctx.threads(), 2u);
  ctx.log().info("hello {}", 1);
  EXPECT_EQ(log_out.str(), "[info] hello 1\n");
  EXPECT_EQ(ctx.progress().mode(), ProgressMode::quiet);

  std::vector<float> a(16), b(16);
  ctx.stream(1, 2u, std::size_t{3}).fill_normal(std::span<float>(a));
  RandomStream(77, {1, 2, 3}).fill_normal(std::span<float>(b));
  EXPECT_EQ(a, b);

  std::atomic<int> hits{0};
  parallel_for(ctx, 100, [&](std::size_t) { hits.fetch_add(1); });
  EXPECT_EQ(hits.load(), 100);
  const int total = parallel_reduce(
      ctx, 10, 0, [](std::size_t b0, std::size_t e0) { return static_cast<int>(e0 - b0); },
      [](int x, int y) { return x + y; }, 3);
  EXPECT_EQ(total, 10);
}

}  // namespace
}  // namespace lightsim
