// Names that become file names inside an output folder (a sweep's store <out>/<name>.jsonl, a
// study's <out>/<study>.json and its tables' CSV files): restricted to a safe character set so
// nothing is ever written outside the folder (no '/', no '..', no absolute path, no hidden or
// empty name).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace lightsim {

inline constexpr std::size_t kMaxFileNameLength = 128;

// nullopt when `name` is 1 to kMaxFileNameLength characters of [A-Za-z0-9._-] and does not start
// with '.'; else why not ("contains '/'", "is empty", ...).
std::optional<std::string> file_name_problem(std::string_view name);

// InputError "<what> '<name>' <problem>: a name of letters, digits, '.', '_' and '-' ..." unless
// `name` is a safe file name.
void require_file_name(std::string_view name, std::string_view what);

// The constraint as documented (config reference, error messages).
inline constexpr std::string_view kFileNameRule =
    "letters, digits, '.', '_' and '-', not starting with '.', at most 128 characters";

}  // namespace lightsim
