#include "core/posix_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "lightsim/core/error.h"

namespace lightsim::detail {

std::string errno_message(int error_number) {
  return std::system_category().message(error_number);
}

ReadFile::ReadFile(const std::filesystem::path& path, std::string_view what) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
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
  if (S_ISDIR(info.st_mode)) {
    ::close(fd_);
    LIGHTSIM_THROW(InputError, "cannot open {} '{}': it is a directory", what, path.string());
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

std::string read_whole_file(const std::filesystem::path& path, std::string_view what) {
  ReadFile file(path, what);
  std::string content;
  char chunk[65536];
  while (std::size_t got = file.read(chunk, sizeof chunk)) content.append(chunk, got);
  return content;
}

}  // namespace lightsim::detail
