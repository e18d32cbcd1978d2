// Attention vs feed-forward FLOPs (questions.h).
#include "lightsim/prefill/questions.h"

#include <algorithm>

namespace lightsim::prefill {

AttentionShare attention_share(const model::Transformer& model, const model::DTypePolicy& dtypes,
                               std::int64_t tokens) {
  const model::CostReport r = model::analyze(model, dtypes, model::Workload::prefill(tokens, 1));
  AttentionShare s;
  for (const model::OpGroup& g : r.groups) {
    const double n = static_cast<double>(g.count());
    for (const model::Operator& op : g.ops) {
      if (op.op_class == model::OpClass::attention)
        s.attention += n * op.flops;
      else if (op.kind == model::OpKind::dense_ffn || op.kind == model::OpKind::routed_expert ||
               op.kind == model::OpKind::shared_expert)
        s.feed_forward += n * op.flops;
    }
  }
  return s;
}

std::int64_t attention_crossover(const model::Transformer& model,
                                 const model::DTypePolicy& dtypes) {
  auto over = [&](std::int64_t s) {
    const AttentionShare a = attention_share(model, dtypes, s);
    return a.attention > a.feed_forward;
  };
  std::int64_t lo = 1, hi = std::int64_t{1} << 26;
  if (!over(hi)) return -1;
  while (hi - lo > 1) {  // invariant: !over(lo) (or lo = 1), over(hi)
    const std::int64_t mid = lo + (hi - lo) / 2;
    (over(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace lightsim::prefill

namespace lightsim::prefill {

MixedResult static_vs_dynamic(const Evaluator& short_requests, const Evaluator& long_requests,
                              std::int64_t gpus, std::int64_t step) {
  MixedResult m;
  LIGHTSIM_CHECK_AS(ConfigError, step >= 1 && gpus % step == 0 && gpus >= 2 * step,
                    "mixed workload: {} GPUs must be at least two multiples of the step {}", gpus,
                    step);
  const SearchResult all_short = search(short_requests, gpus);
  const SearchResult all_long = search(long_requests, gpus);
  m.searches = 2;
  if (all_short.best.feasible && all_long.best.feasible) {
    m.dynamic_long_ttft_s = all_long.best.ttft_s;
    m.dynamic_makespan_s = all_long.best.latency_s + all_short.best.latency_s;
  }
  for (std::int64_t g = step; g < gpus; g += step) {
    const SearchResult s = search(short_requests, g);
    const SearchResult l = search(long_requests, gpus - g);
    m.searches += 2;
    if (!s.best.feasible || !l.best.feasible) continue;
    const double makespan = std::max(s.best.latency_s, l.best.latency_s);
    if (m.static_makespan_s == 0 || makespan < m.static_makespan_s) {
      m.static_makespan_s = makespan;
      m.static_short_gpus = g;
      m.static_long_gpus = gpus - g;
      m.static_long_ttft_s = l.best.ttft_s;
    }
  }
  m.feasible = m.static_makespan_s > 0 && m.dynamic_makespan_s > 0;
  if (!m.feasible) m.reason = "no feasible plan for one of the shapes on some partition";
  return m;
}

}  // namespace lightsim::prefill
