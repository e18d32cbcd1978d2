// Crash-safe file output: results appear whole or not at all.
//
// AtomicFile writes into a temporary file in the target's directory (so the final rename
// never crosses a file system), flushes and fsyncs it, and `commit()` renames it over the
// target, then fsyncs the directory. Readers see either the old file or the complete new one;
// an interrupted run leaves at most a stray hidden temp file, never a truncated result.
//
//   AtomicFile out("results/run.json");
//   out.write(text);
//   out.commit();   // without this the destructor deletes the temp file
//
// Every failure throws IoError naming the path and the OS reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

namespace lightsim {

class AtomicFile {
 public:
  // Creates the temp file `.<name>.<random>.tmp` next to `target` (mode 0666 less umask).
  // The target's directory must exist.
  explicit AtomicFile(std::filesystem::path target);
  // Without a successful commit(), closes and removes the temp file; never throws.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends bytes to the temp file.
  void write(std::string_view bytes);
  void write(const void* data, std::size_t size);
  // Flushes, fsyncs, closes and renames the temp file over the target. Call at most once.
  void commit();

  const std::filesystem::path& target() const { return target_; }
  const std::filesystem::path& temp_path() const { return temp_; }

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes `content` to `path` atomically (see AtomicFile).
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// Free space prepare_output_dir requires on the output file system (1 MiB: study results and
// reports are far smaller; larger outputs still fail cleanly at write time with an IoError and
// leave no partial file).
inline constexpr std::uint64_t kMinFreeOutputBytes = std::uint64_t{1} << 20;

// Creates `dir` (with parents) if needed and proves it writable by creating and removing a
// probe file, and checks it has kMinFreeOutputBytes free. Throws InputError "output directory
// 'X' is not writable: <reason>" or "... is on a full file system: ..." otherwise.
// Call before starting work so a bad output path fails fast.
void prepare_output_dir(const std::filesystem::path& dir);

}  // namespace lightsim
