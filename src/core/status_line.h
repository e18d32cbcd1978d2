// The progress line drawn on a terminal stream, shared by the Progress tasks and the Loggers that
// write to that stream (core-private). A terminal is one per process, so the line is one per
// stream: a log line written while a progress line is shown erases it, is written whole, and
// the progress line is drawn again below it, so that the two never run together on one line.
#pragma once

#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

namespace lightsim::detail {

class StatusLine {
 public:
  // The status line of `out` (created on first use; lives until the process ends).
  static StatusLine& of(const std::ostream* out);

  // Replaces the shown line by `line` (no newline; '\r' first, blanks over a longer old line).
  void draw(std::ostream& out, const std::string& line);
  // Replaces the shown line by `line` and ends it with '\n': nothing is shown afterwards.
  void finish(std::ostream& out, const std::string& line);
  // Ends the shown line as it is ('\n'), if any: a task that stops without a final figure.
  void end_line(std::ostream& out);
  // Writes `text` (whole lines, each ending in '\n') above the shown line, if any: the line is
  // erased, `text` written, and the line drawn again. Writes are never interleaved.
  void write_above(std::ostream& out, std::string_view text);

 private:
  std::mutex mutex_;
  std::string shown_;  // the line on screen now; empty when none
};

}  // namespace lightsim::detail
