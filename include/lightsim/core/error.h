// lightsim error types and the checking macros every module uses.
//
// Contract: library code reports failure by throwing one of these types and never calls
// exit/abort/assert on user input. Only `main` maps them to exit codes:
//   InputError and its subclasses (bad config, unit, usage, missing file)  -> exit 2
//   std::bad_alloc and OutOfMemory (an input too large for the memory)     -> exit 2
//   Interrupted (SIGINT/SIGTERM asked the run to stop)                     -> exit 130
//   every other Error (internal invariant, numeric fault, I/O failure)     -> exit 1
#pragma once

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace lightsim {

// Root of every exception lightsim throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The user gave us something we cannot accept (CLI exit code 2).
class InputError : public Error {
 public:
  using Error::Error;
};
// A config file or value is wrong: unknown key, wrong type, out of range.
class ConfigError : public InputError {
 public:
  using InputError::InputError;
};
// No config of that name: a preset, a reference or a shipped config named in a file, a flag
// or a call (config::find_named). The message names the roots searched and the closest names.
class ConfigNotFound : public ConfigError {
 public:
  using ConfigError::ConfigError;
};
// A quantity string has a missing, unknown or wrong-dimension unit.
class UnitError : public InputError {
 public:
  using InputError::InputError;
};
// The command line is wrong.
class UsageError : public InputError {
 public:
  using InputError::InputError;
};
// A data file (.npy, manifest, ...) is missing, malformed or of the wrong shape/dtype.
class DataFormatError : public InputError {
 public:
  using InputError::InputError;
};
// An allocation failed (std::bad_alloc) although the up-front estimates (memory_budget.h)
// passed: the input asks for more memory than the process can get, e.g. under `ulimit -v` with
// an explicit --memory-budget above it. Bad input, not a bug: exit 2, Python's
// lightsim.OutOfMemory (also a MemoryError). Message: out_of_memory_message (out_of_memory.h).
class OutOfMemory : public InputError {
 public:
  using InputError::InputError;
};

// Reading or writing a file failed for a reason other than its content (disk full, permission).
class IoError : public Error {
 public:
  using Error::Error;
};
// A NaN or Inf appeared where a finite number is required.
class NumericError : public Error {
 public:
  using Error::Error;
};
// The run was asked to stop (SIGINT/SIGTERM) and stopped between work items; whatever had
// finished was kept (Context::throw_if_cancelled).
class Interrupted : public Error {
 public:
  using Error::Error;
};
// A broken internal invariant: a bug in lightsim, not in the input.
class InternalError : public Error {
 public:
  using Error::Error;
};

namespace detail {
[[noreturn]] void throw_internal(const char* file, int line, const char* condition,
                                 const std::string& message);
}  // namespace detail

}  // namespace lightsim

// LIGHTSIM_THROW(Type, "format {}", args...): throw a lightsim::Type with a formatted message.
#define LIGHTSIM_THROW(Type, ...) throw ::lightsim::Type(::fmt::format(__VA_ARGS__))

// LIGHTSIM_CHECK_AS(Type, cond, "format {}", args...): throw Type unless cond holds.
#define LIGHTSIM_CHECK_AS(Type, cond, ...) \
  do {                                     \
    if (!(cond)) [[unlikely]]              \
      LIGHTSIM_THROW(Type, __VA_ARGS__);   \
  } while (false)

// LIGHTSIM_CHECK(cond, "format {}", args...): an internal invariant. Throws InternalError
// naming the source location and the failed condition.
#define LIGHTSIM_CHECK(cond, ...)                                                                \
  do {                                                                                           \
    if (!(cond)) [[unlikely]]                                                                    \
      ::lightsim::detail::throw_internal(__FILE__, __LINE__, #cond, ::fmt::format(__VA_ARGS__)); \
  } while (false)
