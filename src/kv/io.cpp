#include "lightsim/kv/io.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/ranges.h>

#include "lightsim/core/error.h"
#include "lightsim/core/input_file.h"
#include "lightsim/core/json.h"

namespace lightsim::kv {
namespace {

NpyDtype parse_dtype(const std::string& name, const std::filesystem::path& manifest) {
  for (NpyDtype d : {NpyDtype::kFloat32, NpyDtype::kFloat16, NpyDtype::kBFloat16})
    if (to_string(d) == name) return d;
  LIGHTSIM_THROW(DataFormatError, "{}: dtype: '{}' is not one of: float32, float16, bfloat16",
                 manifest.string(), name);
}

// An integer JSON value that T holds exactly, else a DataFormatError. nlohmann's own get<T>
// casts a float or out-of-range number to T, which is undefined behaviour (fuzz.kv_manifest:
// "kv_heads": 42949429496724967296).
template <class T>
T integer_of(const Json& v, const char* key, const std::filesystem::path& manifest) {
  if (v.is_number_unsigned()) {
    if (const auto u = v.get<std::uint64_t>(); std::in_range<T>(u)) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    if (const auto i = v.get<std::int64_t>(); std::in_range<T>(i)) return static_cast<T>(i);
  }
  LIGHTSIM_THROW(DataFormatError, "{}: key '{}' must be an integer in [{}, {}] (got {})",
                 manifest.string(), key, std::numeric_limits<T>::min(),
                 std::numeric_limits<T>::max(), v.dump());
}

template <class T>
constexpr bool kIntegerList = false;
template <class I>
constexpr bool kIntegerList<std::vector<I>> = std::is_integral_v<I>;

template <class T>
T get(const Json& doc, const char* key, const std::filesystem::path& manifest) {
  const auto it = doc.find(key);
  LIGHTSIM_CHECK_AS(DataFormatError, it != doc.end(), "{}: missing key '{}'", manifest.string(),
                    key);
  if constexpr (std::is_integral_v<T>) {
    return integer_of<T>(*it, key, manifest);
  } else if constexpr (kIntegerList<T>) {
    LIGHTSIM_CHECK_AS(DataFormatError, it->is_array(), "{}: key '{}' must be a list (got {})",
                      manifest.string(), key, it->dump());
    T out;
    for (const Json& v : *it) out.push_back(integer_of<typename T::value_type>(v, key, manifest));
    return out;
  }
  try {
    return it->template get<T>();
  } catch (const nlohmann::json::exception&) {
    LIGHTSIM_THROW(DataFormatError, "{}: key '{}' has the wrong type ({})", manifest.string(), key,
                   it->dump());
  }
}

// A NaN or Inf in a cache array would flow silently into every score and metric: reject it,
// naming the file and the element's index (layer, head, token or step, channel).
void require_finite(const NpyArray& a, const std::filesystem::path& file, const std::string& name) {
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    if (std::isfinite(a.values[i])) [[likely]]
      continue;
    std::vector<std::size_t> index(a.shape.size());
    std::size_t rest = i;
    for (std::size_t axis = a.shape.size(); axis-- > 0;) {
      index[axis] = rest % a.shape[axis];
      rest /= a.shape[axis];
    }
    LIGHTSIM_THROW(DataFormatError, "{}: array '{}' has a non-finite value {} at [{}]",
                   file.string(), name, a.values[i], fmt::join(index, ", "));
  }
}

NpyArray read_array(const std::filesystem::path& dir, const std::string& name, NpyDtype dtype,
                    const std::vector<std::size_t>& expected, const Json& hashes,
                    const std::filesystem::path& manifest) {
  const std::filesystem::path file = dir / (name + ".npy");
  NpyArray a = read_npy(file);
  LIGHTSIM_CHECK_AS(DataFormatError, a.dtype == dtype,
                    "{}: array '{}' has dtype {} but the manifest says {}", file.string(), name,
                    to_string(a.dtype), to_string(dtype));
  LIGHTSIM_CHECK_AS(DataFormatError, a.shape == expected,
                    "{}: array '{}' has shape [{}] but the manifest expects [{}] "
                    "(layers, heads, tokens or steps, head_dim)",
                    file.string(), name, fmt::join(a.shape, ", "), fmt::join(expected, ", "));
  require_finite(a, file, name);
  if (!hashes.is_null()) {  // after the checks above, which say more precisely what is wrong
    const auto want = hashes.find(name);
    LIGHTSIM_CHECK_AS(DataFormatError, want != hashes.end() && want->is_string(),
                      "{}: hashes.{}: expected the content hash of {} as a string",
                      manifest.string(), name, file.string());
    const std::string got = file_content_hash(file, ".npy file");
    LIGHTSIM_CHECK_AS(DataFormatError, got == want->get<std::string>(),
                      "{}: content hash {} differs from the manifest's {} ({}): the cache mixes "
                      "files of different runs; generate it again",
                      file.string(), got, want->get<std::string>(), manifest.string());
  }
  return a;
}

}  // namespace

namespace {

constexpr std::array<const char*, 3> kArrays{"keys", "values", "queries"};
constexpr std::array<const char*, 4> kCacheFiles{"manifest.json", "keys.npy", "values.npy",
                                                 "queries.npy"};

// Writes the three arrays, then the manifest with each array file's content hash.
void write_cache_files(const std::filesystem::path& dir, const KvCache& cache) {
  const KvGeometry& g = cache.geometry();
  const std::vector<std::size_t> kv_shape{g.layers, g.kv_heads, g.tokens, g.head_dim};
  const std::vector<std::size_t> q_shape{g.layers, g.q_heads, g.steps, g.head_dim};
  write_npy(dir / "keys.npy", cache.key_data(), kv_shape, cache.storage);
  write_npy(dir / "values.npy", cache.value_data(), kv_shape, cache.storage);
  write_npy(dir / "queries.npy", cache.query_data(), q_shape, cache.storage);
  Json m;
  m["format"] = "lightsim-kv";
  m["version"] = kKvFormatVersion;
  m["source"] = cache.source;
  m["dtype"] = std::string(to_string(cache.storage));
  m["layer_ids"] = cache.layer_ids;
  m["kv_heads"] = g.kv_heads;
  m["q_heads"] = g.q_heads;
  m["head_dim"] = g.head_dim;
  m["tokens"] = g.tokens;
  m["steps"] = g.steps;
  m["rope_base"] = cache.rope_base;
  Json needles = Json::array();
  for (const auto& n : cache.needles) needles.push_back({{"begin", n.begin}, {"end", n.end}});
  m["needles"] = needles;
  Json hashes = Json::object();
  for (const char* name : kArrays)
    hashes[name] = file_content_hash(dir / fmt::format("{}.npy", name), ".npy file");
  m["hashes"] = hashes;
  write_json_file(dir / "manifest.json", m);  // last: a manifest implies complete arrays
}

// True when `dir` holds nothing but a KV cache's files (or nothing at all), so replacing the
// whole folder loses nothing else.
bool holds_only_a_cache(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (std::find(kCacheFiles.begin(), kCacheFiles.end(), name) == kCacheFiles.end()) return false;
  }
  return true;
}

// True when `dir` is on another file system than its parent (a mount point): a sibling
// there could not be renamed onto it.
bool is_mount_point(const std::filesystem::path& dir) {
  struct stat self {
  }, parent{};
  return ::stat(dir.c_str(), &self) == 0 && ::stat(dir.parent_path().c_str(), &parent) == 0 &&
         self.st_dev != parent.st_dev;
}

std::string random_tag() {
  std::random_device entropy;
  return fmt::format("{:016x}", (std::uint64_t{entropy()} << 32) ^ entropy());
}

[[noreturn]] void throw_rename(const std::filesystem::path& from, const std::filesystem::path& to,
                               int err) {
  LIGHTSIM_THROW(IoError, "cannot move KV cache '{}' into place as '{}': {}", from.string(),
                 to.string(), std::strerror(err));
}

}  // namespace

void write_kv_cache(const std::filesystem::path& out, const KvCache& cache) {
  std::filesystem::path dir = std::filesystem::absolute(out).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();
  std::error_code ec;
  const bool exists = std::filesystem::exists(dir, ec);
  // A folder holding other files, the working folder or a mount point is written in place (files
  // first, manifest last); otherwise the cache is written into a temporary sibling and
  // swapped in whole, so no reader or later run ever sees old and new files mixed.
  if (exists && (!holds_only_a_cache(dir) ||
                 std::filesystem::equivalent(dir, std::filesystem::current_path(), ec) ||
                 is_mount_point(dir))) {
    write_cache_files(dir, cache);
    return;
  }
  const std::filesystem::path parent = dir.parent_path();
  std::filesystem::create_directories(parent);
  const std::string stem = fmt::format(".{}.", dir.filename().string());
  // Folders of an earlier killed write of this cache.
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(stem) && name.ends_with(".tmp") && entry.is_directory())
      std::filesystem::remove_all(entry.path(), ec);
  }
  const std::filesystem::path temp = parent / fmt::format("{}{}.tmp", stem, random_tag());
  std::filesystem::create_directory(temp);
  try {
    write_cache_files(temp, cache);
    if (!exists) {
      if (::rename(temp.c_str(), dir.c_str()) != 0) throw_rename(temp, dir, errno);
    } else if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) != 0) {
      // No atomic exchange on this file system: move the old cache aside, then the new one in.
      const std::filesystem::path old = parent / fmt::format("{}{}.tmp", stem, random_tag());
      if (::rename(dir.c_str(), old.c_str()) != 0) throw_rename(dir, old, errno);
      if (::rename(temp.c_str(), dir.c_str()) != 0) throw_rename(temp, dir, errno);
      std::filesystem::remove_all(old, ec);
      return;
    }
  } catch (...) {
    std::filesystem::remove_all(temp, ec);
    throw;
  }
  std::filesystem::remove_all(temp, ec);  // after an exchange: the old cache
}

namespace {

// A cache folder's manifest and the geometry it declares (validated).
struct Manifest {
  Json json;
  KvGeometry geometry;
  std::vector<std::size_t> layer_ids;
};

Manifest read_manifest(const std::filesystem::path& dir) {
  const std::filesystem::path manifest = dir / "manifest.json";
  LIGHTSIM_CHECK_AS(InputError, std::filesystem::is_directory(dir), "{}: no such KV cache folder",
                    dir.string());
  LIGHTSIM_CHECK_AS(InputError, std::filesystem::exists(manifest),
                    "{}: missing manifest.json (see docs/kv-data.md)", dir.string());
  const Json m = read_json_file(manifest);
  // Json::value() throws nlohmann's type_error when the key holds another type: compare
  // the node itself (a number or array is simply not equal).
  const auto format = m.find("format");
  LIGHTSIM_CHECK_AS(DataFormatError, m.is_object() && format != m.end() && *format == "lightsim-kv",
                    "{}: format: expected \"lightsim-kv\"", manifest.string());
  const int version = get<int>(m, "version", manifest);
  LIGHTSIM_CHECK_AS(DataFormatError, version == kKvFormatVersion,
                    "{}: version {} is not supported (expected {})", manifest.string(), version,
                    kKvFormatVersion);
  KvGeometry g;
  const auto layer_ids = get<std::vector<std::size_t>>(m, "layer_ids", manifest);
  g.layers = layer_ids.size();
  g.kv_heads = get<std::size_t>(m, "kv_heads", manifest);
  g.q_heads = get<std::size_t>(m, "q_heads", manifest);
  g.head_dim = get<std::size_t>(m, "head_dim", manifest);
  g.tokens = get<std::size_t>(m, "tokens", manifest);
  g.steps = get<std::size_t>(m, "steps", manifest);
  g.validate(manifest.string());
  return {m, g, layer_ids};
}

}  // namespace

KvGeometry read_kv_geometry(const std::filesystem::path& dir) {
  return read_manifest(dir).geometry;
}

KvCache read_kv_cache(const std::filesystem::path& dir, std::uint64_t memory_budget_bytes) {
  const std::filesystem::path manifest = dir / "manifest.json";
  const Manifest read = read_manifest(dir);
  const Json& m = read.json;
  const KvGeometry& g = read.geometry;
  const std::vector<std::size_t>& layer_ids = read.layer_ids;
  const NpyDtype dtype = parse_dtype(get<std::string>(m, "dtype", manifest), manifest);
  const double rope_base = get<double>(m, "rope_base", manifest);
  LIGHTSIM_CHECK_AS(DataFormatError, std::isfinite(rope_base) && rope_base >= 0,
                    "{}: rope_base: expected a finite number >= 0 (0 = unknown), got {}",
                    manifest.string(), rope_base);
  require_memory(g.array_bytes(), memory_budget_bytes,
                 fmt::format("KV cache '{}' ({} layers x {} KV heads x {} tokens x {} channels)",
                             dir.string(), g.layers, g.kv_heads, g.tokens, g.head_dim));

  // Content hashes of the arrays (optional: caches exported by other tools may lack them).
  Json hashes;
  if (const auto it = m.find("hashes"); it != m.end()) {
    LIGHTSIM_CHECK_AS(DataFormatError, it->is_object(),
                      "{}: hashes: expected a mapping of array name to content hash",
                      manifest.string());
    hashes = *it;
  }
  const std::vector<std::size_t> kv_shape{g.layers, g.kv_heads, g.tokens, g.head_dim};
  const std::vector<std::size_t> q_shape{g.layers, g.q_heads, g.steps, g.head_dim};
  NpyArray keys = read_array(dir, "keys", dtype, kv_shape, hashes, manifest);
  NpyArray values = read_array(dir, "values", dtype, kv_shape, hashes, manifest);
  NpyArray queries = read_array(dir, "queries", dtype, q_shape, hashes, manifest);

  KvCache cache(g, std::move(keys.values), std::move(values.values), std::move(queries.values));
  cache.layer_ids = layer_ids;
  cache.storage = dtype;
  cache.rope_base = rope_base;
  const auto source = m.find("source");
  LIGHTSIM_CHECK_AS(DataFormatError, source == m.end() || source->is_string(),
                    "{}: source: expected a string, got {}", manifest.string(), source->dump());
  if (source != m.end()) cache.source = source->get<std::string>();
  if (const auto it = m.find("needles"); it != m.end()) {
    LIGHTSIM_CHECK_AS(DataFormatError, it->is_array(), "{}: needles: expected a list",
                      manifest.string());
    for (const auto& n : *it) {
      NeedleSpan span{get<std::size_t>(n, "begin", manifest), get<std::size_t>(n, "end", manifest)};
      LIGHTSIM_CHECK_AS(DataFormatError, span.begin < span.end && span.end <= g.tokens,
                        "{}: needle [{}, {}) is not a non-empty span inside [0, {})",
                        manifest.string(), span.begin, span.end, g.tokens);
      cache.needles.push_back(span);
    }
  }
  return cache;
}

}  // namespace lightsim::kv
