// Progress reporting for long loops. Owned by a Context; never global.
//
//   auto task = ctx.progress().start("impairments", 5000);
//   parallel_for(ctx, 5000, [&](std::size_t i) { ...; task.advance(); });
//   task.finish();
//
// Modes:
//   terminal  one line redrawn with '\r' at most every terminal_interval (100 ms):
//             "impairments [#########---------------------]  30% 1500/5000 310/s ETA 11s"
//             and at finish the same line with "in 16s" instead of the ETA, then '\n'.
//   plain     a line at most every plain_interval (5 s) and one at finish, for logs and CI:
//             "impairments: 1200/5000 (24%) 310/s ETA 12s"
//             "impairments: 5000/5000 (100%) 312/s done in 16s"
//   quiet     nothing.
//   automatic terminal if stderr is a TTY (isatty(2)), else plain.
// A total of 0 means unknown: percent, bar and ETA are left out.
// In terminal mode a task started while another is live shares its line, after it:
//   "reproduce 3/10 ETA 2m10s | context [#####-----]  50% 4/8 1.2/s ETA 3s"
// (the outer tasks shortened to "label n/total ETA" when the line is wider than $COLUMNS or the
// terminal on stderr), and its final line is left out: the outer task reports the run.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <ostream>
#include <string>

namespace lightsim {

enum class ProgressMode { automatic, terminal, plain, quiet };

class ProgressTask;

class Progress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  struct Options {
    ProgressMode mode = ProgressMode::automatic;
    std::ostream* out = &std::cerr;  // not owned; must outlive every task
    Clock clock = [] { return std::chrono::steady_clock::now(); };
    std::chrono::milliseconds terminal_interval{100};
    std::chrono::milliseconds plain_interval{5000};
    int bar_width = 30;
  };

  Progress() : Progress(Options{}) {}
  explicit Progress(Options options);

  ProgressMode mode() const { return options_.mode; }  // never `automatic`
  // Starts a task of `total` units (0 = unknown).
  ProgressTask start(std::string label, std::uint64_t total);

 private:
  Options options_;
};

// Handle of a running task. advance() and finish() are thread-safe; the destructor finishes,
// except while an exception unwinds the stack: then no final line is printed (the task did not
// finish) and a terminal line is only ended, so the error starts a line of its own.
// A moved-from handle ignores every call.
class ProgressTask {
 public:
  ProgressTask(ProgressTask&&) noexcept = default;
  ProgressTask& operator=(ProgressTask&&) noexcept = default;
  ~ProgressTask();

  void advance(std::uint64_t n = 1);
  // Prints the final line (once; later calls do nothing).
  void finish();
  std::uint64_t done() const;

 private:
  friend class Progress;
  struct State;
  explicit ProgressTask(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

namespace detail {
// "310", "12.3k", "4.5M" (rates, counts); "12s", "3m05s", "1h02m" (durations).
std::string format_rate(double per_second);
std::string format_duration(double seconds);
}  // namespace detail

}  // namespace lightsim
