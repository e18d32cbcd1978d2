// Private helpers shared by the file I/O sources of lightsim::core (not a public header).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace lightsim::detail {

// The OS description of an errno value ("No such file or directory").
std::string errno_message(int error_number);

// A file opened read-only; closed by the destructor.
class ReadFile {
 public:
  // Opens `path`. Throws InputError naming `what` and the path if it is missing, unreadable
  // or not a regular file (a folder, a device such as /dev/zero, a FIFO, a socket); opening
  // never blocks on a FIFO.
  ReadFile(const std::filesystem::path& path, std::string_view what);
  ~ReadFile();
  ReadFile(const ReadFile&) = delete;
  ReadFile& operator=(const ReadFile&) = delete;

  // Size of the file in bytes at open time.
  std::uint64_t size() const { return size_; }
  // Reads up to `count` bytes; returns fewer only at end of file. Throws IoError on failure.
  std::size_t read(void* buffer, std::size_t count);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

}  // namespace lightsim::detail
