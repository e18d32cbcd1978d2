// The shared progress line of a terminal stream (src/core/status_line.h).
#include "core/status_line.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>

namespace lightsim::detail {
namespace {

// "\r" + line + blanks over what is left of `old` (GCC 12 misreads "\r" + line as an
// overlapping copy under -Wrestrict, hence the appends).
std::string redraw(const std::string& line, const std::string& old) {
  std::string text;
  text.reserve(1 + std::max(line.size(), old.size()));
  text += '\r';
  text += line;
  if (line.size() < old.size()) text.append(old.size() - line.size(), ' ');
  return text;
}

void write_all(std::ostream& out, std::string_view text) {
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
}

// The slots joined by " | ": the first `compact` of them in their compact form.
std::string join(const std::vector<StatusLine::Text>& slots, std::size_t compact) {
  std::string line;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (i > 0) line += " | ";
    line += i < compact ? slots[i].compact : slots[i].full;
  }
  return line;
}

}  // namespace

std::size_t terminal_width() {
  // $COLUMNS first, as GNU ls reads it: a user (or a test) can set the width.
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0 && n < 100000) return static_cast<std::size_t>(n);
  }
  winsize w{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 0;
}

std::string StatusLine::compose(const std::vector<Text>& slots, std::size_t width) {
  // One column is left free: a line that fills the last column wraps on some terminals.
  const std::size_t fits = width > 1 ? width - 1 : width;
  std::string line = join(slots, 0);
  if (width == 0 || line.size() <= fits) return line;
  line = join(slots, slots.empty() ? 0 : slots.size() - 1);
  if (line.size() <= fits) return line;
  line = join(slots, slots.size());
  if (line.size() > fits) line.resize(fits);
  return line;
}

StatusLine& StatusLine::of(const std::ostream* out) {
  static std::mutex registry_mutex;
  static std::map<const std::ostream*, std::unique_ptr<StatusLine>> lines;
  std::lock_guard lock(registry_mutex);
  auto& line = lines[out];
  if (!line) line = std::make_unique<StatusLine>();
  return *line;
}

void StatusLine::redraw_locked(std::ostream& out) {
  std::vector<Text> texts;
  texts.reserve(slots_.size());
  for (const Slot& s : slots_) texts.push_back(s.text);
  const std::string line = compose(texts, width_);
  const std::string text = redraw(line, shown_);
  shown_ = line;
  write_all(out, text);
}

void StatusLine::remove_locked(const void* owner) {
  slots_.erase(
      std::remove_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.owner == owner; }),
      slots_.end());
}

void StatusLine::draw(std::ostream& out, const void* owner, const Text& text, std::size_t width) {
  std::lock_guard lock(mutex_);
  width_ = width;
  auto it =
      std::find_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.owner == owner; });
  if (it == slots_.end())
    slots_.push_back({owner, text});
  else
    it->text = text;
  redraw_locked(out);
}

void StatusLine::finish(std::ostream& out, const void* owner, const std::string& line) {
  std::lock_guard lock(mutex_);
  const bool outermost = !slots_.empty() && slots_.front().owner == owner;
  remove_locked(owner);
  if (slots_.empty()) {
    std::string text = redraw(line, shown_);
    text += '\n';
    shown_.clear();
    write_all(out, text);
    return;
  }
  if (outermost) {
    std::string all = redraw(line, shown_);
    all += '\n';
    shown_.clear();
    write_all(out, all);
  }
  redraw_locked(out);
}

void StatusLine::end_line(std::ostream& out, const void* owner) {
  std::lock_guard lock(mutex_);
  remove_locked(owner);
  if (!slots_.empty()) {
    redraw_locked(out);
    return;
  }
  if (shown_.empty()) return;
  shown_.clear();
  write_all(out, "\n");
}

void StatusLine::write_above(std::ostream& out, std::string_view text) {
  std::lock_guard lock(mutex_);
  if (shown_.empty()) {
    write_all(out, text);
    return;
  }
  std::string all = redraw("", shown_);
  all += '\r';
  all += text;
  all += shown_;
  write_all(out, all);
}

}  // namespace lightsim::detail
