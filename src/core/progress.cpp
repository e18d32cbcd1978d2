#include "lightsim/core/progress.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>

#include <fmt/format.h>

#include "core/status_line.h"

namespace lightsim {

using Clock = std::chrono::steady_clock;
using detail::StatusLine;

namespace detail {

std::string format_rate(double v) {
  if (v < 10) return fmt::format("{:.1f}", v);
  if (v < 1e3) return fmt::format("{:.0f}", v);
  if (v < 1e6) return fmt::format("{:.1f}k", v / 1e3);
  if (v < 1e9) return fmt::format("{:.1f}M", v / 1e6);
  return fmt::format("{:.1f}G", v / 1e9);
}

std::string format_duration(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

}  // namespace detail

struct ProgressTask::State {
  Progress::Options options;
  std::string label;
  std::uint64_t total = 0;
  Clock::time_point started;
  std::atomic<std::uint64_t> done{0};
  std::atomic<Clock::rep> next_due{0};  // clock ticks; no redraw before
  std::mutex mutex;                     // guards rendering and finished
  bool finished = false;

  Clock::duration interval() const {
    return options.mode == ProgressMode::terminal ? Clock::duration(options.terminal_interval)
                                                  : Clock::duration(options.plain_interval);
  }

  // The terminal's width when the line goes to std::cerr; another stream's is unknown (no
  // limit).
  std::size_t line_width() const {
    return options.out == &std::cerr ? detail::terminal_width() : 0;
  }

  // Call with `mutex` held.
  void render(Clock::time_point now, bool final) {
    const std::uint64_t n = done.load(std::memory_order_relaxed);
    const double elapsed = std::chrono::duration<double>(now - started).count();
    const double rate = elapsed > 0 ? static_cast<double>(n) / elapsed : 0.0;
    const bool known = total > 0;
    const std::uint64_t pct = known ? std::min<std::uint64_t>(100, n * 100 / total) : 0;
    std::string tail;
    if (final) {
      tail = fmt::format("{}in {}", options.mode == ProgressMode::plain ? "done " : "",
                         detail::format_duration(elapsed));
    } else if (known) {
      const std::uint64_t left = total > n ? total - n : 0;
      tail = rate > 0 ? "ETA " + detail::format_duration(static_cast<double>(left) / rate)
                      : std::string("ETA ?");
    }
    const std::string count = known ? fmt::format("{}/{}", n, total) : fmt::format("{}", n);
    const std::string speed = detail::format_rate(rate) + "/s";
    std::string line;
    if (options.mode == ProgressMode::terminal) {
      line = label;
      if (known) {
        const auto width = static_cast<std::uint64_t>(std::max(options.bar_width, 1));
        const std::uint64_t filled = std::min(width, n * width / total);
        line += fmt::format(" [{}{}] {:3}%", std::string(filled, '#'),
                            std::string(width - filled, '-'), pct);
      }
      line += fmt::format(" {} {}{}{}", count, speed, tail.empty() ? "" : " ", tail);
    } else {
      line = fmt::format("{}: {}", label, count);
      if (known) line += fmt::format(" ({}%)", pct);
      line += fmt::format(" {}{}{}\n", speed, tail.empty() ? "" : " ", tail);
    }
    // Through the stream's status line, so that log lines are written above a terminal line
    // and a task started inside another shares the line with it (status_line.h).
    StatusLine& status = StatusLine::of(options.out);
    if (options.mode != ProgressMode::terminal)
      status.write_above(*options.out, line);
    else if (final)
      status.finish(*options.out, this, line);
    else
      status.draw(*options.out, this,
                  {line, fmt::format("{} {}{}{}", label, count, tail.empty() ? "" : " ", tail)},
                  line_width());
  }
};

Progress::Progress(Options options) : options_(std::move(options)) {
  if (options_.mode == ProgressMode::automatic)
    options_.mode = ::isatty(2) != 0 ? ProgressMode::terminal : ProgressMode::plain;
}

ProgressTask Progress::start(std::string label, std::uint64_t total) {
  auto state = std::make_shared<ProgressTask::State>();
  state->options = options_;
  state->label = std::move(label);
  state->total = total;
  state->started = options_.clock();
  if (options_.mode == ProgressMode::terminal) {
    std::lock_guard lock(state->mutex);
    state->render(state->started, false);
  }
  state->next_due.store((state->started + state->interval()).time_since_epoch().count());
  return ProgressTask(std::move(state));
}

ProgressTask::~ProgressTask() {
  if (!state_) return;
  if (std::uncaught_exceptions() == 0) {
    finish();
    return;
  }
  // Unwinding: the task did not finish, so no "done" line; a terminal line is ended as it is,
  // so the error message starts a line of its own.
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  if (s.finished) return;
  s.finished = true;
  if (s.options.mode == ProgressMode::terminal)
    StatusLine::of(s.options.out).end_line(*s.options.out, &s);
}

std::uint64_t ProgressTask::done() const {
  return state_ ? state_->done.load(std::memory_order_relaxed) : 0;
}

void ProgressTask::advance(std::uint64_t n) {
  if (!state_) return;  // moved-from handle
  State& s = *state_;
  s.done.fetch_add(n, std::memory_order_relaxed);
  if (s.options.mode == ProgressMode::quiet) return;
  const Clock::time_point now = s.options.clock();
  if (now.time_since_epoch().count() < s.next_due.load(std::memory_order_relaxed)) return;
  std::unique_lock lock(s.mutex, std::try_to_lock);  // another thread is drawing: skip
  if (!lock.owns_lock() || s.finished) return;
  if (now.time_since_epoch().count() < s.next_due.load(std::memory_order_relaxed)) return;
  s.render(now, false);
  s.next_due.store((now + s.interval()).time_since_epoch().count(), std::memory_order_relaxed);
}

void ProgressTask::finish() {
  if (!state_) return;
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  if (s.finished) return;
  s.finished = true;
  if (s.options.mode != ProgressMode::quiet) s.render(s.options.clock(), true);
}

}  // namespace lightsim
