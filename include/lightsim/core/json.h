// JSON result files with deterministic bytes.
//
// dump_json prints 2-space indented JSON with a trailing newline, object keys in insertion
// order, integers exactly and doubles as the shortest text that reads back to the same double
// (always with a '.' or exponent, so they stay doubles). NaN and Inf are not JSON: they throw
// NumericError naming the JSON pointer of the value (e.g. "/runs/3/energy_pj") instead of
// silently becoming null. Strings must be valid UTF-8 (InputError otherwise).
#pragma once

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

}  // namespace lightsim
