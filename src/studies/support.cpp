// Helpers shared by the retrieval studies (support.h).
#include "support.h"

#include <cmath>

#include "lightsim/core/config_files.h"
#include "lightsim/core/error.h"

namespace lightsim::studies::support {

std::filesystem::path reference_file(std::string_view name, const config::LoadOptions& load) {
  return config::find_named(std::string(name), "references", load, "seed reference");
}

RetrievalOptions retrieval_options(const std::vector<std::int64_t>& ks, std::int64_t block_tokens,
                                   const std::string& projection, std::size_t dim,
                                   const ScorerCatalog& catalog) {
  RetrievalOptions o;
  o.ks.assign(ks.begin(), ks.end());
  o.blocks.block_tokens = static_cast<std::size_t>(block_tokens);
  o.shared_projection = projection;
  o.dim = dim;
  o.projections = &catalog.projections;
  return o;
}

std::size_t k_index(const std::vector<std::int64_t>& ks, std::int64_t k) {
  for (std::size_t i = 0; i < ks.size(); ++i)
    if (ks[i] == k) return i;
  LIGHTSIM_THROW(InternalError, "k = {} is not among the study's ks", k);
}

void judge(report::Claim& claim, double seed_value, std::optional<double> ours, double tolerance,
           const std::string& conditions, const std::string& explanation) {
  claim.seed_value = report::SeedValue::point(seed_value);
  claim.ours = ours;
  claim.explanation = explanation;
  if (!ours) {
    claim.verdict = report::Verdict::not_comparable;
    if (claim.explanation.empty()) claim.explanation = "the study's config has no such point";
    return;
  }
  if (std::abs(*ours - seed_value) <= tolerance) {
    claim.verdict =
        conditions.empty() ? report::Verdict::holds : report::Verdict::holds_under_conditions;
    claim.conditions = conditions;
  } else {
    claim.verdict = report::Verdict::does_not_hold;
  }
}

Json line_chart(const std::string& filter, const std::string& x, const std::string& x_title,
                const std::vector<std::string>& y_fields, const std::string& y_title,
                const std::string& color, const std::string& dash, bool log_x) {
  Json spec = Json::object();
  spec["mark"] = {{"type", "line"}, {"point", true}};
  Json transform = Json::array();
  transform.push_back({{"filter", filter}});
  transform.push_back({{"fold", y_fields}, {"as", {"truth", "y"}}});
  spec["transform"] = transform;
  Json xenc = {{"field", x}, {"type", "quantitative"}, {"title", x_title}};
  if (log_x) xenc["scale"] = {{"type", "log"}};
  spec["encoding"] = {{"x", xenc},
                      {"y", {{"field", "y"}, {"type", "quantitative"}, {"title", y_title}}}};
  spec["encoding"]["color"] = {{"field", color.empty() ? "truth" : color}, {"type", "nominal"}};
  if (!dash.empty()) spec["encoding"]["strokeDash"] = {{"field", dash}, {"type", "nominal"}};
  return spec;
}

}  // namespace lightsim::studies::support
