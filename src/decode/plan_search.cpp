// Decode plan search (plan_search.h).
#include "lightsim/decode/plan_search.h"

#include <algorithm>

namespace lightsim::decode {
namespace {

std::int64_t largest_divisor_at_most(std::int64_t n, std::int64_t cap) {
  for (std::int64_t d = std::min(n, cap); d >= 1; --d)
    if (n % d == 0) return d;
  return 1;
}

}  // namespace

std::vector<DecodePlan> enumerate_plans(const StepEvaluator& ev, std::int64_t gpus) {
  const ScaleSetup& s = ev.setup();
  const model::Transformer& m = s.model;
  const std::int64_t inner = s.topology.tiers.empty() ? 1 : s.topology.tiers[0].domain_size;
  const std::int64_t layers = static_cast<std::int64_t>(m.layers.size());
  const std::int64_t slots = m.moe.routed_experts + s.scenario.redundant_experts;
  std::vector<DecodePlan> out;
  for (std::int64_t tp = 1; tp <= std::min(gpus, inner); tp *= 2) {
    if (m.attention.heads % tp != 0 || gpus % tp != 0) continue;
    for (std::int64_t pp = 1; pp <= std::min<std::int64_t>(16, layers); pp *= 2) {
      if ((gpus / tp) % pp != 0) continue;
      DecodePlan p;
      p.tp = tp;
      p.pp = pp;
      p.dpa = gpus / (tp * pp);
      const std::int64_t W = p.stage();
      if (m.moe.routed_experts == 0) {
        p.ep = 1;
        out.push_back(p);
        continue;
      }
      const std::int64_t wide = largest_divisor_at_most(W, slots);
      const std::int64_t narrow = largest_divisor_at_most(W, std::min(slots, inner));
      p.ep = wide;
      out.push_back(p);
      if (narrow != wide) {
        p.ep = narrow;
        out.push_back(p);
      }
      if (tp > 1) {
        p.ep = tp;
        p.moe_tp = true;
        out.push_back(p);
      }
    }
  }
  return out;
}

DecodeSearchResult search(const StepEvaluator& ev, std::int64_t gpus, std::int64_t context,
                          double tpot_target, std::int64_t batch, std::int64_t top) {
  DecodeSearchResult r;
  r.gpus = gpus;
  r.tpot_target = tpot_target;
  std::vector<StepBreakdown> found;
  StepBreakdown last;
  for (const DecodePlan& p : enumerate_plans(ev, gpus)) {
    ++r.plans;
    if (!ev.validate(p).empty()) continue;
    StepBreakdown best;
    if (batch > 0) {
      ++r.evaluated;
      best = ev.step_time(p, batch, context);
      if (best.feasible && best.tpot > tpot_target) {
        best.feasible = false;
        best.reason = "misses the TPOT target";
      }
    } else {
      // Largest sequences-per-group b in [1, fit] with tpot <= target (bisection).
      const std::int64_t unit = p.dpa * p.pp;
      const std::int64_t fit = ev.memory(p, context).max_batch / unit;
      std::int64_t lo = 0, hi = fit;
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo + 1) / 2;
        ++r.evaluated;
        StepBreakdown b = ev.step_time(p, mid * unit, context);
        if (b.feasible && b.tpot <= tpot_target) {
          lo = mid;
          best = std::move(b);
        } else {
          hi = mid - 1;
          if (!b.feasible) last = std::move(b);
        }
      }
      if (lo == 0) {
        best.plan = p;
        best.feasible = false;
        best.reason = fit == 0 ? "the weights leave no room for the KV cache"
                               : "misses the TPOT target at one sequence per group";
      }
    }
    if (best.feasible) {
      ++r.feasible;
      found.push_back(std::move(best));
    } else {
      last = std::move(best);
    }
  }
  // Stable: plans of equal throughput keep the enumeration's order.
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
  });
  if (!found.empty()) {
    r.best = found.front();
  } else {
    r.best = last;
    if (r.best.reason.empty()) r.best.reason = "no plan meets the TPOT target";
  }
  if (static_cast<std::int64_t>(found.size()) > top) found.resize(static_cast<std::size_t>(top));
  r.top = std::move(found);
  return r;
}

}  // namespace lightsim::decode
