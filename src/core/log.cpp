#include "lightsim/core/log.h"

#include <string>

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
  std::string line = fmt::format("[{}] {}\n", to_string(level), message);
  std::lock_guard lock(mutex_);
  out_->write(line.data(), static_cast<std::streamsize>(line.size()));
  out_->flush();
}

}  // namespace lightsim
