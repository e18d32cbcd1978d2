// Shared helpers of the libFuzzer targets (docs/hardening.md).
//
// Contract every target checks: a parser of user input either succeeds or throws an
// InputError subclass (CLI exit code 2). Any other exception (an internal error, a
// std::out_of_range from a library, a bad_alloc from an unchecked size) is a bug: it aborts,
// and libFuzzer (or the replay driver) keeps the input that caused it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

#include "lightsim/core/error.h"

namespace lightsim::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs `parse`; returns normally when it succeeds or rejects the input as an InputError.
template <class F>
void expect_input_error_only(F&& parse) {
  try {
    parse();
  } catch (const InputError&) {
    // Rejected with a user-facing message: the expected outcome for malformed input.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: not an InputError: %s\n", e.what());
    std::abort();
  }
}

// A private scratch folder of this process (the readers under test take paths), removed at
// exit.
inline const std::filesystem::path& scratch_dir() {
  struct Scratch {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("lightsim-fuzz-" + std::to_string(::getpid()));
    Scratch() { std::filesystem::create_directories(dir); }
    ~Scratch() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  };
  static const Scratch scratch;
  return scratch.dir;
}

inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace lightsim::fuzz
