// The lightsim JSON document type, forward-declared: include this (cheap) in headers that only
// mention Json in declarations; include "lightsim/core/json.h" to build or inspect documents.
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace lightsim {

// Objects keep insertion order, so output bytes depend only on how the document was built.
using Json = nlohmann::ordered_json;

}  // namespace lightsim
