// Attention vs feed-forward FLOPs (questions.h).
#include "lightsim/prefill/questions.h"

namespace lightsim::prefill {

AttentionShare attention_share(const model::Transformer& model, const model::DTypePolicy& dtypes,
                               std::int64_t tokens) {
  const model::CostReport r = model::analyze(model, dtypes, model::Workload::prefill(tokens, 1));
  AttentionShare s;
  for (const model::OpGroup& g : r.groups) {
    const double n = static_cast<double>(g.count());
    for (const model::Operator& op : g.ops) {
      const std::string& name = op.name;
      if (op.op_class == model::OpClass::attention)
        s.attention += n * op.flops;
      else if (name == "gate_up" || name == "down" || name == "act_mul" ||
               name.rfind("experts_", 0) == 0 || name.rfind("shared_", 0) == 0)
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
