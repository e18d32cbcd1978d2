#include "core/posix_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <system_error>
#include <vector>

#include "lightsim/core/error.h"
#include "lightsim/core/input_file.h"

namespace lightsim::detail {

std::string errno_message(int error_number) {
  return std::system_category().message(error_number);
}

ReadFile::ReadFile(const std::filesystem::path& path, std::string_view what) : path_(path) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once (it is refused below);
  // reads of a regular file ignore the flag.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) {
    LIGHTSIM_THROW(InputError, "cannot open {} '{}': {}", what, path.string(),
                   errno_message(errno));
  }
  struct stat info {};
  if (::fstat(fd_, &info) != 0) {
    int err = errno;
    ::close(fd_);
    LIGHTSIM_THROW(IoError, "cannot stat {} '{}': {}", what, path.string(), errno_message(err));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    const char* type = S_ISDIR(info.st_mode)    ? "a directory"
                       : S_ISFIFO(info.st_mode) ? "a FIFO"
                       : S_ISCHR(info.st_mode)  ? "a character device"
                       : S_ISBLK(info.st_mode)  ? "a block device"
                       : S_ISSOCK(info.st_mode) ? "a socket"
                                                : "not a regular file";
    LIGHTSIM_THROW(InputError, "cannot open {} '{}': it is {} (expected a regular file)", what,
                   path.string(), type);
  }
  size_ = static_cast<std::uint64_t>(info.st_size);
}

ReadFile::~ReadFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t ReadFile::read(void* buffer, std::size_t count) {
  auto* out = static_cast<char*>(buffer);
  std::size_t done = 0;
  while (done < count) {
    ssize_t got = ::read(fd_, out + done, count - done);
    if (got < 0) {
      if (errno == EINTR) continue;
      LIGHTSIM_THROW(IoError, "cannot read '{}': {}", path_.string(), errno_message(errno));
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

}  // namespace lightsim::detail

namespace lightsim {

std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes) {
  detail::ReadFile file(path, what);
  LIGHTSIM_CHECK_AS(InputError, file.size() <= max_bytes,
                    "{} '{}' is {}, more than the limit of {}", what, path.string(),
                    format_bytes(file.size()), format_bytes(max_bytes));
  std::string content(static_cast<std::size_t>(file.size()), '\0');
  content.resize(file.read(content.data(), content.size()));
  // A file that grows while it is read is refused rather than read past its cap.
  char probe = 0;
  LIGHTSIM_CHECK_AS(InputError, file.read(&probe, 1) == 0, "{} '{}' changed size while it was read",
                    what, path.string());
  return content;
}

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t state) {
  for (unsigned char c : bytes) {
    state ^= c;
    state *= 0x100000001b3ULL;
  }
  return state;
}

std::string file_content_hash(const std::filesystem::path& path, std::string_view what) {
  detail::ReadFile file(path, what);
  std::vector<char> chunk(std::size_t{1} << 20);
  std::uint64_t h = kFnv1aOffset;
  while (std::size_t got = file.read(chunk.data(), chunk.size()))
    h = fnv1a64(std::string_view(chunk.data(), got), h);
  return fmt::format("fnv1a64:{:016x}", h);
}

std::string format_bytes(std::uint64_t bytes) {
  constexpr std::array<const char*, 7> kUnits{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.3g} {}", value, kUnits[unit]);
}

}  // namespace lightsim
