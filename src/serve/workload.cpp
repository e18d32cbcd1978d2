// Synthetic arrival processes and trace files (workload.h; docs/serving.md, "Traffic").
#include "lightsim/serve/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>

#include "lightsim/core/config_files.h"
#include "lightsim/core/error.h"
#include "lightsim/core/input_file.h"
#include "lightsim/core/rng.h"

namespace lightsim::serve {

namespace {

// Stream ids (core/rng.h): one stream per (purpose, request), so request i draws the same
// values however many draws a rejection sampler used for the others.
constexpr std::uint64_t kServeStreams = 0x5e7e;
constexpr std::uint64_t kStreamArrivals = 1, kStreamPrompt = 2, kStreamOutput = 3,
                        kStreamArrivalNormals = 4;

// Gamma(shape k, scale 1) by Marsaglia & Tsang (2000), "A simple method for generating gamma
// variables", ACM TOMS 26(3); k < 1 through Gamma(k + 1) U^(1/k) (their section 6). Normals
// and uniforms come from two streams: a stream's double normal at word p is built from words
// p..p+3, which a uniform drawn next would reuse.
double gamma_variate(double k, RandomStream& normals, RandomStream& uniforms) {
  if (k < 1) {
    const double u = uniforms.uniform();
    return gamma_variate(k + 1, normals, uniforms) * std::pow(1.0 - u, 1.0 / k);
  }
  const double d = k - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double z = normals.normal();
    const double v = std::pow(1.0 + c * z, 3);
    if (v <= 0) continue;
    const double u = uniforms.uniform();
    if (std::log(1.0 - u) < 0.5 * z * z + d - d * v + d * std::log(v)) return d * v;
  }
}

std::int64_t draw_length(const LengthSpec& s, RandomStream& rs) {
  switch (s.distribution) {
    case LengthDistribution::fixed:
      return s.median;
    case LengthDistribution::uniform:
      return s.min + static_cast<std::int64_t>(
                         std::floor(rs.uniform() * static_cast<double>(s.max - s.min + 1)));
    case LengthDistribution::lognormal: {
      const double v = std::round(static_cast<double>(s.median) * std::exp(s.sigma * rs.normal()));
      return std::clamp(static_cast<std::int64_t>(std::min(v, 9e15)), s.min, s.max);
    }
  }
  return s.median;
}

}  // namespace

std::vector<Request> generate_requests(const ArrivalSpec& spec, std::uint64_t seed) {
  std::vector<Request> out;
  const double rate = spec.rate.si();
  if (rate <= 0 || spec.requests <= 0) return out;
  out.reserve(static_cast<std::size_t>(spec.requests));
  // Gamma inter-arrival times of mean 1 / rate and CV cv: shape 1 / cv^2, scale cv^2 / rate.
  const double shape = 1.0 / (spec.cv * spec.cv);
  double t = 0;
  for (std::int64_t i = 0; i < spec.requests; ++i) {
    const auto id = static_cast<std::uint64_t>(i);
    RandomStream gap(seed, {kServeStreams, kStreamArrivals, id});
    if (spec.process == ArrivalProcess::gamma) {
      RandomStream normals(seed, {kServeStreams, kStreamArrivalNormals, id});
      t += gamma_variate(shape, normals, gap) / (shape * rate);
    } else {
      t += -std::log(1.0 - gap.uniform()) / rate;  // exponential, mean 1 / rate
    }
    RandomStream p(seed, {kServeStreams, kStreamPrompt, id});
    RandomStream o(seed, {kServeStreams, kStreamOutput, id});
    out.push_back({.arrival = t,
                   .prompt = draw_length(spec.prompt, p),
                   .output = draw_length(spec.output, o)});
  }
  return out;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '"'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '"'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    out.push_back(
        trim(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start)));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

std::optional<double> parse_number(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level
// Date Algorithms", days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// "YYYY-MM-DD HH:MM:SS[.fraction]" (or with 'T'), as seconds since 1970 (UTC, no zone).
std::optional<double> parse_datetime(std::string_view s) {
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
      s[13] != ':' || s[16] != ':')
    return std::nullopt;
  const auto num = [&](std::size_t at, std::size_t n) -> std::optional<int> {
    int v = 0;
    const auto [end, ec] = std::from_chars(s.data() + at, s.data() + at + n, v);
    if (ec != std::errc{} || end != s.data() + at + n) return std::nullopt;
    return v;
  };
  const auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2);
  const auto sec = parse_number(s.substr(17));
  if (!y || !mo || !d || !h || !mi || !sec || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 ||
      *mi > 59 || *sec < 0 || *sec >= 61)
    return std::nullopt;
  const std::int64_t days =
      days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d));
  return static_cast<double>(days) * 86400.0 + *h * 3600.0 + *mi * 60.0 + *sec;
}

}  // namespace

std::vector<Request> read_trace(const std::filesystem::path& file, const ArrivalSpec& spec) {
  // A year and more: keeps every sum of times in the simulation finite.
  constexpr double kMaxTraceSeconds = 1e9;
  constexpr std::uint64_t kMaxTraceBytes = std::uint64_t{256} << 20;  // 256 MiB, ~10^7 rows
  const std::string text = read_input_file(file, "trace file", kMaxTraceBytes);
  const std::string where = file.string();
  std::vector<Request> out;
  std::size_t pos = 0, line_no = 0;
  int time_col = -1, prompt_col = -1, output_col = -1;
  std::size_t columns = 0;
  bool header = false, datetime = false;
  double origin = 0, last = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view line(text.data() + pos,
                                (nl == std::string::npos ? text.size() : nl) - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    ++line_no;
    if (trim(line).empty()) continue;
    const std::vector<std::string_view> f = split(line);
    if (!header) {
      header = true;
      columns = f.size();
      const auto find = [&](const std::string& name) {
        const auto it = std::find(f.begin(), f.end(), std::string_view(name));
        if (it == f.end()) {
          std::string have;
          for (std::string_view c : f) have += (have.empty() ? "" : ", ") + std::string(c);
          throw DataFormatError(fmt::format(
              "{}:{}: no column '{}' in the header (columns: {}; a trace needs its arrival time in "
              "s, prompt tokens and output tokens, named by arrivals.time_column, prompt_column, "
              "output_column)",
              where, line_no, name, have));
        }
        return static_cast<int>(it - f.begin());
      };
      time_col = find(spec.time_column);
      prompt_col = find(spec.prompt_column);
      output_col = find(spec.output_column);
      continue;
    }
    if (f.size() != columns)
      throw DataFormatError(
          fmt::format("{}:{}: {} fields, the header has {}", where, line_no, f.size(), columns));
    const std::string_view ts = f[static_cast<std::size_t>(time_col)];
    double t = 0;
    if (const auto v = parse_number(ts); v && !datetime) {
      t = *v;
    } else if (const auto dt = parse_datetime(ts); dt && (datetime || out.empty())) {
      if (out.empty()) origin = *dt;
      datetime = true;
      t = *dt - origin;
    } else {
      throw DataFormatError(
          fmt::format("{}:{}: {}: '{}' is not a time (expected seconds >= 0, or YYYY-MM-DD "
                      "HH:MM:SS in every row)",
                      where, line_no, spec.time_column, ts));
    }
    if (t < 0)
      throw DataFormatError(fmt::format("{}:{}: {}: {} is negative (expected seconds >= 0)", where,
                                        line_no, spec.time_column, ts));
    if (t > kMaxTraceSeconds)
      throw DataFormatError(fmt::format(
          "{}:{}: {}: {} is beyond {:g} s after the start (expected seconds in [0, {:g}])", where,
          line_no, spec.time_column, ts, kMaxTraceSeconds, kMaxTraceSeconds));
    if (!out.empty() && t < last)
      throw DataFormatError(fmt::format(
          "{}:{}: {}: {} is before the previous request's time (rows must be sorted by time)",
          where, line_no, spec.time_column, ts));
    const auto tokens = [&](int col, const std::string& name) {
      const std::string_view s = f[static_cast<std::size_t>(col)];
      std::int64_t v = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc{} || end != s.data() + s.size() || s.empty() || v < 1)
        throw DataFormatError(
            fmt::format("{}:{}: {}: '{}' is not a token count (expected an integer >= 1)", where,
                        line_no, name, s));
      return v;
    };
    out.push_back({.arrival = t,
                   .prompt = tokens(prompt_col, spec.prompt_column),
                   .output = tokens(output_col, spec.output_column)});
    last = t;
  }
  if (!header)
    throw DataFormatError(fmt::format("{}:1: empty trace (expected a header line)", where));
  if (out.empty())
    throw DataFormatError(
        fmt::format("{}:{}: the trace has a header but no requests", where, line_no));
  return out;
}

std::string trace_csv(const std::vector<Request>& requests) {
  std::string out = "arrival_s,prompt_tokens,output_tokens\n";
  for (const Request& r : requests)
    out += fmt::format("{:.6f},{},{}\n", r.arrival, r.prompt, r.output);
  return out;
}

std::vector<Request> scenario_requests(const LoadedScenario& scenario,
                                       const config::LoadOptions& options, std::uint64_t seed) {
  const ArrivalSpec& a = scenario.spec.arrivals;
  if (a.process != ArrivalProcess::trace) return generate_requests(a, seed);
  // A bare file name is a path too (find_named reads a name without '/' as a config name).
  const std::string path = a.trace.find('/') == std::string::npos ? "./" + a.trace : a.trace;
  const std::filesystem::path file =
      config::find_named(path, "serve", options.roots_only(), "trace", scenario.file.parent_path());
  return read_trace(file, a);
}

}  // namespace lightsim::serve
