// run_sweep with a synthetic target: thread-count independence, errors, interruption, resume.
#include <gtest/gtest.h>

#include <atomic>

#include "lightsim/core/json.h"
#include "lightsim/sweep/run.h"
#include "scratch_dir.h"

namespace lightsim::sweep {
namespace {

using lightsim::testing::read_bytes;
using lightsim::testing::scratch_dir;

// Draws from the point context's stream, optionally failing at one point or raising the stop
// flag once `stop_after` points have run.
class DrawTarget final : public Target {
 public:
  std::size_t fail_at = ~std::size_t{0};
  std::atomic<bool>* stop = nullptr;
  std::size_t stop_after = 0;
  mutable std::atomic<std::size_t> runs{0};

  std::string fingerprint() const override { return "draw"; }
  void check(const Point&, std::uint64_t) const override {}
  Json run(const Point& p, Context& ctx) const override {
    if (p.index == fail_at) LIGHTSIM_THROW(ConfigError, "bad value at {}", p.index);
    if (stop != nullptr && ++runs >= stop_after) stop->store(true);
    RandomStream s = ctx.stream(p.index);
    return {{"draw", s.uniform()}, {"x", std::stod(p.values[0])}};
  }
};

SweepSpec grid_spec(std::size_t n) {
  SweepSpec spec;
  spec.name = "t";
  spec.target = "prism_cost";
  AxisSpec axis;
  axis.key = "x";
  for (std::size_t i = 0; i < n; ++i) axis.values.push_back(std::to_string(i));
  spec.grid.push_back(axis);
  return spec;
}

std::string run_store(const std::filesystem::path& out, std::size_t threads, std::size_t batch,
                      DrawTarget& target, bool resume = false,
                      const std::atomic<bool>* cancel = nullptr) {
  const SweepSpec spec = grid_spec(40);
  const auto points = expand(spec);
  ContextOptions co;
  co.seed = 5;
  co.threads = threads;
  co.progress.mode = ProgressMode::quiet;
  co.cancel = cancel;
  Context ctx(co);
  SingleProcess comm;
  SweepOptions o;
  o.out = out;
  o.resume = resume;
  o.batch = batch;
  o.cancel = cancel;
  (void)run_sweep(spec, store_header(spec, "spec", target, points.size(), 5), target, points, o,
                  ctx, comm);
  return read_bytes(out / "t.jsonl");
}

TEST(RunSweep, StoreIsTheSameForAnyThreadCountAndBatch) {
  const auto dir = scratch_dir();
  DrawTarget t;
  const std::string one = run_store(dir / "a", 1, 0, t);
  EXPECT_EQ(run_store(dir / "b", 3, 0, t), one);
  EXPECT_EQ(run_store(dir / "c", 2, 7, t), one);
  EXPECT_EQ(std::count(one.begin(), one.end(), '\n'), 41);
}

TEST(RunSweep, AFailingPointStopsTheSweepNamingItAndKeepsFinishedOnes) {
  const auto dir = scratch_dir();
  DrawTarget t;
  t.fail_at = 13;
  try {
    run_store(dir, 2, 4, t);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("point 13 (x=13): bad value at 13"), std::string::npos)
        << e.what();
  }
  const std::string text = read_bytes(dir / "t.jsonl");
  EXPECT_GE(std::count(text.begin(), text.end(), '\n'), 13);  // header + points 0..11 at least
}

TEST(RunSweep, InterruptedSweepResumesToTheSameStore) {
  const auto dir = scratch_dir();
  DrawTarget reference;
  const std::string want = run_store(dir / "ref", 2, 4, reference);

  std::atomic<bool> stop{false};
  DrawTarget t;
  t.stop = &stop;
  t.stop_after = 10;
  try {
    run_store(dir / "cut", 2, 4, t, false, &stop);
    FAIL() << "not interrupted";
  } catch (const Interrupted& e) {
    EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos) << e.what();
  }
  const std::string partial = read_bytes(dir / "cut" / "t.jsonl");
  const auto stored = std::count(partial.begin(), partial.end(), '\n') - 1;
  EXPECT_GE(stored, 10);
  EXPECT_LT(stored, 40);

  DrawTarget again;
  const std::string resumed = run_store(dir / "cut", 2, 4, again, true);
  EXPECT_EQ(resumed, want);
}

TEST(RunSweep, ResumeRunsOnlyThePendingPoints) {
  const auto dir = scratch_dir();
  DrawTarget first;
  const std::string want = run_store(dir, 1, 0, first);
  std::atomic<bool> never{false};
  DrawTarget second;
  second.stop = &never;
  second.stop_after = ~std::size_t{0};
  EXPECT_EQ(run_store(dir, 1, 0, second, true), want);
  EXPECT_EQ(second.runs.load(), 0u);
}

}  // namespace
}  // namespace lightsim::sweep
