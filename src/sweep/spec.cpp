// Sweep specs and their expansion into points (include/lightsim/sweep/spec.h).
#include "lightsim/sweep/spec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "lightsim/core/input_file.h"
#include "lightsim/core/json.h"
#include "lightsim/core/rng.h"

namespace lightsim::sweep {

void AxisSpec::describe(config::Schema<AxisSpec>& s) {
  s.help("One axis of a sweep grid: a config key path and the values it takes.");
  s.field("key", &AxisSpec::key,
          "a request field of the target, or a dotted key path of a config it reads (--set)")
      .required();
  s.field("values", &AxisSpec::values, "values as written in YAML (\"4\", \"2 pm\", \"[1, 2]\")")
      .min_items(1)
      .required();
}

void SampleKeySpec::describe(config::Schema<SampleKeySpec>& s) {
  s.help("One key of a random sample: uniform (or log-uniform) in [min, max], or one of choices.");
  s.field("key", &SampleKeySpec::key, "a request field, or a config key path as for --set")
      .required();
  s.field("min", &SampleKeySpec::min, "lower end, a number with an optional unit (\"1 pm\")");
  s.field("max", &SampleKeySpec::max, "upper end, same unit as min");
  s.field("scale", &SampleKeySpec::scale, "uniform in the value or in its logarithm")
      .one_of({"linear", "log"});
  s.field("integer", &SampleKeySpec::integer, "draw integers in [min, max] (linear scale)");
  s.field("choices", &SampleKeySpec::choices, "draw one of these values instead of a range");
  s.rule([](const SampleKeySpec& k) -> std::optional<std::string> {
    const bool range = !k.min.empty() || !k.max.empty();
    if (!k.choices.empty() && range)
      return fmt::format("key '{}': give either choices or min and max, not both", k.key);
    if (k.choices.empty() && (k.min.empty() || k.max.empty()))
      return fmt::format("key '{}': needs min and max, or choices", k.key);
    return std::nullopt;
  });
}

void SampleSpec::describe(config::Schema<SampleSpec>& s) {
  s.help("A random sample of points: `count` points, each key drawn independently.");
  s.field("count", &SampleSpec::count, "number of points").range(1, kMaxSweepPoints);
  s.field("seed", &SampleSpec::seed, "seed of the sample's random streams").min(0);
  s.field("keys", &SampleSpec::keys, "the keys drawn").min_items(1);
}

void SweepSpec::describe(config::Schema<SweepSpec>& s) {
  s.help(
      "A sweep (`lightsim sweep FILE`, docs/sweeps.md): a target run at every point of a grid, "
      "a list or a random sample of config assignments; results appended to "
      "<out>/<name>.jsonl.");
  s.field("name", &SweepSpec::name, "name of the sweep and of its result store <name>.jsonl")
      .file_name()
      .required();
  s.field("description", &SweepSpec::description, "what the sweep is for");
  s.field("target", &SweepSpec::target,
          "the operation run at each point (`lightsim list operation`), e.g. prism_cost, "
          "prefill_plan, prefill_run, study_run")
      .required();
  s.field("request", &SweepSpec::request,
          "request fields shared by every point, as on the command line (accelerator: seed; "
          "a list field takes comma-separated values)");
  s.field("batch", &SweepSpec::batch,
          "points run between two appends to the store (0 = 4 x threads x ranks)")
      .min(0);
  s.field("grid", &SweepSpec::grid, "axes of a cartesian grid (last axis fastest)");
  s.field("points", &SweepSpec::points, "explicit points, each a map of key path to value");
  s.field("sample", &SweepSpec::sample, "a random sample of points");
  s.rule([](const SweepSpec& sw) -> std::optional<std::string> {
    const int given = int(!sw.grid.empty()) + int(!sw.points.empty()) + int(sw.sample.count > 0);
    if (given != 1) return std::string("give exactly one of grid, points, sample (with count > 0)");
    for (std::size_t a = 0; a < sw.grid.size(); ++a)
      for (std::size_t b = 0; b < a; ++b)
        if (sw.grid[a].key == sw.grid[b].key)
          return fmt::format("grid key '{}' appears twice", sw.grid[a].key);
    // 5 axes of 100 values were 10^10 points, which expand() allocated (std::bad_alloc, exit 1),
    // and 20 such axes overflowed the product.
    if (point_count(sw) > static_cast<std::uint64_t>(kMaxSweepPoints))
      return fmt::format("grid: the axes give more than {} points (the most a sweep may have)",
                         kMaxSweepPoints);
    return std::nullopt;
  });
}

std::uint64_t point_count(const SweepSpec& spec) {
  if (!spec.grid.empty()) {
    constexpr auto kOver = static_cast<std::uint64_t>(kMaxSweepPoints) + 1;
    std::uint64_t product = 1;
    for (const auto& axis : spec.grid) {
      const std::uint64_t n = axis.values.size();
      product = n == 0 || product <= kOver / n ? std::min(product * n, kOver) : kOver;
    }
    return product;
  }
  if (!spec.points.empty()) return spec.points.size();
  return spec.sample.count > 0 ? static_cast<std::uint64_t>(spec.sample.count) : 0;
}

std::vector<std::string> Point::assignments() const {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < keys.size(); ++k) out.push_back(keys[k] + "=" + values[k]);
  return out;
}

std::string fnv1a_hex(std::string_view bytes) {
  return fmt::format("{:016x}", fnv1a64(bytes));
}

std::string Point::id() const {
  auto a = assignments();
  std::sort(a.begin(), a.end());
  std::string joined;
  for (const auto& s : a) joined += s + '\n';
  return fnv1a_hex(joined);
}

Json scalar_json(const std::string& text) {
  const char* b = text.data();
  const char* e = b + text.size();
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(b, e, i); ec == std::errc() && p == e && !text.empty())
    return i;
  double d = 0;
  if (auto [p, ec] = std::from_chars(b, e, d);
      ec == std::errc() && p == e && !text.empty() && std::isfinite(d))
    return d;
  if (text == "true") return true;
  if (text == "false") return false;
  return text;
}

Json Point::values_json() const {
  Json j = Json::object();
  for (std::size_t k = 0; k < keys.size(); ++k) j[keys[k]] = scalar_json(values[k]);
  return j;
}

namespace {

// "12.5 pm" -> {12.5, "pm"}; a bare number has unit "".
std::pair<double, std::string> split_quantity(const std::string& text, const std::string& key) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  LIGHTSIM_CHECK_AS(ConfigError, end != begin && std::isfinite(v),
                    "sample key '{}': '{}' is not a number with an optional unit", key, text);
  std::string unit(end);
  unit.erase(0, unit.find_first_not_of(' '));
  return {v, unit};
}

std::string draw(const SampleKeySpec& k, RandomStream& stream) {
  const double u = stream.uniform();
  if (!k.choices.empty()) {
    const auto n = k.choices.size();
    return k.choices[std::min(n - 1, static_cast<std::size_t>(u * static_cast<double>(n)))];
  }
  const auto [lo, unit] = split_quantity(k.min, k.key);
  const auto [hi, unit_hi] = split_quantity(k.max, k.key);
  LIGHTSIM_CHECK_AS(ConfigError, unit == unit_hi,
                    "sample key '{}': min and max must use the same unit ('{}' vs '{}')", k.key,
                    unit, unit_hi);
  LIGHTSIM_CHECK_AS(ConfigError, lo <= hi, "sample key '{}': min {} > max {}", k.key, k.min, k.max);
  double v = 0;
  if (k.integer) {
    LIGHTSIM_CHECK_AS(
        ConfigError, k.scale == "linear" && lo == std::floor(lo) && hi == std::floor(hi),
        "sample key '{}': integer draws need integer min and max on a linear scale", k.key);
    v = std::min(hi, std::floor(lo + u * (hi - lo + 1)));
    return fmt::format("{}{}", static_cast<std::int64_t>(v), unit.empty() ? "" : " " + unit);
  }
  if (k.scale == "log") {
    LIGHTSIM_CHECK_AS(ConfigError, lo > 0, "sample key '{}': a log scale needs min > 0", k.key);
    v = std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo)));
  } else {
    v = lo + u * (hi - lo);
  }
  return fmt::format("{}{}", v, unit.empty() ? "" : " " + unit);
}

// Stream id of sample draws (arbitrary constant: "SWEP").
constexpr std::uint64_t kSampleStream = 0x53574550;

}  // namespace

std::vector<Point> expand(const SweepSpec& spec) {
  std::vector<Point> out;
  if (!spec.grid.empty()) {
    std::size_t total = 1;
    for (const auto& axis : spec.grid) total *= axis.values.size();
    out.resize(total);
    for (std::size_t i = 0; i < total; ++i) {
      Point& p = out[i];
      p.index = i;
      p.keys.resize(spec.grid.size());
      p.values.resize(spec.grid.size());
      std::size_t rest = i;
      for (std::size_t a = spec.grid.size(); a-- > 0;) {  // last axis fastest
        const auto& axis = spec.grid[a];
        p.keys[a] = axis.key;
        p.values[a] = axis.values[rest % axis.values.size()];
        rest /= axis.values.size();
      }
    }
  } else if (!spec.points.empty()) {
    for (std::size_t i = 0; i < spec.points.size(); ++i) {
      Point p;
      p.index = i;
      for (const auto& [key, value] : spec.points[i]) {
        p.keys.push_back(key);
        p.values.push_back(value);
      }
      out.push_back(std::move(p));
    }
  } else {
    const auto count = static_cast<std::size_t>(spec.sample.count);
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      Point& p = out[i];
      p.index = i;
      for (std::size_t k = 0; k < spec.sample.keys.size(); ++k) {
        RandomStream stream(static_cast<std::uint64_t>(spec.sample.seed), {kSampleStream, i, k});
        p.keys.push_back(spec.sample.keys[k].key);
        p.values.push_back(draw(spec.sample.keys[k], stream));
      }
    }
  }
  return out;
}

std::vector<std::string> key_paths(const SweepSpec& spec) {
  std::vector<std::string> keys;
  auto add = [&](const std::string& k) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  };
  for (const auto& axis : spec.grid) add(axis.key);
  for (const auto& point : spec.points)
    for (const auto& [key, value] : point) add(key);
  for (const auto& k : spec.sample.keys) add(k.key);
  return keys;
}

}  // namespace lightsim::sweep
