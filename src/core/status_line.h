// The progress line drawn on a terminal stream, shared by the Progress tasks and the Loggers that
// write to that stream (core-private). A terminal is one per process, so the line is one per
// stream: a log line written while a progress line is shown erases it, is written whole, and
// the progress line is drawn again below it, so that the two never run together on one line.
//
// Tasks nest: each live task owns a slot of the line, in the order the tasks started, and the
// line shows them joined by " | " (a run of studies, then the study's own loop):
//   "reproduce 3/10 ETA 2m10s | context [#####-----]  50% 4/8 1.2/s ETA 3s"
// When the whole line would be wider than the terminal (less one column), every slot but the
// last is shown in its compact form ("reproduce 3/10 ETA 2m10s"), then every slot, and the line
// is then cut to fit.
#pragma once

#include <cstddef>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace lightsim::detail {

class StatusLine {
 public:
  // The status line of `out` (created on first use; lives until the process ends).
  static StatusLine& of(const std::ostream* out);

  // What a task shows: its full line and a compact form used while an inner task is shown.
  struct Text {
    std::string full;
    std::string compact;
  };

  // Sets the slot of `owner` (a new slot goes last) and redraws the line ('\r' first, blanks
  // over a longer old line; no newline) at most `width` columns wide (0: no limit; kept for
  // the redraws that follow).
  void draw(std::ostream& out, const void* owner, const Text& text, std::size_t width);
  // The task `owner` finished with `line`. Alone on the line: the line becomes `line`, ended by
  // '\n'. With other tasks live: an outermost task's `line` is written above the line, an
  // inner task's is dropped (its parent reports the run), and its slot is removed.
  void finish(std::ostream& out, const void* owner, const std::string& line);
  // The task `owner` stopped without a final figure: alone, the line is ended as it is ('\n');
  // with other tasks live, its slot is removed.
  void end_line(std::ostream& out, const void* owner);
  // Writes `text` (whole lines, each ending in '\n') above the shown line, if any: the line is
  // erased, `text` written, and the line drawn again. Writes are never interleaved.
  void write_above(std::ostream& out, std::string_view text);

  // The line shown for `slots` at `width` columns (0: no limit): the rule of the file comment.
  static std::string compose(const std::vector<Text>& slots, std::size_t width);

 private:
  struct Slot {
    const void* owner;
    Text text;
  };
  void redraw_locked(std::ostream& out);
  void remove_locked(const void* owner);

  std::mutex mutex_;
  std::vector<Slot> slots_;
  std::string shown_;      // the line on screen now; empty when none
  std::size_t width_ = 0;  // of the last draw
};

// Columns of the terminal: $COLUMNS when set to a positive number, else stderr's (TIOCGWINSZ),
// else 0 (unknown: no limit).
std::size_t terminal_width();

}  // namespace lightsim::detail
