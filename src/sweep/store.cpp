// The JSON-lines result store (include/lightsim/sweep/store.h).
#include "lightsim/sweep/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/dead_temp_files.h"
#include "lightsim/core/error.h"
#include "lightsim/core/input_file.h"
#include "lightsim/core/json.h"

namespace lightsim::sweep {
namespace {

// The lock file's descriptor, holding an exclusive flock on it.
int lock_store(const std::filesystem::path& store) {
  const std::filesystem::path lock = fmt::format("{}.lock", store.string());
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  LIGHTSIM_CHECK_AS(IoError, fd >= 0, "cannot create the lock file '{}' of sweep store '{}': {}",
                    lock.string(), store.string(), std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  const int err = errno;
  ::close(fd);
  LIGHTSIM_CHECK_AS(IoError, err == EWOULDBLOCK, "cannot lock '{}': {}", lock.string(),
                    std::strerror(err));
  LIGHTSIM_THROW(InputError,
                 "sweep store '{}' is in use by another run (it holds the lock '{}'); wait for "
                 "it to finish, or give this sweep another --out",
                 store.string(), lock.string());
}

void check_finite(const Json& j, const std::string& pointer) {
  if (j.is_number_float()) {
    LIGHTSIM_CHECK_AS(NumericError, std::isfinite(j.get<double>()),
                      "sweep result: {} is {} (not a finite number)", pointer, j.get<double>());
  } else if (j.is_object()) {
    for (const auto& [k, v] : j.items()) check_finite(v, pointer + "/" + k);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) check_finite(j[i], fmt::format("{}/{}", pointer, i));
  }
}

void write_fully(int fd, std::string_view bytes, const std::filesystem::path& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    LIGHTSIM_CHECK_AS(IoError, n > 0, "cannot append to sweep store '{}': {}", path.string(),
                      std::strerror(errno));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

std::string record_line(std::size_t index, const std::string& id, const Json& values,
                        const Json& result) {
  check_finite(result, "/result");
  check_finite(values, "/values");
  Json j = Json::object();
  j["index"] = index;
  j["id"] = id;
  j["values"] = values;
  j["result"] = result;
  return j.dump();
}

ResultStore::ResultStore(std::filesystem::path path, const Json& header, bool resume,
                         std::vector<StoredPoint> points)
    : path_(std::move(path)), header_line_(header.dump()), points_(std::move(points)) {
  lock_fd_ = lock_store(path_);
  try {
    open(header, resume);
  } catch (...) {
    if (fd_ >= 0) ::close(fd_);
    ::close(lock_fd_);
    throw;
  }
}

StoreFile parse_store(const std::string& text, const std::string& where) {
  StoreFile f;
  const auto first_newline = text.find('\n');
  LIGHTSIM_CHECK_AS(DataFormatError, first_newline != std::string::npos,
                    "{}: not a sweep store: no complete header line", where);
  f.header_line = text.substr(0, first_newline);
  try {
    f.header = Json::parse(f.header_line);
  } catch (const std::exception& e) {
    LIGHTSIM_THROW(DataFormatError, "{}:1: not a sweep store header: {}", where, e.what());
  }
  LIGHTSIM_CHECK_AS(
      DataFormatError,
      f.header.is_object() && f.header.contains("spec_hash") && f.header.contains("seed") &&
          f.header.contains("points") && f.header["points"].is_number_unsigned(),
      "{}:1: not a sweep store header (a JSON object with spec_hash, seed and points)", where);
  if (f.header.contains("shard")) {
    const Json& shard = f.header["shard"];
    LIGHTSIM_CHECK_AS(DataFormatError, shard.is_string(),
                      "{}:1: the header's shard {} is not \"I/N\"", where, shard.dump());
    try {
      f.shard = parse_shard(shard.get<std::string>(), "the header's shard");
    } catch (const UsageError& e) {
      LIGHTSIM_THROW(DataFormatError, "{}:1: {}", where, e.what());
    }
  }
  const auto last_newline = text.rfind('\n');
  f.torn_bytes = text.size() - last_newline - 1;
  std::size_t pos = first_newline + 1;
  for (std::size_t line_no = 2; pos <= last_newline; ++line_no) {
    const auto end = text.find('\n', pos);
    StoreFile::Record r;
    r.line_no = line_no;
    r.line = text.substr(pos, end - pos);
    pos = end + 1;
    const std::string at = fmt::format("{}:{}", where, line_no);
    try {
      r.json = Json::parse(r.line);
    } catch (const std::exception& e) {
      LIGHTSIM_THROW(DataFormatError, "{}: not a sweep record: {}", at, e.what());
    }
    LIGHTSIM_CHECK_AS(DataFormatError, r.json.is_object() && r.json.contains("index"),
                      "{}: not a sweep record (a JSON object with an \"index\")", at);
    const Json& index = r.json["index"];
    LIGHTSIM_CHECK_AS(DataFormatError, index.is_number_unsigned(),
                      "{}: the record's index {} is not a point index", at, index.dump());
    r.index = index.get<std::size_t>();
    f.records.push_back(std::move(r));
  }
  return f;
}

StoreFile read_store(const std::filesystem::path& path) {
  return parse_store(read_input_file(path, "sweep store", kMaxSweepStoreBytes), path.string());
}

void ResultStore::open(const Json& header, bool resume) {
  remove_dead_temp_files(path_);  // killed writers' temp files (the store lock is held)
  const auto points = header.at("points").get<std::size_t>();
  LIGHTSIM_CHECK(points == points_.size(), "sweep store '{}': header says {} points, given {}",
                 path_.string(), points, points_.size());
  if (header.contains("shard")) shard_ = parse_shard(header["shard"].get<std::string>(), "shard");
  have_.assign(points, false);
  const bool exists = std::filesystem::exists(path_);
  LIGHTSIM_CHECK_AS(InputError, resume || !exists,
                    "sweep store '{}' already exists: run with --resume to continue it, or "
                    "delete it to start over",
                    path_.string());
  const std::string text =
      exists ? read_input_file(path_, "sweep store", kMaxSweepStoreBytes) : std::string();
  if (text.find('\n') == std::string::npos) {  // new, empty, or a header that never completed
    write_file_atomic(path_, header_line_ + "\n");
  } else {
    const std::string where = path_.string();
    StoreFile file = parse_store(text, where);
    const Json& old = file.header;
    const auto value_of = [](const Json& j, const char* key) {
      return j.contains(key) ? j[key].dump() : std::string("missing");
    };
    for (const char* key : {"spec_hash", "seed", "points", "shard"})
      LIGHTSIM_CHECK_AS(ConfigError, value_of(old, key) == value_of(header, key),
                        "{}: cannot resume: the store's {} is {}, this run's is {} (the sweep "
                        "spec, its base config, --set, --seed or --shard changed); delete the "
                        "store or give the sweep another name",
                        where, key, value_of(old, key), value_of(header, key));
    header_line_ = file.header_line;
    if (file.torn_bytes > 0) {  // torn last line: cut it off
      dropped_bytes_ = file.torn_bytes;
      std::filesystem::resize_file(path_, text.size() - file.torn_bytes);
    }
    for (StoreFile::Record& r : file.records) {
      verify_record(r);
      LIGHTSIM_CHECK_AS(DataFormatError, !have_[r.index], "{}:{}: point {} stored twice", where,
                        r.line_no, r.index);
      have_[r.index] = true;
      lines_.emplace_back(r.index, std::move(r.line));
    }
  }
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  LIGHTSIM_CHECK_AS(IoError, fd_ >= 0, "cannot open sweep store '{}': {}", path_.string(),
                    std::strerror(errno));
  LIGHTSIM_CHECK_AS(IoError, ::fsync(fd_) == 0, "cannot sync sweep store '{}': {}", path_.string(),
                    std::strerror(errno));
}

void ResultStore::verify_record(const StoreFile::Record& r) const {
  const std::string where = fmt::format("{}:{}", path_.string(), r.line_no);
  const Json& record = r.json;
  const std::size_t index = r.index;
  LIGHTSIM_CHECK_AS(DataFormatError, index < points_.size(), "{}: point index {} >= {} points",
                    where, index, points_.size());
  LIGHTSIM_CHECK_AS(DataFormatError, shard_.owns(index),
                    "{}: point {} is not in shard {} of this store (its points are the indices "
                    "equal to {} mod {})",
                    where, index, shard_.text(), shard_.index, shard_.count);
  const StoredPoint& want = points_[index];
  const auto text_of = [&](const char* key) {
    return record.contains(key) ? record[key].dump() : std::string("missing");
  };
  LIGHTSIM_CHECK_AS(DataFormatError, record.contains("id") && record["id"] == want.id,
                    "{}: the record of point {} has id {}, the sweep's point {} has \"{}\" (the "
                    "record was edited or belongs to another sweep); delete the line to rerun "
                    "the point",
                    where, index, text_of("id"), index, want.id);
  LIGHTSIM_CHECK_AS(DataFormatError,
                    record.contains("values") && record["values"].dump() == want.values,
                    "{}: the record of point {} has values {}, the sweep's point {} has {} (the "
                    "record was edited or belongs to another sweep); delete the line to rerun "
                    "the point",
                    where, index, text_of("values"), index, want.values);
  LIGHTSIM_CHECK_AS(DataFormatError, record.contains("result") && record["result"].is_object(),
                    "{}: the record of point {} has result {}, expected a JSON object; delete the "
                    "line to rerun the point",
                    where, index, text_of("result").substr(0, 80));
  LIGHTSIM_CHECK_AS(DataFormatError, record.size() == 4,
                    "{}: the record of point {} has keys besides index, id, values and result",
                    where, index);
}

ResultStore::~ResultStore() {
  if (fd_ >= 0) ::close(fd_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

std::vector<std::size_t> ResultStore::done() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < have_.size(); ++i)
    if (have_[i]) out.push_back(i);
  return out;
}

void ResultStore::append(const std::vector<std::pair<std::size_t, std::string>>& records) {
  if (records.empty()) return;
  std::string bytes;
  for (const auto& [index, line] : records) {
    LIGHTSIM_CHECK(index < have_.size() && !have_[index], "point {} appended twice", index);
    LIGHTSIM_CHECK(line.find('\n') == std::string::npos, "record of point {} spans lines", index);
    bytes += line;
    bytes += '\n';
  }
  write_fully(fd_, bytes, path_);
  LIGHTSIM_CHECK_AS(IoError, ::fsync(fd_) == 0, "cannot sync sweep store '{}': {}", path_.string(),
                    std::strerror(errno));
  for (const auto& record : records) {
    have_[record.first] = true;
    lines_.push_back(record);
  }
}

void ResultStore::sort() {
  const auto by_index = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (std::is_sorted(lines_.begin(), lines_.end(), by_index)) return;
  std::sort(lines_.begin(), lines_.end(), by_index);
  std::string text = header_line_ + "\n";
  for (const auto& [index, line] : lines_) text += line + "\n";
  ::close(fd_);
  fd_ = -1;
  write_file_atomic(path_, text);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  LIGHTSIM_CHECK_AS(IoError, fd_ >= 0, "cannot open sweep store '{}': {}", path_.string(),
                    std::strerror(errno));
}

}  // namespace lightsim::sweep
