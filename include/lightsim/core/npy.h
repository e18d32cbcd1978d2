// NumPy .npy files: read float arrays (converted to float32), write them in a chosen storage type.
//
// Supported: format versions 1.0, 2.0 and 3.0; little-endian; C order; dtypes
//   '<f4' float32, '<f2' float16, '<f8' float64 and bfloat16.
// bfloat16: NumPy has no bfloat16. With ml_dtypes, np.save writes a bfloat16 array with
// descr '<V2' (ml_dtypes registers it as a 2-byte void kind, and np.save records dtype.str), and
// np.load returns it as raw 2-byte voids: view it with `.view(ml_dtypes.bfloat16)`. Some tools
// write descr 'bfloat16' (str(dtype)) instead. read_npy takes '<V2', '|V2' and 'bfloat16' as
// bfloat16; write_npy writes '<V2'.
// Fallback convention for tools without ml_dtypes: raw bfloat16 bits stored as '<u2' (uint16).
// A '<u2' file carries no hint, so the caller must state it: NpyReadOptions::u2_is_bfloat16 on
// read, NpyWriteOptions::bfloat16_as_u2 on write.
//
// Errors: a missing file -> InputError naming the path; anything wrong with the content (bad
// magic, version, header, big-endian, Fortran order, dtype, size, rank) -> DataFormatError
// naming the file and what was expected vs found. Shapes are checked for overflow and against
// the file size before any data is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace lightsim {

enum class NpyDtype : std::uint8_t { kFloat32, kFloat16, kBFloat16, kFloat64 };

// "float32", "float16", "bfloat16", "float64".
std::string_view to_string(NpyDtype dtype);

struct NpyArray {
  NpyDtype dtype = NpyDtype::kFloat32;  // storage type in the file
  std::vector<std::size_t> shape;       // C order; empty for a 0-d (scalar) array
  std::vector<float> values;            // product(shape) values, row-major
  std::filesystem::path source;         // file it was read from, for error messages
};

struct NpyReadOptions {
  std::optional<std::size_t> expected_rank = std::nullopt;  // DataFormatError if the rank differs
  bool u2_is_bfloat16 = false;                              // accept '<u2' as raw bfloat16 bits
  // Header length limit in bytes (NumPy's np.load refuses more than 10000 by default).
  std::size_t max_header_bytes = 65536;
};

// Reads `path`. float64 values are rounded to float32; a finite value beyond float32 range is a
// DataFormatError.
NpyArray read_npy(const std::filesystem::path& path, const NpyReadOptions& options = {});
NpyArray read_npy(const std::filesystem::path& path, std::size_t expected_rank);

// Matches any extent in require_npy_shape.
inline constexpr std::size_t kAnyExtent = std::numeric_limits<std::size_t>::max();

// Throws DataFormatError naming array.source unless array.shape equals `expected`
// (kAnyExtent matches any extent), e.g. require_npy_shape(a, {rows, kAnyExtent}).
void require_npy_shape(const NpyArray& array, std::span<const std::size_t> expected);
void require_npy_shape(const NpyArray& array, std::initializer_list<std::size_t> expected);

struct NpyWriteOptions {
  // 0: the lowest version that can hold the header (1.0 in practice); else 1, 2 or 3.
  int version = 0;
  bool bfloat16_as_u2 = false;  // write bfloat16 as '<u2' (fallback convention) instead of '<V2'
};

// Writes `values` (row-major, product(shape) of them; InternalError otherwise) atomically as
// `storage`. Narrowing rounds to nearest even; a finite value that overflows the storage type
// throws NumericError naming its index. The header matches np.save's byte for byte.
void write_npy(const std::filesystem::path& path, std::span<const float> values,
               std::span<const std::size_t> shape, NpyDtype storage,
               const NpyWriteOptions& options = {});

}  // namespace lightsim
