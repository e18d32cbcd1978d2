// The shared progress line of a terminal stream (src/core/status_line.h).
#include "core/status_line.h"

#include <algorithm>
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

}  // namespace

StatusLine& StatusLine::of(const std::ostream* out) {
  static std::mutex registry_mutex;
  static std::map<const std::ostream*, std::unique_ptr<StatusLine>> lines;
  std::lock_guard lock(registry_mutex);
  auto& line = lines[out];
  if (!line) line = std::make_unique<StatusLine>();
  return *line;
}

void StatusLine::draw(std::ostream& out, const std::string& line) {
  std::lock_guard lock(mutex_);
  const std::string text = redraw(line, shown_);
  shown_ = line;
  write_all(out, text);
}

void StatusLine::finish(std::ostream& out, const std::string& line) {
  std::lock_guard lock(mutex_);
  std::string text = redraw(line, shown_);
  text += '\n';
  shown_.clear();
  write_all(out, text);
}

void StatusLine::end_line(std::ostream& out) {
  std::lock_guard lock(mutex_);
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
