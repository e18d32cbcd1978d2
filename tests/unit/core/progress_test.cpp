#include "lightsim/core/progress.h"

#include "lightsim/core/log.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace lightsim {
namespace {

using namespace std::chrono_literals;
using TimePoint = std::chrono::steady_clock::time_point;

// A progress sink writing to a string with a hand-driven clock.
struct Fixture {
  std::ostringstream out;
  TimePoint now{};
  Progress make(ProgressMode mode) {
    Progress::Options o;
    o.mode = mode;
    o.out = &out;
    o.clock = [this] { return now; };
    o.bar_width = 10;
    return Progress(o);
  }
  std::string take() {
    std::string s = out.str();
    out.str("");
    return s;
  }
};

TEST(Progress, PlainPrintsAtMostEveryFiveSecondsAndAtFinish) {
  Fixture f;
  Progress p = f.make(ProgressMode::plain);
  EXPECT_EQ(p.mode(), ProgressMode::plain);
  auto task = p.start("impairments", 5000);
  EXPECT_EQ(f.take(), "");
  f.now += 1s;
  task.advance(300);
  EXPECT_EQ(f.take(), "");
  f.now += 4s;  // t = 5 s
  task.advance(1250);
  EXPECT_EQ(f.take(), "impairments: 1550/5000 (31%) 310/s ETA 11s\n");
  f.now += 4s;  // t = 9 s: throttled
  task.advance(100);
  EXPECT_EQ(f.take(), "");
  f.now += 11s;  // t = 20 s
  task.advance(3350);
  task.finish();
  EXPECT_EQ(f.take(),
            "impairments: 5000/5000 (100%) 250/s ETA 0s\n"
            "impairments: 5000/5000 (100%) 250/s done in 20s\n");
  task.finish();  // idempotent
  EXPECT_EQ(f.take(), "");
  EXPECT_EQ(task.done(), 5000u);
}

TEST(Progress, TerminalRedrawsOneLineThrottledToTenHertz) {
  Fixture f;
  Progress p = f.make(ProgressMode::terminal);
  auto task = p.start("solve", 100);
  EXPECT_EQ(f.take(), "\rsolve [----------]   0% 0/100 0.0/s ETA ?");
  f.now += 50ms;
  task.advance(10);
  EXPECT_EQ(f.take(), "");  // within 100 ms of the last draw
  f.now += 950ms;           // t = 1 s
  task.advance(40);
  EXPECT_EQ(f.take(), "\rsolve [#####-----]  50% 50/100 50/s ETA 1s");
  f.now += 1s;
  task.advance(50);
  task.finish();
  EXPECT_EQ(f.take(),
            "\rsolve [##########] 100% 100/100 50/s ETA 0s"
            "\rsolve [##########] 100% 100/100 50/s in 2s \n");  // a blank erases the old tail
}

// A log line written while a progress line is shown erases the line, is written whole on its
// own line, and the progress line is drawn again below it.
TEST(Progress, LogLinesAreWrittenAboveTheTerminalLineNotIntoIt) {
  Fixture f;
  Progress p = f.make(ProgressMode::terminal);
  Logger log(LogLevel::info, f.out);
  log.info("before");
  EXPECT_EQ(f.take(), "[info] before\n");
  auto task = p.start("solve", 100);
  const std::string shown = "solve [----------]   0% 0/100 0.0/s ETA ?";
  EXPECT_EQ(f.take(), std::string("\r").append(shown));
  log.info("cache hit");
  std::string erased_and_redrawn = "\r";
  erased_and_redrawn.append(shown.size(), ' ').append("\r[info] cache hit\n").append(shown);
  EXPECT_EQ(f.take(), erased_and_redrawn);
  f.now += 1s;
  task.advance(100);
  task.finish();
  EXPECT_EQ(f.take(),
            "\rsolve [##########] 100% 100/100 100/s ETA 0s"
            "\rsolve [##########] 100% 100/100 100/s in 1s \n");
  log.info("after");
  EXPECT_EQ(f.take(), "[info] after\n");
}

// A task started inside a live one (a study inside `reproduce`) shares its line instead of
// drawing over it; when it finishes, the outer task's line is drawn alone again.
TEST(Progress, ATaskInsideALiveTaskSharesItsLine) {
  Fixture f;
  Progress p = f.make(ProgressMode::terminal);
  auto outer = p.start("reproduce", 2);
  const std::string outer0 = "reproduce [----------]   0% 0/2 0.0/s ETA ?";
  EXPECT_EQ(f.take(), std::string("\r").append(outer0));
  const std::string both0 = outer0 + " | context [----------]   0% 0/4 0.0/s ETA ?";
  {
    auto inner = p.start("context", 4);
    EXPECT_EQ(f.take(), std::string("\r").append(both0));
    f.now += 1s;
    inner.advance(4);
    const std::string both1 = outer0 + " | context [##########] 100% 4/4 4.0/s ETA 0s";
    EXPECT_EQ(f.take(), std::string("\r").append(both1));
    inner.finish();  // the inner task's final line is dropped: the outer one reports the run
    EXPECT_EQ(f.take(), std::string("\r").append(outer0).append(both1.size() - outer0.size(), ' '));
  }
  outer.advance(2);
  outer.finish();
  EXPECT_EQ(f.take(),
            "\rreproduce [##########] 100% 2/2 2.0/s ETA 0s"
            "\rreproduce [##########] 100% 2/2 2.0/s in 1s \n");
}

// Too wide for the terminal ($COLUMNS, read for std::cerr only, less one column): the outer
// tasks shrink to "label n/total ETA", then the inner one too (then the line is cut).
TEST(Progress, ASharedLineTooWideShowsTheOuterTasksCompactly) {
  Fixture f;
  std::streambuf* cerr_buffer = std::cerr.rdbuf(f.out.rdbuf());
  const char* columns = std::getenv("COLUMNS");
  const std::string saved = columns ? columns : "";
  {
    Progress::Options o;
    o.mode = ProgressMode::terminal;
    o.out = &std::cerr;
    o.clock = [&f] { return f.now; };
    o.bar_width = 10;
    Progress p(o);
    auto outer = p.start("reproduce", 2);
    f.take();
    ::setenv("COLUMNS", "70", 1);
    auto inner = p.start("context", 4);
    const std::string parents_compact =
        "reproduce 0/2 ETA ? | context [----------]   0% 0/4 0.0/s ETA ?";  // 63 columns
    EXPECT_EQ(f.take(), std::string("\r").append(parents_compact));
    ::setenv("COLUMNS", "60", 1);  // too narrow for that: every task compact
    f.now += 1s;
    inner.advance(1);
    const std::string all_compact = "reproduce 0/2 ETA ? | context 1/4 ETA 3s";
    EXPECT_EQ(f.take(), std::string("\r")
                            .append(all_compact)
                            .append(parents_compact.size() - all_compact.size(), ' '));
  }
  if (columns)
    ::setenv("COLUMNS", saved.c_str(), 1);
  else
    ::unsetenv("COLUMNS");
  std::cerr.rdbuf(cerr_buffer);
}

// A task that an exception ends prints no "done" line: plain mode prints nothing more, a
// terminal line is ended as it is.
TEST(Progress, ATaskEndedByAnExceptionDoesNotSayDone) {
  for (ProgressMode mode : {ProgressMode::plain, ProgressMode::terminal}) {
    Fixture f;
    Progress p = f.make(mode);
    try {
      auto task = p.start("solve", 4);
      f.take();
      throw std::runtime_error("bad input");
    } catch (const std::runtime_error&) {
    }
    EXPECT_EQ(f.take(), mode == ProgressMode::terminal ? "\n" : "");
  }
}

TEST(Progress, UnknownTotalShowsCountAndRateOnly) {
  Fixture f;
  Progress p = f.make(ProgressMode::plain);
  auto task = p.start("load", 0);
  f.now += 5s;
  task.advance(10);
  EXPECT_EQ(f.take(), "load: 10 2.0/s\n");
}

TEST(Progress, QuietWritesNothing) {
  Fixture f;
  Progress p = f.make(ProgressMode::quiet);
  {
    auto task = p.start("x", 10);
    f.now += 10s;
    task.advance(10);
  }
  EXPECT_EQ(f.take(), "");
}

TEST(Progress, DestructorFinishesAndAutomaticResolves) {
  Fixture f;
  Progress p = f.make(ProgressMode::plain);
  { auto task = p.start("x", 2); }
  EXPECT_EQ(f.take(), "x: 0/2 (0%) 0.0/s done in 0s\n");
  Progress::Options o;
  o.out = &f.out;
  EXPECT_NE(Progress(o).mode(), ProgressMode::automatic);
}

TEST(Progress, ConcurrentAdvanceCountsEveryUnit) {
  std::ostringstream out;
  Progress::Options o;
  o.mode = ProgressMode::plain;
  o.out = &out;
  o.plain_interval = std::chrono::milliseconds(0);  // draw as often as possible
  Progress p(o);
  auto task = p.start("work", 40000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) task.advance();
    });
  for (auto& t : threads) t.join();
  task.finish();
  EXPECT_EQ(task.done(), 40000u);
  EXPECT_NE(out.str().find("work: 40000/40000 (100%)"), std::string::npos);
}

TEST(Progress, FormatsRatesAndDurations) {
  EXPECT_EQ(detail::format_rate(2.04), "2.0");
  EXPECT_EQ(detail::format_rate(310.2), "310");
  EXPECT_EQ(detail::format_rate(12345), "12.3k");
  EXPECT_EQ(detail::format_rate(4.5e6), "4.5M");
  EXPECT_EQ(detail::format_duration(12.4), "12s");
  EXPECT_EQ(detail::format_duration(185), "3m05s");
  EXPECT_EQ(detail::format_duration(3720), "1h02m");
}

}  // namespace
}  // namespace lightsim
