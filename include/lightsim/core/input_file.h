// Reading a whole input file, bounded: every reader of user files goes through here, so a
// device (/dev/zero), a FIFO, a socket or a folder is refused before anything is read, and a
// file larger than its stated cap is refused before it is loaded into memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace lightsim {

// Caps in bytes of the files lightsim reads whole (docs/hardening.md, "Limits").
// A config document (YAML, or JSON such as a Hugging Face config.json): the largest shipped
// config is under 3 KiB.
inline constexpr std::uint64_t kMaxConfigFileBytes = std::uint64_t{1} << 20;  // 1 MiB
// A JSON data file read whole (KV manifest, study result, run manifest).
inline constexpr std::uint64_t kMaxJsonFileBytes = std::uint64_t{64} << 20;  // 64 MiB
// A sweep's JSON-lines result store.
inline constexpr std::uint64_t kMaxSweepStoreBytes = std::uint64_t{1} << 30;  // 1 GiB

// The whole content of `path` (`what` names it in messages: "config file", "JSON file").
// InputError naming `what` and the path when it is missing or unreadable, is not a regular
// file, or holds more than `max_bytes` (the message states the cap); IoError if reading fails.
std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes);

// FNV-1a 64 (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325, prime 0x100000001b3) of
// `bytes`, continuing from `state` (so a long input can be hashed in pieces). Not
// cryptographic: it tells files apart, it does not resist tampering.
inline constexpr std::uint64_t kFnv1aOffset = 0xcbf29ce484222325ULL;
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t state = kFnv1aOffset);

// "fnv1a64:<16 hex digits>" of the whole content of `path`, read in chunks (any size). Errors
// as in read_input_file, without a cap.
std::string file_content_hash(const std::filesystem::path& path, std::string_view what);

// "1 MiB", "64 MiB", "1.5 GiB": a byte count for messages (binary prefixes, 3 significant
// digits).
std::string format_bytes(std::uint64_t bytes);

}  // namespace lightsim
