// A study as a declaration (docs/studies.md, "Writing a study"): its spec kind, its seed
// reference, its header, its claim rules and its evaluate function. One runner (runner.h)
// reads the spec, loads the reference, fills the header, judges the claims and returns the
// report::StudyResult; the definition holds only what is particular to the study.
//
//   const Definition<DecodeStudySpec, decode::DecodeSeedReference> kDecode{
//       .name = "decode", .help = "decode end to end (SPEC 1.7)",
//       .title = "Decode end to end", .spec_section = "SPEC 1.7",
//       .reference = "references/decode_seed.yaml",
//       .claims = {{.id = "latency_ratio", .unit = "x",
//                   .tolerance = &DecodeStudySpec::tolerance,
//                   .text = [](const auto& s) { return fmt::format("{}x lower", s.latency_ratio);
//                   }, .seed = [](const auto& s) { return SeedValue::point(s.latency_ratio); }}},
//       .evaluate = evaluate_decode};
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "lightsim/report/result.h"
#include "lightsim/studies/judge.h"

namespace lightsim::studies {

template <class Spec, class Reference>
class Run;

// The reference kind of a study that checks no seed figures.
struct NoReference {};

// A claim of the seed checked by a study: the words and the figure come from the reference
// (never typed into the study), the comparison from the declaration, the tolerance from the
// study's spec.
template <class Spec, class Reference>
struct ClaimRule {
  std::string id{};    // [a-z0-9_]+, unique within the study
  std::string unit{};  // of the seed's figure and ours
  Comparison comparison = Comparison::relative;
  double Spec::*tolerance = nullptr;  // the spec's field; nullptr: 0 (bounds, directions)
  std::function<std::string(const Reference&)> text{};        // the claim in words
  std::function<report::SeedValue(const Reference&)> seed{};  // the seed's figure
};

// The header title: fixed, or built from the spec and the reference.
template <class Spec, class Reference>
struct Title {
  Title() = default;
  Title(const char* text)
      : of([t = std::string(text)](const Spec&, const Reference&) { return t; }) {}
  template <class F>
  requires std::is_invocable_r_v<std::string, F, const Spec&, const Reference&> Title(F f)
      : of(std::move(f)) {}
  std::function<std::string(const Spec&, const Reference&)> of{};
};

template <class Spec, class Reference = NoReference>
struct Definition {
  std::string name{};              // registered name; the result file is <name>.json
  std::string help{};              // one line for `lightsim study list`
  Title<Spec, Reference> title{};  // the result's title
  std::string spec_section{};      // where the claims come from ("" if none)
  // The seed reference, a path relative to a config root ("references/x_seed.yaml"); read
  // from `reference_key` of the spec instead when that is set. Unused for NoReference.
  std::string reference{};
  std::string Spec::*reference_key = nullptr;
  std::vector<ClaimRule<Spec, Reference>> claims{};
  // Computes the study: tables, claims and charts through the run.
  std::function<void(Run<Spec, Reference>&)> evaluate{};
  // Refuses, from the spec alone and before anything is allocated, a run whose largest arrays
  // exceed `budget_bytes` (an InputError led by the key that sets their size, e.g.
  // "contexts (2097152 tokens): a generated KV cache of ... needs ~4.0 GiB, more than the
  // memory budget ..."; core/memory_budget.h require_memory). `threads` is the run's worker
  // threads (Context::threads): each holds its own per-head work buffers, counted beside the
  // arrays (support::require_cache_memory). Empty for a study whose memory does not grow with
  // its config. The runner prefixes the config file (StudyMemoryCheck).
  // `load` reads what the spec names (a profile the study generates besides its workload).
  std::function<void(const Spec&, std::uint64_t budget_bytes, std::size_t threads,
                     const config::LoadOptions& load)>
      require_memory{};
};

}  // namespace lightsim::studies
