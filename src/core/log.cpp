#include "lightsim/core/log.h"

#include <string>

#include "core/status_line.h"
#include "lightsim/core/error.h"

namespace lightsim {

std::string_view to_string(LogLevel level) {
  switch (level) {
    case LogLevel::error:
      return "error";
    case LogLevel::warn:
      return "warn";
    case LogLevel::info:
      return "info";
    case LogLevel::debug:
      return "debug";
  }
  return "?";
}

LogLevel parse_log_level(std::string_view name) {
  for (LogLevel l : {LogLevel::error, LogLevel::warn, LogLevel::info, LogLevel::debug})
    if (name == to_string(l)) return l;
  LIGHTSIM_THROW(ConfigError, "unknown log level '{}' (expected error, warn, info or debug)", name);
}

void Logger::write(LogLevel level, std::string_view message) {
  const std::string line = fmt::format("[{}] {}\n", to_string(level), message);
  std::lock_guard lock(mutex_);
  // Above a progress line on the same stream, never run into it.
  detail::StatusLine::of(out_).write_above(*out_, line);
}

}  // namespace lightsim
