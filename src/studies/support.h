// Helpers shared by the retrieval studies (impairments, context, needle); private to the
// studies module.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/json.h"
#include "lightsim/report/result.h"
#include "lightsim/studies/retrieval.h"

namespace lightsim::studies::support {

// <root>/references/<name>.yaml of the first config root holding it (ConfigNotFound naming the
// roots otherwise, config::find_named). `--set` assignments are for the study's own config, so
// they are dropped.
std::filesystem::path reference_file(std::string_view name, const config::LoadOptions& load);

template <config::Spec S>
S load_reference(std::string_view name, const config::LoadOptions& load) {
  config::LoadOptions roots;
  roots.config_roots = load.config_roots;
  return config::load_spec<S>(reference_file(name, load), roots);
}

// Retrieval options of a study: ks, block size (sink 4 and recent window 512 tokens, the kv
// defaults), the projection fitted once per head and shared.
RetrievalOptions retrieval_options(const std::vector<std::int64_t>& ks, std::int64_t block_tokens,
                                   const std::string& projection, std::size_t dim,
                                   const ScorerCatalog& catalog);

// Index of k in ks (InternalError if absent).
std::size_t k_index(const std::vector<std::int64_t>& ks, std::int64_t k);

// A figure compared with a seed value: holds within `tolerance` (absolute), else does not
// hold; `explanation` says why either way, `conditions` the assumptions (for holds, the
// verdict becomes holds_under_conditions when conditions are given).
void judge(report::Claim& claim, double seed_value, std::optional<double> ours, double tolerance,
           const std::string& conditions, const std::string& explanation);

// A Vega-Lite line chart over a table: rows kept by `filter` (a Vega expression on `datum`),
// x = `x` (quantitative), y = each of `y_fields` (folded into a series `truth`), colour by
// `color` and dash by `dash` (empty: none).
Json line_chart(const std::string& filter, const std::string& x, const std::string& x_title,
                const std::vector<std::string>& y_fields, const std::string& y_title,
                const std::string& color, const std::string& dash, bool log_x = false);

}  // namespace lightsim::studies::support
