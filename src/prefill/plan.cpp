// Plan text form (plan.h).
#include "lightsim/prefill/plan.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "lightsim/core/error.h"

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

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::int64_t positive(std::string_view key, std::string_view value) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  LIGHTSIM_CHECK_AS(UsageError, ec == std::errc() && end == value.data() + value.size() && v >= 1,
                    "plan: {}={} is not a positive integer", key, value);
  return v;
}

}  // namespace

Plan parse_plan(std::string_view text, std::int64_t gpus) {
  Plan p;
  bool ep_given = false, dp_given = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = trim(text.substr(start, end - start));
    start = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    LIGHTSIM_CHECK_AS(UsageError, eq != std::string::npos,
                      "plan: '{}' is not KEY=VALUE (keys TP, CP, EP, EDP, PP, DP, CPA, MB, MOE)",
                      item);
    const std::string key = upper(trim(item.substr(0, eq)));
    const std::string value = trim(item.substr(eq + 1));
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
      const std::string v = upper(value);
      LIGHTSIM_CHECK_AS(UsageError, v == "EP" || v == "TP",
                        "plan: MOE={} is not a routed-expert layout (ep: expert parallel, tp: "
                        "experts sharded over the TP group)",
                        value);
      p.moe_tp = v == "TP";
    } else if (key == "CPA") {
      bool found = false;
      for (CpAlgorithm a :
           {CpAlgorithm::ring_kv, CpAlgorithm::ring_q, CpAlgorithm::ulysses, CpAlgorithm::hybrid})
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
  }
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
