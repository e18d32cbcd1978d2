// Study `energy` (energy.h; docs/studies.md "energy"): energy and latency per block-selection
// query (one KV head, one decode step) across contexts for Prism, GPU scans of block
// summaries, FAISS IVF-PQ and an LPDDR5 read; the crossover; TFLN vs SOI system power.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "energy_run.h"
#include "lightsim/core/config_files.h"
#include "lightsim/fabric/gpu.h"
#include "lightsim/fabric/memory.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/studies/energy.h"
#include "lightsim/studies/system.h"
#include "support.h"

namespace lightsim::studies {
namespace {

using energy_detail::EnergyRun;
using energy_detail::Figures;
using energy_detail::find;
using energy_detail::kMicro;
using energy_detail::kNano;
using energy_detail::Point;
using energy_detail::with_tec;

struct Gpu {
  std::string name;  // as listed in the config
  fabric::GpuSpec spec;
};

std::vector<Gpu> load_gpus(const EnergyStudySpec& spec, const config::LoadOptions& load) {
  std::vector<Gpu> out;
  for (const std::string& name : spec.gpus) {
    const auto file = config::find_named(name, "gpus", ".yaml", load, "gpu");
    Gpu g{name, config::load_spec<fabric::GpuSpec>(file, load)};
    LIGHTSIM_CHECK_AS(ConfigError, g.spec.hbm_energy_per_byte.has_value(),
                      "{}: hbm_energy_per_byte: not set; the energy study needs the HBM read "
                      "energy per byte (e.g. 3.9 pJ/b, with its source in a comment)",
                      file.string());
    out.push_back(std::move(g));
  }
  return out;
}

std::string summary_name(int summaries) {
  return summaries == 2 ? "minmax" : "mean";
}

void add_prism_row(EnergyRun& run, std::int64_t context, std::int64_t blocks,
                   const PrismAtContext& p) {
  if (!p.fits) {
    run.add_row("prism", {{"context", context},
                          {"blocks", blocks},
                          {"accelerator", std::string("-")},
                          {"passes", std::int64_t{0}},
                          {"chips", std::int64_t{0}},
                          {"dynamic_energy", 0.0},
                          {"energy_with_tec", 0.0},
                          {"total_energy_full_rate", 0.0},
                          {"latency", 0.0},
                          {"fits", false},
                          {"feasible", false},
                          {"note", p.reason}});
    return;
  }
  const prism::CostReport& c = p.cost;
  std::string note;
  if (!c.feasibility.feasible) {
    note = "device check fails:";
    for (const auto& r : c.feasibility.reasons()) note += " " + r;
  }
  if (!c.tec_included)
    note += (note.empty() ? "" : "; ") +
            ("TEC infeasible, left out (energy_with_tec = dynamic): " + c.thermal.reason);
  run.add_row("prism", {{"context", context},
                        {"blocks", blocks},
                        {"accelerator", p.accelerator},
                        {"passes", std::int64_t{c.timeline.passes}},
                        {"chips", std::int64_t{c.timeline.chips}},
                        {"dynamic_energy", c.dynamic_energy * kNano},
                        {"energy_with_tec", with_tec(c) * kNano},
                        {"total_energy_full_rate", c.total_energy * kNano},
                        {"latency", c.timeline.latency * kNano},
                        {"fits", true},
                        {"feasible", c.feasibility.feasible && c.thermal.feasible},
                        {"note", note}});
}

// Prism, the GPU scans and the LPDDR5 read at every context (table `prism`, points).
void add_scans(EnergyRun& run,
               const std::vector<std::pair<std::string, prism::AcceleratorSpec>>& accels,
               const std::vector<Gpu>& gpus, Figures& f) {
  const EnergyStudySpec& spec = run.spec;
  run.table("prism", "Prism per query at each context (cost model)",
            {{"context", "tokens"},
             {"blocks", ""},
             {"accelerator", ""},
             {"passes", ""},
             {"chips", ""},
             {"dynamic_energy", "nJ"},
             {"energy_with_tec", "nJ"},
             {"total_energy_full_rate", "nJ"},
             {"latency", "ns"},
             {"fits", ""},
             {"feasible", ""},
             {"note", ""}});
  for (std::int64_t context : spec.contexts) {
    const std::int64_t blocks = (context + spec.block_tokens - 1) / spec.block_tokens;
    const PrismAtContext p = prism_at(blocks, accels);
    add_prism_row(run, context, blocks, p);
    if (p.fits) {
      f.points.push_back(
          {context, "prism_dynamic", "", 0, p.cost.dynamic_energy, p.cost.timeline.latency});
      if (p.cost.tec_included)  // an infeasible TEC is not a figure (prism/cost.h)
        f.points.push_back(
            {context, "prism_with_tec", "", 0, with_tec(p.cost), p.cost.timeline.latency});
    }
    f.prism.emplace(context, p);
    for (int summaries : {2, 1})
      for (std::int64_t dims : spec.summary_dims) {
        const double bytes = kv::summary_bytes(blocks, summaries, dims, spec.bytes_per_element);
        const std::string kind = fmt::format("{}_{}", summary_name(summaries), dims);
        for (const Gpu& g : gpus) {
          const fabric::MemoryRead m = fabric::hbm_read(g.spec, bytes, spec.launch_floor);
          f.points.push_back({context, "gpu_scan_" + kind, g.name, bytes, m.energy, m.latency});
        }
        const fabric::MemoryRead l = fabric::memory_read(bytes, spec.lpddr_energy_per_byte,
                                                         spec.lpddr_bandwidth, spec.launch_floor);
        f.points.push_back({context, "lpddr5_" + kind, "", bytes, l.energy, l.latency});
      }
  }
}

// FAISS IVF-PQ bytes touched per query, measured on a built index (table `faiss`, points).
void add_faiss(EnergyRun& run, const std::vector<Gpu>& gpus, Figures& f) {
  const EnergyStudySpec& spec = run.spec;
  run.table("faiss",
            fmt::format("FAISS IVF-PQ bytes touched per query (measured; contexts up to "
                        "faiss_max_context = {})",
                        spec.faiss_max_context),
            {{"context", "tokens"},
             {"vectors", ""},
             {"nlist", ""},
             {"nprobe", ""},
             {"pq_m", ""},
             {"pq_nbits", ""},
             {"codes", "B"},
             {"centroids", "B"},
             {"codebook", "B"},
             {"bytes", "B"}});
  for (std::int64_t context : spec.contexts) {
    if (context > spec.faiss_max_context) continue;  // said in the claims and docs
    run.ctx.throw_if_cancelled(fmt::format("energy study (FAISS at {} tokens)", context));
    kv::KvGeneratorSpec w = spec.workload;
    w.tokens = context;
    w.steps = spec.query_steps;
    const kv::KvCache cache = kv::generate_kv_cache(w, run.ctx);
    const kv::HeadView head = cache.head(0, 0);
    const kv::BlockLayout layout(head.tokens,
                                 {.block_tokens = static_cast<std::size_t>(spec.block_tokens)});
    const std::vector<float> means = kv::block_mean_keys(head, layout);
    std::vector<float> queries;
    for (std::size_t g = 0; g < head.group; ++g)
      for (std::size_t s = 0; s < head.steps; ++s)
        queries.insert(queries.end(), head.query(g, s), head.query(g, s) + head.head_dim);
    const kv::IvfPqTouch t = kv::ivfpq_bytes_touched(means.data(), layout.blocks(), head.head_dim,
                                                     queries.data(), queries.size() / head.head_dim,
                                                     ivfpq_options(spec.faiss), run.ctx.seed());
    f.faiss.emplace(context, t);
    run.add_row("faiss", {{"context", context},
                          {"vectors", static_cast<std::int64_t>(layout.blocks())},
                          {"nlist", static_cast<std::int64_t>(t.nlist)},
                          {"nprobe", static_cast<std::int64_t>(t.nprobe)},
                          {"pq_m", static_cast<std::int64_t>(t.pq_m)},
                          {"pq_nbits", static_cast<std::int64_t>(t.pq_nbits)},
                          {"codes", t.codes},
                          {"centroids", t.centroids},
                          {"codebook", t.codebook},
                          {"bytes", t.bytes()}});
    for (const Gpu& g : gpus) {
      const fabric::MemoryRead m = fabric::hbm_read(g.spec, t.bytes(), spec.launch_floor);
      f.points.push_back({context, "faiss_ivfpq", g.name, t.bytes(), m.energy, m.latency});
    }
  }
}

void add_per_query(EnergyRun& run, const Figures& f) {
  run.table("per_query", "Energy and latency per query (one KV head, one step)",
            {{"context", "tokens"},
             {"system", ""},
             {"gpu", ""},
             {"bytes", "B"},
             {"energy", "nJ"},
             {"latency", "us"}});
  for (const Point& p : f.points)
    run.add_row("per_query", {{"context", p.context},
                              {"system", p.system},
                              {"gpu", p.gpu},
                              {"bytes", p.bytes},
                              {"energy", p.energy * kNano},
                              {"latency", p.latency * kMicro}});
}

// The smallest context from which Prism uses less energy than `alt` at every larger context
// `alt` ran at (0 = never); "never" names the contexts compared, which end where `alt` stopped
// (FAISS may run to fewer contexts than Prism).
void add_crossovers(EnergyRun& run, const Figures& f) {
  const EnergyStudySpec& spec = run.spec;
  run.table("crossover", "Context from which Prism uses less energy per query",
            {{"prism", ""},
             {"alternative", ""},
             {"gpu", ""},
             {"crossover", ""},
             {"crossover_tokens", "tokens"},
             {"reason", ""}});
  std::vector<std::pair<std::string, std::string>> alternatives;
  for (const Point& p : f.points)
    if (p.system.rfind("prism", 0) != 0 && p.context == spec.contexts.front())
      alternatives.emplace_back(p.system, p.gpu);
  for (const std::string prism : {"prism_dynamic", "prism_with_tec"})
    for (const auto& [alt, gpu] : alternatives) {
      std::vector<std::int64_t> ran;  // the contexts `alt` has a figure at
      for (const std::int64_t context : spec.contexts)
        if (find(f, context, alt, gpu) != nullptr) ran.push_back(context);
      std::int64_t from = 0;
      std::string why;
      for (auto it = ran.rbegin(); it != ran.rend(); ++it) {
        const Point* a = find(f, *it, alt, gpu);
        const Point* p = find(f, *it, prism, "");
        if (p == nullptr) {
          why = fmt::format("Prism does not fit {} tokens: {}", *it, f.prism.at(*it).reason);
          break;
        }
        if (p->energy >= a->energy) {
          why = fmt::format("at {} tokens Prism {:.4g} nJ >= {:.4g} nJ", *it, p->energy * kNano,
                            a->energy * kNano);
          break;
        }
        from = *it;
      }
      const std::int64_t lo = ran.empty() ? 0 : ran.front(), hi = ran.empty() ? 0 : ran.back();
      std::string label = from == 0 ? fmt::format("never in {}-{}", lo, hi) : std::to_string(from);
      if (ran.empty()) {
        label = "not run";
        why = fmt::format("{} has no figure at any context of the run", alt);
      } else if (from == lo) {
        why = ran.size() == spec.contexts.size()
                  ? std::string("Prism uses less energy at every context of the run")
                  : fmt::format("Prism uses less energy at every context {} ran at", alt);
      } else if (from != 0) {
        why += " (below this context)";
      }
      if (!ran.empty() && hi < spec.contexts.back())
        why += fmt::format("; {} ran to {} tokens only", alt, hi);
      run.add_row("crossover", {{"prism", prism},
                                {"alternative", alt},
                                {"gpu", gpu},
                                {"crossover", label},
                                {"crossover_tokens", from},
                                {"reason", why}});
    }
}

void add_chart(EnergyRun& run) {
  const std::string& gpu = run.spec.chart_gpu;
  Chart c{.title = fmt::format("Energy per query vs context (log-log; GPU lines on {})", gpu),
          .table = "per_query",
          .mark = Mark::line_points,
          .filters = {fmt::format("datum.gpu == '' || datum.gpu == '{}'", gpu)}};
  c.x = Channel{.field = "context",
                .type = "quantitative",
                .title = "context (tokens)",
                .scale = {.type = "log"}};
  c.y = Channel{.field = "energy",
                .type = "quantitative",
                .title = "energy per query (nJ)",
                .scale = {.type = "log"}};
  c.color = Channel{.field = "system", .type = "nominal"};
  c.tooltip = {tip("system"), tip("gpu"), tip("context"), tip("energy", ".4g", "nJ"),
               tip("latency", ".4g", "us")};
  // The seed's energies per query at its context (energy_claims.cpp), as markers.
  for (const char* id : {"photonic_dynamic", "photonic_with_tec", "gpu_scan_128", "gpu_scan_32",
                         "faiss_ivfpq", "icms_lpddr5"})
    c.seed_claims.push_back({.id = id, .at = static_cast<double>(run.seed.context)});
  run.chart(c);
}

void evaluate(EnergyRun& run) {
  std::vector<std::pair<std::string, prism::AcceleratorSpec>> accels;
  for (const std::string& name : run.spec.accelerators)
    accels.emplace_back(name, prism::load_accelerator(name, run.presets));
  const std::vector<Gpu> gpus = load_gpus(run.spec, run.presets);
  Figures f;
  add_scans(run, accels, gpus, f);
  add_faiss(run, gpus, f);
  add_per_query(run, f);
  energy_detail::add_claims(run, f);
  energy_detail::add_power(run);
  add_crossovers(run, f);
  add_chart(run);
}

}  // namespace

namespace energy_detail {

const Point* find(const Figures& f, std::int64_t context, const std::string& system,
                  const std::string& gpu) {
  for (const Point& p : f.points)
    if (p.context == context && p.system == system && p.gpu == gpu) return &p;
  return nullptr;
}

}  // namespace energy_detail

void add_energy_study(Registry& registry) {
  add_study(registry,
            Definition<EnergyStudySpec, EnergySeedReference>{
                .name = "energy",
                .help = "energy and latency per query: Prism vs GPU scan, FAISS, LPDDR5 (SPEC 1.6)",
                .title = "Energy and latency per block-selection query (one KV head, one decode "
                         "step)",
                .spec_section = "SPEC 1.1, 1.6",
                .reference = "references/energy_seed.yaml",
                .claims = energy_detail::claim_rules(),
                .evaluate = evaluate,
                // The FAISS caches, one at a time: contexts up to faiss_max_context.
                .require_memory = [](const EnergyStudySpec& s, std::uint64_t budget,
                                     std::size_t threads, const config::LoadOptions&) {
                  std::vector<std::int64_t> faiss;
                  for (std::int64_t c : s.contexts)
                    if (c <= s.faiss_max_context) faiss.push_back(c);
                  kv::KvGeneratorSpec w = s.workload;
                  w.steps = s.query_steps;
                  support::require_context_memory(w, faiss, budget, threads);
                }});
}

}  // namespace lightsim::studies
