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
  // or a directory.
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

// The whole content of `path`; errors as in ReadFile.
std::string read_whole_file(const std::filesystem::path& path, std::string_view what);

}  // namespace lightsim::detail
