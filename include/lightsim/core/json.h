// JSON result files with deterministic bytes.
//
// dump_json prints 2-space indented JSON with a trailing newline, object keys in insertion
// order, integers exactly and doubles as the shortest text that reads back to the same double
// (always with a '.' or exponent, so they stay doubles). NaN and Inf are not JSON: they throw
// NumericError naming the JSON pointer of the value (e.g. "/runs/3/energy_pj") instead of
// silently becoming null. Strings must be valid UTF-8 (InputError otherwise).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "lightsim/core/json_fwd.h"

namespace lightsim {

std::string dump_json(const Json& document);

// dump_json(document) written atomically (see atomic_file.h).
void write_json_file(const std::filesystem::path& path, const Json& document);

// Parses a JSON file. Missing or unreadable file -> InputError; malformed content ->
// DataFormatError naming the file, line, column and byte offset.
Json read_json_file(const std::filesystem::path& path);

// Parser events between two polls of the stop flag in read_json_file(path, cancel).
inline constexpr std::uint64_t kJsonCancelPollEvents = std::uint64_t{1} << 16;

// The same, polling `cancel` (a run's stop flag: Context::cancel_flag, main's SIGINT/SIGTERM
// flag; nullptr = never) during the parse: Interrupted once it is set, within
// kJsonCancelPollEvents parser events (a large result file then stops within milliseconds,
// not after its whole parse).
Json read_json_file(const std::filesystem::path& path, const std::atomic<bool>* cancel);

}  // namespace lightsim
