// "KEY=VALUE" lists (include/lightsim/core/key_value_list.h).
#include "lightsim/core/key_value_list.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "lightsim/core/error.h"

namespace lightsim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string upper_case(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

void for_each_key_value(
    std::string_view text, std::string_view what, std::string_view keys,
    const std::function<void(std::string_view key, std::string_view value)>& item) {
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string_view entry = trim(text.substr(start, end - start));
    start = end + 1;
    if (entry.empty()) continue;
    const std::size_t eq = entry.find('=');
    LIGHTSIM_CHECK_AS(UsageError, eq != std::string_view::npos,
                      "{}: '{}' is not KEY=VALUE (keys {})", what, entry, keys);
    item(upper_case(trim(entry.substr(0, eq))), trim(entry.substr(eq + 1)));
  }
}

std::int64_t positive_integer(std::string_view what, std::string_view key, std::string_view value,
                              std::int64_t max) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  const bool ok = ec == std::errc() && end == value.data() + value.size() && v >= 1 && v <= max;
  if (max == INT64_MAX)
    LIGHTSIM_CHECK_AS(UsageError, ok, "{}: {}={} is not a positive integer", what, key, value);
  LIGHTSIM_CHECK_AS(UsageError, ok, "{}: {}={} is not an integer in [1, {}]", what, key, value,
                    max);
  return v;
}

}  // namespace lightsim
