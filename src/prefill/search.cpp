// Plan enumeration and search (search.h).
#include "lightsim/prefill/search.h"

#include <algorithm>
#include <array>
#include <chrono>

#include "lightsim/core/error.h"

namespace lightsim::prefill {

namespace {

// EP candidates for a stage of w GPUs: the largest divisor of w holding at most every expert
// slot on its own rank (fewest expert weights per GPU), and the largest divisor within the
// innermost domain (all-to-all on the fastest tier, experts replicated across domains).
void ep_candidates(std::int64_t w, std::int64_t slots, std::int64_t inner,
                   std::array<std::int64_t, 2>& out, int& n) {
  std::int64_t most = 1, in_domain = 1;
  for (std::int64_t d = 1; d <= w; ++d) {
    if (w % d != 0) continue;
    if (d <= slots) most = d;
    if (d <= slots && d <= inner) in_domain = d;
  }
  out = {most, in_domain};
  n = most == in_domain ? 1 : 2;
}

// Inserts r into `kept` (at most `top` results by ascending latency) after every result of
// equal latency, so ties keep the enumeration order: the first `top` of a stable sort of all.
void keep_top(std::vector<Result>& kept, const Result& r, std::size_t top) {
  if (top == 0 || (kept.size() == top && !(r.latency_s < kept.back().latency_s))) return;
  const auto at = std::upper_bound(
      kept.begin(), kept.end(), r.latency_s,
      [](double latency, const Result& other) { return latency < other.latency_s; });
  const auto index = at - kept.begin();
  if (kept.size() == top) kept.pop_back();
  kept.insert(kept.begin() + index, r);
}

// Calls visit(plan) for every candidate of `gpus` GPUs, in enumeration order.
template <class Visit>
void for_each_plan(const Evaluator& ev, std::int64_t gpus, Visit&& visit) {
  const model::Transformer& m = ev.model();
  const std::int64_t heads = m.attention.heads;
  const std::int64_t inner = ev.topology().tiers.front().domain_size;
  const std::int64_t layers = static_cast<std::int64_t>(m.layers.size());
  const std::int64_t S = ev.scenario().sequence_length;
  const std::int64_t slots = m.moe.routed_experts > 0
                                 ? m.moe.routed_experts + ev.scenario().routing.redundant_experts
                                 : gpus;
  for (std::int64_t pp = 1; pp <= std::min<std::int64_t>(16, layers); pp *= 2) {
    if (gpus % pp != 0) continue;
    const std::int64_t per_pp = gpus / pp;
    for (std::int64_t tp = 1; tp <= std::min(inner, heads); tp *= 2) {
      if (heads % tp != 0 || per_pp % tp != 0) continue;
      for (std::int64_t cp = 1; cp * tp <= per_pp; ++cp) {
        if (per_pp % (cp * tp) != 0 || 2 * cp > S) continue;
        for (std::int64_t w = tp * cp; w <= per_pp; w += tp * cp) {
          if (per_pp % w != 0) continue;
          std::array<std::int64_t, 2> eps{};
          int n_ep = 0;
          ep_candidates(w, slots, inner, eps, n_ep);
          for (int e = 0; e < n_ep; ++e)
            for (int a = 0; a < (cp > 1 ? 4 : 1); ++a)
              for (std::int64_t mb = pp; mb <= (pp > 1 ? 4 * pp : 1); mb *= 2)
                visit(Plan{tp, cp, eps[static_cast<std::size_t>(e)], pp, per_pp / w,
                           static_cast<CpAlgorithm>(a), mb, w / eps[static_cast<std::size_t>(e)]});
        }
      }
    }
  }
}

}  // namespace

std::vector<Plan> enumerate_plans(const Evaluator& ev, std::int64_t gpus) {
  std::vector<Plan> plans;
  for_each_plan(ev, gpus, [&plans](const Plan& p) { plans.push_back(p); });
  return plans;
}

SearchResult search(const Evaluator& ev, std::int64_t gpus, std::size_t top,
                    const std::atomic<bool>* cancel) {
  const auto start = std::chrono::steady_clock::now();
  SearchResult out;
  out.gpus = gpus;
  for_each_plan(ev, gpus, [&](const Plan& p) {
    if (cancel != nullptr && out.evaluated % 256 == 0 && cancel->load(std::memory_order_relaxed))
      LIGHTSIM_THROW(Interrupted,
                     "prefill plan search of {} GPUs ({} plans evaluated): interrupted", gpus,
                     out.evaluated);
    Result r = ev.evaluate(p);
    ++out.evaluated;
    if (!r.feasible) {
      if (!out.best.feasible) out.best = std::move(r);
      return;
    }
    ++out.feasible;
    keep_top(out.top, r, top);
    if (!out.best.feasible || r.latency_s < out.best.latency_s) out.best = std::move(r);
  });
  if (out.evaluated == 0) {
    out.best.gpus = gpus;
    out.best.reason = "no plan passes the enumeration rules for this GPU count";
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::vector<std::size_t> pareto_front(const std::vector<SearchResult>& results) {
  std::vector<std::size_t> front;
  double best = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i].best;
    if (!r.feasible) continue;
    if (front.empty() || r.latency_s < best) {
      front.push_back(i);
      best = r.latency_s;
    }
  }
  return front;
}

}  // namespace lightsim::prefill
