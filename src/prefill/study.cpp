// The seed's study and the comparison with its figures (study.h).
#include "lightsim/prefill/study.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace lightsim::prefill {

ScenarioStudy run_study(const ScenarioSpec& scenario, const model::Transformer& model,
                        const std::vector<fabric::Topology>& topologies) {
  ScenarioStudy study;
  study.scenario = scenario;
  study.topologies = topologies;
  std::vector<Evaluator> evaluators;
  for (const auto& t : topologies)
    evaluators.emplace_back(scenario, model, t, std::span<const std::int64_t>(scenario.gpu_counts));
  auto speedups = [](auto latency_of, std::size_t n) {
    std::vector<double> s(n, 0.0);
    for (std::size_t f = 0; f < n; ++f)
      if (latency_of(0) > 0 && latency_of(f) > 0) s[f] = latency_of(0) / latency_of(f);
    return s;
  };
  for (std::int64_t n : scenario.gpu_counts) {
    StudyPoint pt;
    pt.gpus = n;
    for (const auto& ev : evaluators) pt.per_fabric.push_back(search(ev, n));
    pt.speedup = speedups(
        [&](std::size_t f) {
          const Result& r = pt.per_fabric[f].best;
          return r.feasible ? r.latency_s : 0.0;
        },
        evaluators.size());
    study.points.push_back(std::move(pt));
  }
  for (const std::string& text : scenario.fixed_plans) {
    FixedPoint fp;
    fp.plan = text;
    const Plan plan = parse_plan(text);
    fp.gpus = plan.gpus();
    for (const auto& ev : evaluators) fp.per_fabric.push_back(ev.evaluate(plan));
    fp.speedup = speedups(
        [&](std::size_t f) {
          const Result& r = fp.per_fabric[f];
          return r.feasible ? r.latency_s : 0.0;
        },
        evaluators.size());
    study.fixed.push_back(std::move(fp));
  }
  return study;
}

namespace {

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  void add(double v) {
    if (v <= 0) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return hi <= 0; }
};

}  // namespace

std::vector<FigureComparison> compare_with_seed(const std::vector<ScenarioStudy>& studies,
                                                const StudySeedReference& seed) {
  std::vector<FigureComparison> out;
  if (studies.empty()) return out;
  const std::size_t fabrics = studies.front().topologies.size();
  for (std::size_t f = 1; f < fabrics; ++f) {
    for (const SeedFigure& fig : seed.figures) {
      FigureComparison c;
      c.seed = fig;
      c.fabric = studies.front().topologies[f].name;
      Range r;
      for (const ScenarioStudy& s : studies) {
        if (f >= s.topologies.size()) continue;
        const bool mine = fig.scenario == "all" || fig.scenario == s.scenario.seed_key;
        if (!mine) continue;
        const std::int64_t domain = s.topologies[0].tiers.front().domain_size;
        if (fig.figure == "speedup") {
          for (const auto& p : s.points) r.add(p.speedup[f]);
          if (fig.scenario == "all")
            for (const auto& p : s.fixed) r.add(p.speedup[f]);
          c.how = fig.scenario == "all" ? "max over scenarios, GPU counts and fixed plans"
                                        : "max over GPU counts, best plan per fabric";
        } else if (fig.figure == "speedup_stressed") {
          for (const auto& p : s.points) r.add(p.speedup[f]);
          c.how = "range over GPU counts, best plan per fabric";
        } else if (fig.figure == "speedup_production") {
          for (const auto& p : s.points)
            if (p.gpus > domain) r.add(p.speedup[f]);
          c.how = "range over scenarios at GPU counts above the baseline's scale-up domain";
        } else if (fig.figure == "speedup_comm_limited") {
          for (const auto& p : s.fixed) r.add(p.speedup[f]);
          c.how = "range over the fixed communication-limited plans";
        } else {
          // tokens/s per GPU at the GPU count of the largest speedup
          const StudyPoint* best = nullptr;
          for (const auto& p : s.points)
            if (best == nullptr || p.speedup[f] > best->speedup[f]) best = &p;
          if (best != nullptr) {
            const std::size_t which = fig.figure == "tokens_per_s_per_gpu_baseline" ? 0 : f;
            const Result& b = best->per_fabric[which].best;
            if (b.feasible) r.add(b.tokens_per_s_per_gpu);
            c.how = fmt::format("best plan at {} GPUs (the largest speedup)", best->gpus);
          }
        }
      }
      if (fig.figure == "speedup" && fig.scenario != "all" && !r.empty()) r.lo = r.hi;
      c.available = !r.empty();
      if (c.available) {
        c.ours_low = fig.low == fig.high ? r.hi : r.lo;
        c.ours_high = r.hi;
      }
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace lightsim::prefill
