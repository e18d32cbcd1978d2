// The specs of the design-space search (design.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "lightsim/kv/scorer.h"
#include "lightsim/prism/design.h"

namespace lightsim::prism {

void DesignSpaceSpec::describe(config::Schema<DesignSpaceSpec>& s) {
  using S = DesignSpaceSpec;
  s.help(
      "Free variables of the Prism design search: one list per variable (empty = the base "
      "accelerator's value); the candidates are their cartesian product.");
  s.field("ring_radius", &S::ring_radius, "ring radius (sets the FSR with n_g)")
      .range("1 um", "1000 um");
  s.field("q_loaded", &S::q_loaded, "loaded Q of the rings (sets the FWHM)").range(1e2, 1e8);
  s.field("channel_spacing", &S::channel_spacing, "WDM channel spacing").range("1 pm", "100 nm");
  s.field("dim", &S::dim, "signature dimension d = wavelength channels = rings per row")
      .range(std::int64_t{1}, std::int64_t{1024});
  s.field("laser_power", &S::laser_power, "laser power per line (e.g. 0 dBm)")
      .range("1 nW", "10 W");
  s.field("rows", &S::rows, "physical rows per chip (fewer than the blocks: time multiplexing)")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("detection", &S::detection,
          "detection modes: balanced (through and drop photodiodes), single_ended (drop only)");
  s.field("weight_bits", &S::weight_bits, "digital weight bits (= weight DAC bits)")
      .range(std::int64_t{2}, std::int64_t{16});
  s.field("lock_precision", &S::lock_precision,
          "rms resonance error the bias lock leaves per ring (impairments.calibration_residual)")
      .range("0 pm", "1000 pm");
  s.field("chips", &S::chips, "chips over the interposer")
      .range(std::int64_t{1}, std::int64_t{1024});
  s.field("query_encoding", &S::query_encoding, "query encodings: intensity, balanced");
  s.field("projection", &S::projection,
          "signature projections (kv_projection: pca, pca_qk, random, first, or qat: trained "
          "through the candidate's quantizers on the first half of the decode steps, every "
          "layout then scored on the second half; empty = the spec's projection), each "
          "scored exactly beside the hardware");
  s.field("block_tokens", &S::block_tokens, "tokens per KV block")
      .range(std::int64_t{1}, std::int64_t{65536});
  s.field("top_k", &S::top_k, "blocks selected per KV head per step (k)")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.rule([](const S& v) -> std::optional<std::string> {
    // The search keeps every candidate with its constraints (DesignResult::all, ~1-2 KB
    // each): 13 lists of 10 values were 10^13 candidates, reserved at once (std::bad_alloc, or
    // a size_t product that wraps). The cap is 29x the largest shipped space (3,456).
    const std::size_t lists[] = {
        v.ring_radius.size(),    v.q_loaded.size(), v.channel_spacing.size(), v.dim.size(),
        v.laser_power.size(),    v.rows.size(),     v.detection.size(),       v.weight_bits.size(),
        v.lock_precision.size(), v.chips.size(),    v.query_encoding.size(),  v.projection.size(),
        v.block_tokens.size(),   v.top_k.size()};
    std::uint64_t product = 1;
    for (const std::size_t n : lists) {
      const std::uint64_t m = std::max<std::size_t>(n, 1);
      product = product <= kMaxDesignCandidates / m ? product * m : kMaxDesignCandidates + 1;
    }
    if (product > kMaxDesignCandidates)
      return fmt::format(
          "the lists give more than {} candidates (their product; the most a design "
          "search may have)",
          kMaxDesignCandidates);
    for (const std::string& e : v.query_encoding)
      if (e != "intensity" && e != "balanced")
        return fmt::format("query_encoding: '{}' is not one of intensity, balanced", e);
    for (const std::string& e : v.projection)
      if (e != "pca" && e != "pca_qk" && e != "random" && e != "first" && e != "qat")
        return fmt::format("projection: '{}' is not one of pca, pca_qk, random, first, qat", e);
    for (const std::string& e : v.detection)
      if (e != "balanced" && e != "single_ended")
        return fmt::format("detection: '{}' is not one of balanced, single_ended", e);
    return std::nullopt;
  });
}

void DesignTargetSpec::describe(config::Schema<DesignTargetSpec>& s) {
  using S = DesignTargetSpec;
  s.help("What the design search must reach and what it minimises.");
  s.enumeration("metric", &S::metric,
                {{"mass_recall", DesignMetric::mass_recall}, {"recall", DesignMetric::recall}},
                "mass_recall = attention mass of the selected blocks / that of the best k; "
                "recall = Recall@k against the top-k of full attention");
  s.field("recall", &S::recall, "the target value of the metric").range(0.0, 1.0);
  s.enumeration("cheapest_by", &S::cheapest_by,
                {{"energy", DesignCost::energy},
                 {"static_power", DesignCost::static_power},
                 {"area", DesignCost::area},
                 {"latency", DesignCost::latency}},
                "the figure the cheapest design minimises (energy per query with static shares "
                "at full rate, static power, area, or latency per decode step)");
}

void PrismDesignSpec::describe(config::Schema<PrismDesignSpec>& s) {
  using S = PrismDesignSpec;
  s.help(
      "A Prism design search (docs/prism.md, 'Design-space search'): a base accelerator, the "
      "free variables, the KV workload and context, and the recall target.");
  s.field("description", &S::description, "what this search asks");
  s.field("accelerator", &S::accelerator,
          "the base accelerator (preset from configs/accelerators); the space overrides its "
          "fields candidate by candidate");
  s.field("workload", &S::workload,
          "synthetic KV cache (kv_synthetic, e.g. preset: qwen2.5-7b-layered); tokens = the "
          "context");
  s.field("projection", &S::projection, "kv_projection fitted once per head and d")
      .one_of({"pca", "pca_qk", "random", "first", "qat"});
  s.field("contexts", &S::contexts,
          "further contexts in tokens the design must serve beside workload.tokens: every "
          "candidate is checked and scored at each and judged by its worst (lowest recall, "
          "highest cost); empty = workload.tokens alone")
      .range(std::int64_t{1}, std::int64_t{1} << 24);
  s.field("space", &S::space, "the free variables");
  s.field("target", &S::target, "recall target and cost to minimise");
  s.rule([](const S& v) -> std::optional<std::string> {
    const bool qat = v.space.projection.empty()
                         ? v.projection == "qat"
                         : std::find(v.space.projection.begin(), v.space.projection.end(), "qat") !=
                               v.space.projection.end();
    if (qat && v.workload.steps < 2)
      return fmt::format(
          "workload.steps: {} decode step(s); a qat projection trains on the first half of "
          "them and is scored on the rest, so it needs at least 2",
          v.workload.steps);
    return std::nullopt;
  });
  // The selection options whose ranges depend on the workload's cache, as kv select checks
  // them (kv::check_selection): d (signature dimension) at most head_dim; k at most the blocks
  // of the smallest context in the largest block size.
  s.rule([](const S& v) -> std::optional<std::string> {
    const std::int64_t head_dim = v.workload.head_dim;
    const bool base_dim = v.space.dim.empty();
    for (std::int64_t d :
         base_dim ? std::vector<std::int64_t>{v.accelerator.device.grid.channels} : v.space.dim)
      if (d < 1 || d > head_dim)
        return kv::out_of_cache_range(
            base_dim ? "accelerator.device.grid.channels (space.dim empty)" : "space.dim", d, 1,
            head_dim,
            fmt::format("a signature projects the key: at most workload.head_dim = {}", head_dim));
    std::int64_t tokens = v.workload.tokens;
    for (std::int64_t c : v.contexts) tokens = std::min(tokens, c);
    std::int64_t block = v.accelerator.programming.block_tokens;
    if (!v.space.block_tokens.empty())
      block = *std::max_element(v.space.block_tokens.begin(), v.space.block_tokens.end());
    if (block < 1) return std::nullopt;  // the accelerator's own rule reports it
    const std::int64_t blocks = (tokens + block - 1) / block;
    const bool base_k = v.space.top_k.empty();
    for (std::int64_t k :
         base_k ? std::vector<std::int64_t>{v.accelerator.selection.top_k} : v.space.top_k)
      if (k < 1 || k > blocks)
        return kv::out_of_cache_range(
            base_k ? "accelerator.selection.top_k (space.top_k empty)" : "space.top_k", k, 1,
            blocks,
            fmt::format("{} blocks at the smallest context, {} tokens in blocks of {}", blocks,
                        tokens, block));
    return std::nullopt;
  });
}

std::string to_string(DesignMetric m) {
  return m == DesignMetric::mass_recall ? "mass_recall" : "recall";
}

std::string to_string(DesignCost c) {
  switch (c) {
    case DesignCost::energy:
      return "energy";
    case DesignCost::static_power:
      return "static_power";
    case DesignCost::area:
      return "area";
    case DesignCost::latency:
      return "latency";
  }
  return "energy";
}

}  // namespace lightsim::prism
