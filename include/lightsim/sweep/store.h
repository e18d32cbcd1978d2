// The result store of a sweep: a JSON-lines file, <out>/<name>.jsonl.
//
//   line 1      header: {"lightsim_sweep": 1, "name", "spec_hash", "seed", "points", ...}
//   each other  one finished point: {"index", "id", "values", "result"}
//
// Every append is one write() of whole lines followed by fsync, so after a kill the file
// holds every point whose append returned, plus at most one torn last line (no trailing
// newline), which open() with resume detects, reports and cuts off. A complete line that is
// not JSON, a duplicated index or an index outside [0, points) is corruption: DataFormatError.
// A kept record must also be the sweep's point at its index: its "id" and "values" equal the
// point's (so an edited record is not trusted), its "result" is a JSON object and it has no
// other keys; else DataFormatError naming the store and line.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "lightsim/core/json.h"
#include "lightsim/sweep/shard.h"

namespace lightsim::sweep {

// A store file as read, before any check against a sweep's points: the header, each complete
// record line with its index, and the size of a torn last line. Every complete line must be a
// JSON object with an unsigned "index" (else DataFormatError naming the file and line); the
// header must be a JSON object with "spec_hash", "seed" and "points". The header's "shard"
// ("I/N", absent for a whole sweep) is parsed into `shard`.
struct StoreFile {
  std::string header_line{};
  Json header;
  Shard shard{};
  struct Record {
    std::size_t index = 0;
    std::size_t line_no = 0;  // 1-based line in the file
    std::string line{};
    Json json;
  };
  std::vector<Record> records{};
  std::size_t torn_bytes = 0;  // bytes after the last newline (a torn last line), 0 if none
};
// `text` is the file's content; an empty text or one without a newline is a DataFormatError
// ("no header"). `where` names the file in messages.
StoreFile parse_store(const std::string& text, const std::string& where);
// Reads `path` (at most kMaxSweepStoreBytes) and parses it.
StoreFile read_store(const std::filesystem::path& path);

// What the record of one point must hold besides its index and result: Point::id() and
// Point::values_json() as compact JSON text.
struct StoredPoint {
  std::string id{};
  std::string values{};
};

class ResultStore {
 public:
  // Opens `path` (the store of one shard of the sweep, or of all of it: `header`'s "shard"),
  // first taking an exclusive lock on `<path>.lock` (flock; released when the
  // store is destroyed or the process ends): a second writer of the same store, in this or
  // another process, is refused with an InputError naming the store. Temp files of an earlier
  // killed run's rewrite of `path` are removed. Without `resume` the file must not exist
  // (InputError naming it and suggesting --resume); it is created holding `header`. With `resume`
  // an existing file is read: its header's "spec_hash", "seed" and "points" must equal `header`'s
  // (else ConfigError saying which differs), and every record it keeps must match `points`
  // (points[i] is the point of index i; its size is the header's "points") and belong to the
  // shard; a missing file is created as without resume.
  ResultStore(std::filesystem::path path, const Json& header, bool resume,
              std::vector<StoredPoint> points);
  ~ResultStore();
  ResultStore(const ResultStore&) = delete;
  ResultStore& operator=(const ResultStore&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Indices of the finished points, ascending.
  std::vector<std::size_t> done() const;
  std::size_t size() const { return lines_.size(); }
  // Bytes of a torn last line dropped when opening (0 if none).
  std::size_t dropped_bytes() const { return dropped_bytes_; }

  // Appends finished points: (index, one-line JSON without newline). One write + fsync.
  void append(const std::vector<std::pair<std::size_t, std::string>>& records);
  // Rewrites the file (atomically) with the points in index order, if they are not already.
  void sort();

 private:
  void open(const Json& header, bool resume);  // the constructor's work once the lock is held
  // Checks one stored record against points_ and shard_.
  void verify_record(const StoreFile::Record& record) const;

  std::filesystem::path path_;
  std::string header_line_;
  std::vector<StoredPoint> points_;
  Shard shard_;
  std::vector<std::pair<std::size_t, std::string>> lines_;  // as in the file
  std::vector<bool> have_;
  std::size_t dropped_bytes_ = 0;
  int fd_ = -1;
  int lock_fd_ = -1;
};

// The record line of one point (compact JSON, no newline). Throws NumericError naming the
// JSON pointer of a NaN or Inf in `result`.
std::string record_line(std::size_t index, const std::string& id, const Json& values,
                        const Json& result);

}  // namespace lightsim::sweep
