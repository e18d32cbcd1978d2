// The seed's study: per scenario, the best plan on every fabric at every GPU count, the
// photonic/baseline speedups, the fixed communication-limited plans, and our figures beside
// the seed's (docs/prefill.md, "The seed's study").
#pragma once

#include <string>
#include <vector>

#include "lightsim/prefill/search.h"

namespace lightsim::prefill {

struct StudyPoint {
  std::int64_t gpus = 0;
  std::vector<SearchResult> per_fabric;  // scenario.fabrics order
  std::vector<double> speedup;           // baseline latency / this fabric's (0 = infeasible)
};

struct FixedPoint {
  std::string plan;
  std::int64_t gpus = 0;
  std::vector<Result> per_fabric;
  std::vector<double> speedup;
};

struct ScenarioStudy {
  ScenarioSpec scenario;
  std::vector<fabric::Topology> topologies;  // scenario.fabrics order; [0] = baseline
  std::vector<StudyPoint> points;            // scenario.gpu_counts order
  std::vector<FixedPoint> fixed;             // scenario.fixed_plans order
};

// Runs every search of a scenario (evaluators built once per fabric).
ScenarioStudy run_study(const ScenarioSpec& scenario, const model::Transformer& model,
                        const std::vector<fabric::Topology>& topologies);

// One seed figure against ours, for one photonic fabric.
struct FigureComparison {
  SeedFigure seed;
  std::string fabric;  // the photonic fabric compared with the baseline
  double ours_low = 0, ours_high = 0;
  std::string how;         // how ours was obtained
  bool available = false;  // false when the studies given hold no such figure
  // Relative deviation of our high end from the seed's high end.
  double deviation() const { return seed.high > 0 ? ours_high / seed.high - 1 : 0; }
};

// Our counterpart of each seed figure, over the given studies (definitions in
// docs/prefill.md): speedup = max over GPU counts of best-plan speedups in that scenario;
// speedup_stressed = range over GPU counts of the 8K (high-batch) scenario's key "8k";
// speedup_production = range over scenarios of best-plan speedups above the baseline's
// scale-up domain; speedup_comm_limited = range over fixed plans; scenario "all" +
// "speedup" = max over everything; tokens/s per GPU at the GPU count of the largest speedup.
std::vector<FigureComparison> compare_with_seed(const std::vector<ScenarioStudy>& studies,
                                                const StudySeedReference& seed);

}  // namespace lightsim::prefill
