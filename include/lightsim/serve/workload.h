// The requests a serving run replays: generated from an arrival process with counter-based
// random streams (core/rng.h), one stream per (seed, purpose, request index): the gap before
// request i, its prompt and its output length each have their own, so request i is the same
// whatever else is drawn and however many draws a rejection sampler used; or read from a CSV
// trace.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lightsim/serve/scenario.h"

namespace lightsim::serve {

struct Request {
  double arrival = 0;       // s from the start of the run
  std::int64_t prompt = 0;  // prompt tokens (>= 1)
  std::int64_t output = 0;  // output tokens, the first one (made by prefill) included (>= 1)
};

// `spec.requests` requests of a poisson or gamma process (arrival of the first = its
// inter-arrival time), sorted by arrival. rate 0 or requests 0: none.
std::vector<Request> generate_requests(const ArrivalSpec& spec, std::uint64_t seed);

// Reads a trace CSV: a header line naming at least the three columns of `spec` (other columns
// are ignored, columns are matched by name), then one request per line: arrival time in s
// (in [0, 1e9] s, non-decreasing), prompt tokens and output tokens (integers >= 1). A missing file,
// missing column, malformed or negative number, unsorted time or a trace without requests is
// a DataFormatError "FILE:LINE: ..." (exit 2). Time columns named TIMESTAMP may also hold
// ISO-8601 date-times ("2023-11-16 18:15:46.6805900"), read as seconds after the first row.
std::vector<Request> read_trace(const std::filesystem::path& file, const ArrivalSpec& spec);

// Writes requests as a trace CSV with the columns arrival_s, prompt_tokens, output_tokens
// (what read_trace reads with the default column names).
std::string trace_csv(const std::vector<Request>& requests);

// The requests of a scenario: its synthetic process, or its trace resolved against the
// scenario's folder and the config roots of `options`.
std::vector<Request> scenario_requests(const LoadedScenario& scenario,
                                       const config::LoadOptions& options, std::uint64_t seed);

}  // namespace lightsim::serve
