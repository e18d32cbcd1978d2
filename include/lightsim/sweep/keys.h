// Validation of sweep key paths against the target's config schema, before any point runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"

namespace lightsim::sweep {

// Every key path `schema` accepts, depth first: "a", "a.b", ... (nested specs are walked;
// a map of specs contributes "<map>.NAME..." with the literal placeholder NAME).
std::vector<std::string> valid_paths(const config::SchemaInfo& schema);

// Checks that `path` names a field of `schema` (walking nested specs; any name is accepted
// under a map field). Throws ConfigError "<where>: key '<path>' is not a key of the <kind>
// config (did you mean '<closest>'?)" or "... '<x>' is a <type> and has no key '<y>'".
void check_key_path(const config::SchemaInfo& schema, std::string_view path,
                    std::string_view where);

// check_key_path for each key, plus: no key twice, no key inside another key's value.
void check_key_paths(const config::SchemaInfo& schema, const std::vector<std::string>& keys,
                     std::string_view where);

}  // namespace lightsim::sweep
