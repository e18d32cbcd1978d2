// Helpers shared by the retrieval studies (support.h).
#include "support.h"

#include "lightsim/core/error.h"

namespace lightsim::studies::support {

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

Chart line_chart(const std::string& filter, const std::string& x, const std::string& x_title,
                 const std::vector<std::string>& y_fields, const std::string& y_title,
                 const std::string& color, const std::string& dash, bool log_x) {
  Chart c{
      .mark = Mark::line_points, .filters = {filter}, .fold = y_fields, .fold_as = {"truth", "y"}};
  c.x = Channel{.field = x, .type = "quantitative", .title = x_title};
  if (log_x) c.x->scale.type = "log";
  c.y = Channel{.field = "y", .type = "quantitative", .title = y_title};
  c.color = Channel{.field = color.empty() ? "truth" : color, .type = "nominal"};
  if (!dash.empty()) c.stroke_dash = Channel{.field = dash, .type = "nominal"};
  return c;
}

}  // namespace lightsim::studies::support
