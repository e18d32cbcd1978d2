#include "lightsim/core/npy.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "core/npy_header.h"
#include "core/posix_file.h"
#include "lightsim/core/atomic_file.h"
#include "lightsim/core/error.h"
#include "lightsim/core/float16.h"

// Data bytes are copied to and from memory as they are: the file format is little-endian.
static_assert(std::endian::native == std::endian::little, "lightsim .npy I/O needs little-endian");

namespace lightsim {
namespace {

constexpr std::array<unsigned char, 6> kMagic = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kChunkValues = 1 << 16;

std::size_t item_size(NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::kFloat32:
      return 4;
    case NpyDtype::kFloat64:
      return 8;
    case NpyDtype::kFloat16:
    case NpyDtype::kBFloat16:
      return 2;
  }
  LIGHTSIM_CHECK(false, "bad NpyDtype {}", static_cast<int>(dtype));
}

NpyDtype dtype_from_descr(const std::string& descr, const NpyReadOptions& options,
                          const std::filesystem::path& file) {
  if (descr == "<f4") return NpyDtype::kFloat32;
  if (descr == "<f2") return NpyDtype::kFloat16;
  if (descr == "<f8") return NpyDtype::kFloat64;
  if (descr == "<V2" || descr == "|V2" || descr == "bfloat16") return NpyDtype::kBFloat16;
  bool u2 = descr == "<u2" || descr == "|u2";
  if (u2 && options.u2_is_bfloat16) return NpyDtype::kBFloat16;
  if (!descr.empty() && descr[0] == '>') {
    LIGHTSIM_THROW(DataFormatError,
                   "'{}': big-endian dtype '{}' is not supported (expected little-endian '<{}')",
                   file.string(), descr, descr.substr(1));
  }
  LIGHTSIM_THROW(DataFormatError,
                 "'{}': unsupported dtype '{}' (expected '<f4', '<f2', '<f8' or bfloat16 as '<V2'"
                 "{})",
                 file.string(), descr,
                 u2 ? "; '<u2' is read as raw bfloat16 bits only when the caller says so" : "");
}

std::uint64_t read_le(const unsigned char* bytes, std::size_t count) {
  std::uint64_t value = 0;
  for (std::size_t i = count; i-- > 0;) value = (value << 8) | bytes[i];
  return value;
}

std::string hex_bytes(const unsigned char* bytes, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += fmt::format("{}{:02x}", i ? " " : "", bytes[i]);
  return out;
}

// Reads `count` elements of `dtype` from `file` into `out` (already sized), converting.
void read_values(detail::ReadFile& file, NpyDtype dtype, std::span<float> out,
                 const std::filesystem::path& path) {
  std::size_t size = item_size(dtype);
  std::vector<unsigned char> chunk(kChunkValues * size);
  for (std::size_t begin = 0; begin < out.size(); begin += kChunkValues) {
    std::size_t n = std::min(kChunkValues, out.size() - begin);
    std::size_t got = file.read(chunk.data(), n * size);
    LIGHTSIM_CHECK_AS(DataFormatError, got == n * size, "'{}': data ends early (file changed?)",
                      path.string());
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned char* p = chunk.data() + i * size;
      float value;
      if (dtype == NpyDtype::kFloat32) {
        std::memcpy(&value, p, 4);
      } else if (dtype == NpyDtype::kFloat64) {
        double wide;
        std::memcpy(&wide, p, 8);
        value = static_cast<float>(wide);
        LIGHTSIM_CHECK_AS(DataFormatError, std::isfinite(value) || !std::isfinite(wide),
                          "'{}': float64 value {} at flat index {} overflows float32",
                          path.string(), wide, begin + i);
      } else {
        auto bits = static_cast<std::uint16_t>(p[0] | (p[1] << 8));
        value = dtype == NpyDtype::kFloat16 ? half_to_float(bits) : bfloat16_to_float(bits);
      }
      out[begin + i] = value;
    }
  }
}

}  // namespace

std::string_view to_string(NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::kFloat32:
      return "float32";
    case NpyDtype::kFloat16:
      return "float16";
    case NpyDtype::kBFloat16:
      return "bfloat16";
    case NpyDtype::kFloat64:
      return "float64";
  }
  return "unknown";
}

NpyArray read_npy(const std::filesystem::path& path, const NpyReadOptions& options) {
  detail::ReadFile file(path, ".npy file");
  const std::string name = path.string();

  std::array<unsigned char, 8> lead{};
  std::size_t got = file.read(lead.data(), lead.size());
  if (got < lead.size() || !std::equal(kMagic.begin(), kMagic.end(), lead.begin())) {
    LIGHTSIM_THROW(DataFormatError,
                   "'{}' is not a .npy file: expected magic bytes 93 4e 55 4d 50 59 (\\x93NUMPY) "
                   "and a version, found '{}'",
                   name, hex_bytes(lead.data(), got));
  }
  unsigned major = lead[6], minor = lead[7];
  LIGHTSIM_CHECK_AS(DataFormatError, (major >= 1 && major <= 3) && minor == 0,
                    "'{}': unsupported .npy format version {}.{} (expected 1.0, 2.0 or 3.0)", name,
                    major, minor);

  const std::size_t length_bytes = major == 1 ? 2 : 4;
  std::array<unsigned char, 4> length_field{};
  got = file.read(length_field.data(), length_bytes);
  LIGHTSIM_CHECK_AS(DataFormatError, got == length_bytes,
                    "'{}': file ends inside the .npy header length field", name);
  const std::uint64_t header_length = read_le(length_field.data(), length_bytes);
  LIGHTSIM_CHECK_AS(DataFormatError, header_length <= options.max_header_bytes,
                    "'{}': .npy header length {} bytes exceeds the limit of {} bytes", name,
                    header_length, options.max_header_bytes);
  const std::uint64_t data_offset = lead.size() + length_bytes + header_length;
  LIGHTSIM_CHECK_AS(DataFormatError, data_offset <= file.size(),
                    "'{}': truncated .npy header: it declares {} bytes but the file has {} in all",
                    name, header_length, file.size());
  std::string header_text(header_length, '\0');
  got = file.read(header_text.data(), header_text.size());
  LIGHTSIM_CHECK_AS(DataFormatError, got == header_text.size(),
                    "'{}': file ends inside the .npy header", name);
  detail::NpyHeader header = detail::parse_npy_header(header_text, path);

  NpyArray array;
  array.source = path;
  array.dtype = dtype_from_descr(header.descr, options, path);
  LIGHTSIM_CHECK_AS(DataFormatError, !header.fortran_order,
                    "'{}': Fortran-order arrays are not supported (expected fortran_order False, "
                    "found True); save with np.ascontiguousarray",
                    name);
  if (options.expected_rank && header.shape.size() != *options.expected_rank) {
    LIGHTSIM_THROW(DataFormatError, "'{}': expected a rank-{} array, found shape {}", name,
                   *options.expected_rank, detail::format_shape(header.shape));
  }

  // Element count and byte size, guarded against overflow, checked before allocating.
  std::size_t count = 1;
  for (std::size_t extent : header.shape) {
    LIGHTSIM_CHECK_AS(DataFormatError, !__builtin_mul_overflow(count, extent, &count),
                      "'{}': shape {} has too many elements", name,
                      detail::format_shape(header.shape));
  }
  std::size_t data_bytes = 0;
  LIGHTSIM_CHECK_AS(
      DataFormatError, !__builtin_mul_overflow(count, item_size(array.dtype), &data_bytes),
      "'{}': shape {} has too many elements", name, detail::format_shape(header.shape));
  const std::uint64_t available = file.size() - data_offset;
  LIGHTSIM_CHECK_AS(DataFormatError, available == data_bytes,
                    "'{}': shape {} of {} needs {} data bytes but the file holds {}{}", name,
                    detail::format_shape(header.shape), header.descr, data_bytes, available,
                    available < data_bytes ? " (truncated file?)" : "");

  array.shape = std::move(header.shape);
  array.values.resize(count);
  read_values(file, array.dtype, array.values, path);
  return array;
}

NpyArray read_npy(const std::filesystem::path& path, std::size_t expected_rank) {
  NpyReadOptions options;
  options.expected_rank = expected_rank;
  return read_npy(path, options);
}

void require_npy_shape(const NpyArray& array, std::span<const std::size_t> expected) {
  bool match = array.shape.size() == expected.size();
  for (std::size_t i = 0; match && i < expected.size(); ++i) {
    match = expected[i] == kAnyExtent || expected[i] == array.shape[i];
  }
  if (match) return;
  std::vector<std::string> shown;
  for (std::size_t extent : expected) {
    shown.push_back(extent == kAnyExtent ? std::string("*") : fmt::format("{}", extent));
  }
  LIGHTSIM_THROW(DataFormatError, "'{}': expected shape ({}{}), found {}", array.source.string(),
                 fmt::join(shown, ", "), shown.size() == 1 ? "," : "",
                 detail::format_shape(array.shape));
}

void require_npy_shape(const NpyArray& array, std::initializer_list<std::size_t> expected) {
  require_npy_shape(array, std::span<const std::size_t>(expected.begin(), expected.size()));
}

void write_npy(const std::filesystem::path& path, std::span<const float> values,
               std::span<const std::size_t> shape, NpyDtype storage,
               const NpyWriteOptions& options) {
  std::size_t count = 1;
  for (std::size_t extent : shape) {
    LIGHTSIM_CHECK(!__builtin_mul_overflow(count, extent, &count), "shape {} overflows",
                   detail::format_shape(shape));
  }
  LIGHTSIM_CHECK(count == values.size(), "write_npy '{}': shape {} needs {} values, got {}",
                 path.string(), detail::format_shape(shape), count, values.size());
  LIGHTSIM_CHECK(options.version >= 0 && options.version <= 3, "bad .npy version {}",
                 options.version);

  std::string_view descr = storage == NpyDtype::kFloat32   ? "<f4"
                           : storage == NpyDtype::kFloat16 ? "<f2"
                           : storage == NpyDtype::kFloat64 ? "<f8"
                           : options.bfloat16_as_u2        ? "<u2"
                                                           : "<V2";
  std::string dict = detail::format_npy_header(descr, shape);
  // Pad with spaces and a final newline so the data starts on a 64-byte boundary (as np.save).
  auto wrap = [&dict](int version) {
    std::size_t prefix = 8 + (version == 1 ? 2 : 4);
    std::size_t pad = 64 - (prefix + dict.size() + 1) % 64;
    return dict + std::string(pad, ' ') + '\n';
  };
  int version = options.version;
  std::string header = wrap(version == 0 ? 1 : version);
  if (version == 0) version = header.size() <= 0xFFFF ? 1 : 2;
  if (version != 1) header = wrap(version);
  LIGHTSIM_CHECK(version != 1 || header.size() <= 0xFFFF, "shape {} too long for .npy 1.0",
                 detail::format_shape(shape));

  std::string prefix(kMagic.begin(), kMagic.end());
  prefix += static_cast<char>(version);
  prefix += '\0';
  const std::size_t length_bytes = version == 1 ? 2 : 4;
  for (std::size_t i = 0; i < length_bytes; ++i) {
    prefix += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  }

  AtomicFile out(path);
  out.write(prefix);
  out.write(header);
  const std::size_t size = item_size(storage);
  std::vector<unsigned char> chunk(kChunkValues * size);
  for (std::size_t begin = 0; begin < values.size(); begin += kChunkValues) {
    std::size_t n = std::min(kChunkValues, values.size() - begin);
    for (std::size_t i = 0; i < n; ++i) {
      float value = values[begin + i];
      unsigned char* p = chunk.data() + i * size;
      if (storage == NpyDtype::kFloat32) {
        std::memcpy(p, &value, 4);
      } else if (storage == NpyDtype::kFloat64) {
        double wide = value;
        std::memcpy(p, &wide, 8);
      } else {
        std::uint16_t bits =
            storage == NpyDtype::kFloat16 ? float_to_half(value) : float_to_bfloat16(value);
        LIGHTSIM_CHECK_AS(
            NumericError,
            (bits & 0x7FFF) != 0x7C00 || !std::isfinite(value) || storage != NpyDtype::kFloat16,
            "'{}': value {} at flat index {} overflows float16", path.string(), value, begin + i);
        LIGHTSIM_CHECK_AS(
            NumericError,
            (bits & 0x7FFF) != 0x7F80 || !std::isfinite(value) || storage != NpyDtype::kBFloat16,
            "'{}': value {} at flat index {} overflows bfloat16", path.string(), value, begin + i);
        p[0] = static_cast<unsigned char>(bits & 0xFF);
        p[1] = static_cast<unsigned char>(bits >> 8);
      }
    }
    out.write(chunk.data(), n * size);
  }
  out.commit();
}

}  // namespace lightsim
