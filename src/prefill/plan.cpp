// Plan text form (plan.h).
#include "lightsim/prefill/plan.h"

#include <algorithm>
#include <string>

#include "lightsim/core/error.h"
#include "lightsim/core/key_value_list.h"

namespace lightsim::prefill {

std::string_view cp_algorithm_name(CpAlgorithm a) {
  switch (a) {
    case CpAlgorithm::ring_kv:
      return "ring_kv";
    case CpAlgorithm::ring_q:
      return "ring_q";
    case CpAlgorithm::ulysses:
      return "ulysses";
    case CpAlgorithm::hybrid:
      return "hybrid";
  }
  return "?";
}

namespace {

std::int64_t positive(std::string_view key, std::string_view value) {
  return positive_integer("plan", key, value);
}

}  // namespace

Plan parse_plan(std::string_view text, std::int64_t gpus) {
  Plan p;
  bool ep_given = false, dp_given = false;
  for_each_key_value(
      text, "plan", "TP, CP, EP, EDP, PP, DP, CPA, MB, MOE",
      [&](std::string_view key, std::string_view value) {
        if (key == "TP") {
          p.tp = positive(key, value);
        } else if (key == "CP") {
          p.cp = positive(key, value);
        } else if (key == "EP") {
          p.ep = positive(key, value);
          ep_given = true;
        } else if (key == "PP") {
          p.pp = positive(key, value);
        } else if (key == "DP") {
          p.dp = positive(key, value);
          dp_given = true;
        } else if (key == "EDP") {
          p.edp = positive(key, value);
        } else if (key == "MB") {
          p.microbatches = positive(key, value);
        } else if (key == "MOE") {
          const std::string v = upper_case(value);
          LIGHTSIM_CHECK_AS(UsageError, v == "EP" || v == "TP",
                            "plan: MOE={} is not a routed-expert layout (ep: expert parallel, tp: "
                            "experts sharded over the TP group)",
                            value);
          p.moe_tp = v == "TP";
        } else if (key == "CPA") {
          bool found = false;
          for (CpAlgorithm a : {CpAlgorithm::ring_kv, CpAlgorithm::ring_q, CpAlgorithm::ulysses,
                                CpAlgorithm::hybrid})
            if (value == cp_algorithm_name(a)) {
              p.cp_algorithm = a;
              found = true;
            }
          LIGHTSIM_CHECK_AS(UsageError, found,
                            "plan: CPA={} is not a CP algorithm (ring_kv, ring_q, ulysses, hybrid)",
                            value);
        } else {
          LIGHTSIM_THROW(UsageError,
                         "plan: unknown key '{}' (expected TP, CP, EP, EDP, PP, DP, CPA, MB, MOE)",
                         key);
        }
      });
  if (!ep_given) p.ep = p.moe_tp ? p.tp : p.tp * p.cp;
  if (!dp_given && gpus > 0) p.dp = std::max<std::int64_t>(1, gpus / (p.stage() * p.pp));
  return p;
}

std::string format_plan(const Plan& p) {
  std::string s = "TP=" + std::to_string(p.tp) + ",CP=" + std::to_string(p.cp) +
                  ",EP=" + std::to_string(p.ep) +
                  (p.edp > 1 ? ",EDP=" + std::to_string(p.edp) : std::string()) +
                  ",PP=" + std::to_string(p.pp) + ",DP=" + std::to_string(p.dp);
  if (p.cp > 1) s += ",CPA=" + std::string(cp_algorithm_name(p.cp_algorithm));
  if (p.pp > 1 || p.microbatches > 1) s += ",MB=" + std::to_string(p.microbatches);
  if (p.moe_tp) s += ",MOE=tp";
  return s;
}

}  // namespace lightsim::prefill
