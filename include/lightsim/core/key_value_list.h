// "KEY=VALUE,KEY=VALUE" lists, as parallelism plans are written ("TP=4,EP=72"): one reader for
// the prefill and decode plans.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace lightsim {

// Calls `item(key, value)` for each non-empty comma-separated item of `text`, the key
// upper-cased and both trimmed of spaces. An item without '=' is a UsageError
// "<what>: '<item>' is not KEY=VALUE (keys <keys>)".
void for_each_key_value(
    std::string_view text, std::string_view what, std::string_view keys,
    const std::function<void(std::string_view key, std::string_view value)>& item);

// `text` in ASCII upper case ("tp" -> "TP").
std::string upper_case(std::string_view text);

// `value` as a whole number in [1, max]; otherwise a UsageError "<what>: KEY=VALUE is not a
// positive integer" (max = INT64_MAX) or "... is not an integer in [1, max]".
std::int64_t positive_integer(std::string_view what, std::string_view key, std::string_view value,
                              std::int64_t max = INT64_MAX);

}  // namespace lightsim
