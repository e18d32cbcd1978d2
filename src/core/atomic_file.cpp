#include "lightsim/core/atomic_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <system_error>

#include "core/posix_file.h"
#include "lightsim/core/dead_temp_files.h"
#include "lightsim/core/error.h"

namespace lightsim {
namespace {

// Opens a new file `<dir>/.<stem>.<random hex>.tmp` exclusively; returns its fd and path.
// Throws `Error` (IoError or InputError) with `context` on failure.
template <typename ErrorType>
int create_unique(const std::filesystem::path& dir, const std::string& stem,
                  std::filesystem::path& created, std::string_view context) {
  std::random_device entropy;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::uint64_t tag = (std::uint64_t{entropy()} << 32) ^ entropy();
    std::filesystem::path candidate = dir / fmt::format(".{}.{:016x}.tmp", stem, tag);
    int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      // Held until the file is renamed into place or removed: what tells a live writer's
      // temp file from one a killed process left (remove_dead_temp_files).
      (void)::flock(fd, LOCK_EX | LOCK_NB);
      created = std::move(candidate);
      return fd;
    }
    if (errno != EEXIST)
      throw ErrorType(fmt::format("{}: {}", context, detail::errno_message(errno)));
  }
  throw ErrorType(fmt::format("{}: no free temporary file name", context));
}

std::filesystem::path parent_or_dot(const std::filesystem::path& path) {
  std::filesystem::path parent = path.parent_path();
  return parent.empty() ? std::filesystem::path(".") : parent;
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  LIGHTSIM_CHECK_AS(IoError, !target_.filename().empty(), "cannot write '{}': not a file path",
                    target_.string());
  remove_dead_temp_files(target_);  // what killed writes of this target left
  fd_ = create_unique<IoError>(
      parent_or_dot(target_), target_.filename().string(), temp_,
      fmt::format("cannot create a temporary file for '{}'", target_.string()));
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  if (fd_ >= 0) ::close(fd_);
  ::unlink(temp_.c_str());
}

void AtomicFile::write(std::string_view bytes) {
  write(bytes.data(), bytes.size());
}

void AtomicFile::write(const void* data, std::size_t size) {
  LIGHTSIM_CHECK(fd_ >= 0 && !committed_, "write to '{}' after commit", target_.string());
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t put = ::write(fd_, bytes, size);
    if (put < 0) {
      if (errno == EINTR) continue;
      LIGHTSIM_THROW(IoError, "cannot write '{}': {}", target_.string(),
                     detail::errno_message(errno));
    }
    bytes += put;
    size -= static_cast<std::size_t>(put);
  }
}

void AtomicFile::commit() {
  LIGHTSIM_CHECK(fd_ >= 0 && !committed_, "'{}' committed twice", target_.string());
  if (::fsync(fd_) != 0) {
    LIGHTSIM_THROW(IoError, "cannot flush '{}' to disk: {}", target_.string(),
                   detail::errno_message(errno));
  }
  // Renamed while still open, so its lock is held until the temp name is gone.
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    LIGHTSIM_THROW(IoError, "cannot rename '{}' to '{}': {}", temp_.string(), target_.string(),
                   detail::errno_message(errno));
  }
  committed_ = true;
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    LIGHTSIM_THROW(IoError, "cannot close '{}': {}", target_.string(),
                   detail::errno_message(errno));
  }
  // Make the rename itself durable.
  std::filesystem::path dir = parent_or_dot(target_);
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) {
    LIGHTSIM_THROW(IoError, "cannot open directory '{}' to sync '{}': {}", dir.string(),
                   target_.string(), detail::errno_message(errno));
  }
  int sync_result = ::fsync(dir_fd);
  int sync_errno = errno;
  ::close(dir_fd);
  if (sync_result != 0 && sync_errno != EINVAL) {  // EINVAL: the file system cannot sync dirs
    LIGHTSIM_THROW(IoError, "cannot sync directory '{}' after writing '{}': {}", dir.string(),
                   target_.string(), detail::errno_message(sync_errno));
  }
}

std::size_t remove_dead_temp_files(const std::filesystem::path& target) {
  const std::string prefix = fmt::format(".{}.", target.filename().string());
  constexpr std::string_view kSuffix = ".tmp";
  constexpr std::size_t kTagDigits = 16;
  std::size_t removed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(parent_or_dot(target), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() != prefix.size() + kTagDigits + kSuffix.size() || !name.starts_with(prefix) ||
        !name.ends_with(kSuffix))
      continue;
    const std::string_view tag = std::string_view(name).substr(prefix.size(), kTagDigits);
    if (tag.find_first_not_of("0123456789abcdef") != std::string_view::npos) continue;
    // A live writer holds an exclusive lock on its temp file (create_unique): kept.
    const int fd = ::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      continue;
    }
    std::error_code remove_ec;
    if (std::filesystem::remove(entry.path(), remove_ec)) ++removed;
    if (fd >= 0) ::close(fd);
  }
  return removed;
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  AtomicFile file(path);
  file.write(content);
  file.commit();
}

void prepare_output_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    LIGHTSIM_THROW(InputError, "output directory '{}' is not writable: {}", dir.string(),
                   ec.message());
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    LIGHTSIM_THROW(InputError, "output directory '{}' is not writable: not a directory",
                   dir.string());
  }
  std::filesystem::path probe;
  int fd =
      create_unique<InputError>(dir, "lightsim-probe", probe,
                                fmt::format("output directory '{}' is not writable", dir.string()));
  ::close(fd);
  if (::unlink(probe.c_str()) != 0) {
    LIGHTSIM_THROW(InputError, "output directory '{}' is not writable: cannot remove '{}': {}",
                   dir.string(), probe.string(), detail::errno_message(errno));
  }
  // A full disk still lets the empty probe be created: check the free space as well.
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) == 0) {
    const auto free_bytes = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
    if (free_bytes < kMinFreeOutputBytes) {
      LIGHTSIM_THROW(InputError,
                     "output directory '{}' is on a full file system: {} KiB free, at least {} "
                     "KiB needed to write results (free space or choose another --out)",
                     dir.string(), free_bytes / 1024, kMinFreeOutputBytes / 1024);
    }
  }
}

}  // namespace lightsim
