// Decode plan text form (plan.h).
#include "lightsim/decode/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "lightsim/core/error.h"
#include "lightsim/core/key_value_list.h"

namespace lightsim::decode {
namespace {

std::int64_t positive(std::string_view key, std::string_view value) {
  return positive_integer("decode plan", key, value, std::int64_t{1} << 20);
}

}  // namespace

DecodePlan parse_plan(std::string_view text, std::int64_t gpus) {
  DecodePlan p;
  bool dpa_given = false;
  for_each_key_value(
      text, "decode plan", "TP DPA EP PP MOE", [&](std::string_view key, std::string_view value) {
        if (key == "TP") {
          p.tp = positive(key, value);
        } else if (key == "DPA" || key == "DP") {
          p.dpa = positive(key, value);
          dpa_given = true;
        } else if (key == "EP") {
          p.ep = positive(key, value);
        } else if (key == "PP") {
          p.pp = positive(key, value);
        } else if (key == "MOE") {
          const std::string v = upper_case(value);
          LIGHTSIM_CHECK_AS(UsageError, v == "EP" || v == "TP",
                            "decode plan: MOE={} (expected ep or tp)", value);
          p.moe_tp = v == "TP";
        } else {
          LIGHTSIM_CHECK_AS(UsageError, false,
                            "decode plan: unknown key '{}' (keys TP DPA EP PP MOE)", key);
        }
      });
  if (!dpa_given && gpus > 0) {
    LIGHTSIM_CHECK_AS(UsageError, gpus % (p.tp * p.pp) == 0,
                      "decode plan: {} GPUs are not a multiple of TP x PP = {}", gpus, p.tp * p.pp);
    p.dpa = gpus / (p.tp * p.pp);
  }
  LIGHTSIM_CHECK_AS(UsageError, gpus <= 0 || p.gpus() == gpus,
                    "decode plan '{}' uses TP x DPA x PP = {} GPUs, not {}", text, p.gpus(), gpus);
  return p;
}

std::string format_plan(const DecodePlan& p) {
  return fmt::format("TP={},DPA={},EP={},PP={},MOE={}", p.tp, p.dpa, p.ep, p.pp,
                     p.moe_tp ? "tp" : "ep");
}

}  // namespace lightsim::decode
