// Helpers shared by the retrieval studies (support.h).
#include "support.h"

#include <algorithm>

#include <fmt/format.h>

#include "lightsim/core/error.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer_specs.h"
#include "lightsim/prism/scorer.h"

namespace lightsim::studies::support {

kv::EvalOptions retrieval_options(const std::vector<std::int64_t>& ks, std::int64_t block_tokens,
                                  const std::string& projection, std::size_t dim) {
  kv::EvalOptions o;
  o.ks.assign(ks.begin(), ks.end());
  o.blocks.block_tokens = static_cast<std::size_t>(block_tokens);
  o.shared_projection = kv::SharedProjection{kv::standard_projection(projection), dim};
  o.output_error = false;
  return o;
}

kv::ScorerSetup signature_setup(std::string name, std::size_t d, kv::ProjectionSource projection) {
  projection.dim = d;
  return {std::move(name), kv::signature_scorer(std::move(projection))};
}

kv::ScorerSetup prism_setup(std::string name, const prism::AcceleratorSpec& accelerator,
                            std::size_t d, kv::ProjectionSource projection) {
  projection.dim = d;
  return {std::move(name), prism::prism_scorer(accelerator, std::move(projection))};
}

void require_cache_memory(const kv::KvGeneratorSpec& workload, std::uint64_t budget_bytes,
                          std::string_view key, std::size_t threads, std::uint64_t held_bytes) {
  try {
    kv::require_generator_memory(workload, budget_bytes, threads,
                                 kv::evaluation_thread_bytes(kv::generated_geometry(workload)),
                                 held_bytes);
  } catch (const InputError& e) {
    LIGHTSIM_THROW(InputError, "{}: {}", key, e.what());
  }
}

void require_context_memory(const kv::KvGeneratorSpec& workload,
                            const std::vector<std::int64_t>& contexts, std::uint64_t budget_bytes,
                            std::size_t threads) {
  if (contexts.empty()) return;
  kv::KvGeneratorSpec longest = workload;
  longest.tokens = *std::max_element(contexts.begin(), contexts.end());
  require_cache_memory(longest, budget_bytes,
                       fmt::format("contexts (longest {} tokens)", longest.tokens), threads);
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
