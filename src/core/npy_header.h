// Private: the Python-literal header dictionary of a .npy file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lightsim::detail {

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
};

// Parses "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }" plus trailing padding.
// Exactly these three keys, any order, ' or " quotes. Throws DataFormatError naming `file`.
NpyHeader parse_npy_header(std::string_view text, const std::filesystem::path& file);

// Python repr of a shape tuple: "()", "(3,)", "(3, 4)".
std::string format_shape(std::span<const std::size_t> shape);

// The dictionary text np.save writes (sorted keys, growth padding), without the final padding
// and newline.
std::string format_npy_header(std::string_view descr, std::span<const std::size_t> shape);

}  // namespace lightsim::detail
