#include "lightsim/core/file_name.h"

#include <fmt/format.h>

#include "lightsim/core/error.h"

namespace lightsim {

namespace {
bool allowed(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}
}  // namespace

std::optional<std::string> file_name_problem(std::string_view name) {
  if (name.empty()) return std::string("is empty");
  if (name.size() > kMaxFileNameLength)
    return fmt::format("is {} characters long (at most {})", name.size(), kMaxFileNameLength);
  if (name.front() == '.') return std::string("starts with '.'");
  for (char c : name) {
    if (allowed(c)) continue;
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) return fmt::format("contains '{}'", c);
    return fmt::format("contains the byte 0x{:02x}", byte);
  }
  return std::nullopt;
}

void require_file_name(std::string_view name, std::string_view what) {
  if (const auto problem = file_name_problem(name))
    LIGHTSIM_THROW(InputError,
                   "{} '{}' {}: it names a file inside the output folder, so it must "
                   "be {}",
                   what, name, *problem, kFileNameRule);
}

}  // namespace lightsim
