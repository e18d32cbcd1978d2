// Leveled, thread-safe logging to an injectable stream. Owned by a Context; never global.
#pragma once

#include <atomic>
#include <iostream>
#include <mutex>
#include <ostream>
#include <string_view>

#include <fmt/format.h>

namespace lightsim {

// Ordered by verbosity: a logger at level L writes messages of level <= L.
enum class LogLevel { error = 0, warn = 1, info = 2, debug = 3 };

std::string_view to_string(LogLevel level);
// "error", "warn", "info" or "debug"; throws ConfigError otherwise.
LogLevel parse_log_level(std::string_view name);

class Logger {
 public:
  // `out` is not owned and must outlive the logger.
  explicit Logger(LogLevel level = LogLevel::info, std::ostream& out = std::cerr)
      : level_(level), out_(&out) {}
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  LogLevel level() const { return level_.load(std::memory_order_relaxed); }
  void set_level(LogLevel level) { level_.store(level, std::memory_order_relaxed); }
  bool enabled(LogLevel level) const { return level <= this->level(); }

  // Writes "[level] message\n" as one unit (lines from different threads never interleave).
  void write(LogLevel level, std::string_view message);

  template <typename... Args>
  void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
    if (enabled(level)) write(level, fmt::format(format, std::forward<Args>(args)...));
  }
  template <typename... Args>
  void error(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::error, format, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void warn(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::warn, format, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void info(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::info, format, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void debug(fmt::format_string<Args...> format, Args&&... args) {
    log(LogLevel::debug, format, std::forward<Args>(args)...);
  }

 private:
  std::atomic<LogLevel> level_;
  std::ostream* out_;
  std::mutex mutex_;
};

}  // namespace lightsim
