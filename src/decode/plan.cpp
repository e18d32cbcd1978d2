// Decode plan text form (plan.h).
#include "lightsim/decode/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "lightsim/core/error.h"

namespace lightsim::decode {
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
  LIGHTSIM_CHECK_AS(UsageError,
                    ec == std::errc() && end == value.data() + value.size() && v >= 1 &&
                        v <= (std::int64_t{1} << 20),
                    "decode plan: {}={} is not an integer in [1, 1048576]", key, value);
  return v;
}

}  // namespace

DecodePlan parse_plan(std::string_view text, std::int64_t gpus) {
  DecodePlan p;
  bool dpa_given = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = trim(text.substr(start, end - start));
    start = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    LIGHTSIM_CHECK_AS(UsageError, eq != std::string::npos,
                      "decode plan: '{}' is not KEY=VALUE (keys TP DPA EP PP MOE)", item);
    const std::string key = upper(trim(item.substr(0, eq)));
    const std::string value = trim(item.substr(eq + 1));
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
      const std::string v = upper(value);
      LIGHTSIM_CHECK_AS(UsageError, v == "EP" || v == "TP",
                        "decode plan: MOE={} (expected ep or tp)", value);
      p.moe_tp = v == "TP";
    } else {
      LIGHTSIM_CHECK_AS(UsageError, false, "decode plan: unknown key '{}' (keys TP DPA EP PP MOE)",
                        key);
    }
  }
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
