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

using energy_detail::find;
using energy_detail::kMicro;
using energy_detail::kNano;
using energy_detail::Point;
using energy_detail::Run;
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

void add_prism_rows(Table& t, std::int64_t context, std::int64_t blocks, const PrismAtContext& p) {
  if (!p.fits) {
    t.add_row({context, blocks, std::string("-"), std::int64_t{0}, std::int64_t{0}, 0.0, 0.0, 0.0,
               0.0, false, false, p.reason});
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
  t.add_row({context, blocks, p.accelerator, std::int64_t{c.timeline.passes},
             std::int64_t{c.timeline.chips}, c.dynamic_energy * kNano, with_tec(c) * kNano,
             c.total_energy * kNano, c.timeline.latency * kNano, true,
             c.feasibility.feasible && c.thermal.feasible, note});
}

Run evaluate(const EnergyStudySpec& spec,
             const std::vector<std::pair<std::string, prism::AcceleratorSpec>>& accels,
             const std::vector<Gpu>& gpus, report::StudyResult& r, Context& ctx) {
  Run run;
  Table& prism_t = r.add_table("prism", "Prism per query at each context (cost model)",
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
    add_prism_rows(prism_t, context, blocks, p);
    if (p.fits) {
      run.points.push_back(
          {context, "prism_dynamic", "", 0, p.cost.dynamic_energy, p.cost.timeline.latency});
      if (p.cost.tec_included)  // an infeasible TEC is not a figure (prism/cost.h)
        run.points.push_back(
            {context, "prism_with_tec", "", 0, with_tec(p.cost), p.cost.timeline.latency});
    }
    run.prism.emplace(context, p);
    for (int summaries : {2, 1})
      for (std::int64_t dims : spec.summary_dims) {
        const double bytes = kv::summary_bytes(blocks, summaries, dims, spec.bytes_per_element);
        const std::string kind = fmt::format("{}_{}", summary_name(summaries), dims);
        for (const Gpu& g : gpus) {
          const fabric::MemoryRead m = fabric::hbm_read(g.spec, bytes, spec.launch_floor);
          run.points.push_back({context, "gpu_scan_" + kind, g.name, bytes, m.energy, m.latency});
        }
        const fabric::MemoryRead l = fabric::memory_read(bytes, spec.lpddr_energy_per_byte,
                                                         spec.lpddr_bandwidth, spec.launch_floor);
        run.points.push_back({context, "lpddr5_" + kind, "", bytes, l.energy, l.latency});
      }
  }
  Table& faiss_t = r.add_table("faiss",
                               fmt::format("FAISS IVF-PQ bytes touched per query (measured; "
                                           "contexts up to faiss_max_context = {})",
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
    ctx.throw_if_cancelled(fmt::format("energy study (FAISS at {} tokens)", context));
    kv::KvGeneratorSpec w = spec.workload;
    w.tokens = context;
    w.steps = spec.query_steps;
    const kv::KvCache cache = kv::generate_kv_cache(w, ctx);
    const kv::HeadView head = cache.head(0, 0);
    const kv::BlockLayout layout(head.tokens,
                                 {.block_tokens = static_cast<std::size_t>(spec.block_tokens)});
    const std::vector<float> means = kv::block_mean_keys(head, layout);
    std::vector<float> queries;
    for (std::size_t g = 0; g < head.group; ++g)
      for (std::size_t s = 0; s < head.steps; ++s)
        queries.insert(queries.end(), head.query(g, s), head.query(g, s) + head.head_dim);
    const kv::IvfPqTouch f = kv::ivfpq_bytes_touched(means.data(), layout.blocks(), head.head_dim,
                                                     queries.data(), queries.size() / head.head_dim,
                                                     ivfpq_options(spec.faiss), ctx.seed());
    run.faiss.emplace(context, f);
    faiss_t.add_row({context, static_cast<std::int64_t>(layout.blocks()),
                     static_cast<std::int64_t>(f.nlist), static_cast<std::int64_t>(f.nprobe),
                     static_cast<std::int64_t>(f.pq_m), static_cast<std::int64_t>(f.pq_nbits),
                     f.codes, f.centroids, f.codebook, f.bytes()});
    for (const Gpu& g : gpus) {
      const fabric::MemoryRead m = fabric::hbm_read(g.spec, f.bytes(), spec.launch_floor);
      run.points.push_back({context, "faiss_ivfpq", g.name, f.bytes(), m.energy, m.latency});
    }
  }
  Table& t = r.add_table("per_query", "Energy and latency per query (one KV head, one step)",
                         {{"context", "tokens"},
                          {"system", ""},
                          {"gpu", ""},
                          {"bytes", "B"},
                          {"energy", "nJ"},
                          {"latency", "us"}});
  for (const Point& p : run.points)
    t.add_row({p.context, p.system, p.gpu, p.bytes, p.energy * kNano, p.latency * kMicro});
  return run;
}

// The smallest context from which Prism uses less energy than `alt` at every larger context of
// the run (0 = never).
void add_crossovers(report::StudyResult& r, const Run& run, const EnergyStudySpec& spec) {
  Table& t = r.add_table("crossover", "Context from which Prism uses less energy per query",
                         {{"prism", ""},
                          {"alternative", ""},
                          {"gpu", ""},
                          {"crossover", ""},
                          {"crossover_tokens", "tokens"},
                          {"reason", ""}});
  std::vector<std::pair<std::string, std::string>> alternatives;
  for (const Point& p : run.points)
    if (p.system.rfind("prism", 0) != 0 && p.context == spec.contexts.front())
      alternatives.emplace_back(p.system, p.gpu);
  for (const std::string prism : {"prism_dynamic", "prism_with_tec"})
    for (const auto& [alt, gpu] : alternatives) {
      std::int64_t from = 0;
      std::string why;
      for (auto it = spec.contexts.rbegin(); it != spec.contexts.rend(); ++it) {
        const Point* a = find(run, *it, alt, gpu);
        const Point* p = find(run, *it, prism, "");
        if (p == nullptr) {
          why = fmt::format("Prism does not fit {} tokens: {}", *it, run.prism.at(*it).reason);
          break;
        }
        if (a == nullptr || p->energy >= a->energy) {
          if (a != nullptr)
            why = fmt::format("at {} tokens Prism {:.4g} nJ >= {:.4g} nJ", *it, p->energy * kNano,
                              a->energy * kNano);
          break;
        }
        from = *it;
      }
      const std::int64_t lo = spec.contexts.front(), hi = spec.contexts.back();
      std::string label = from == 0 ? fmt::format("never in {}-{}", lo, hi) : std::to_string(from);
      if (from == lo)
        why = "Prism uses less energy at every context of the run";
      else if (from != 0)
        why += " (below this context)";
      t.add_row({prism, alt, gpu, label, from, why});
    }
}

void add_chart(report::StudyResult& r, const EnergyStudySpec& spec) {
  Json chart = Json::parse(R"json({
    "mark": {"type": "line", "point": true},
    "encoding": {
      "x": {"field": "context", "type": "quantitative", "scale": {"type": "log"},
            "title": "context (tokens)"},
      "y": {"field": "energy", "type": "quantitative", "scale": {"type": "log"},
            "title": "energy per query (nJ)"},
      "color": {"field": "system", "type": "nominal"},
      "tooltip": [{"field": "system"}, {"field": "gpu"}, {"field": "context"},
                  {"field": "energy", "format": ".4g", "title": "nJ"},
                  {"field": "latency", "format": ".4g", "title": "us"}]
    }
  })json");
  chart["transform"] = Json::array(
      {{{"filter", fmt::format("datum.gpu == '' || datum.gpu == '{}'", spec.chart_gpu)}}});
  r.add_chart(fmt::format("Energy per query vs context (log-log; GPU lines on {})", spec.chart_gpu),
              "per_query", chart);
}

}  // namespace

namespace energy_detail {

const Point* find(const Run& run, std::int64_t context, const std::string& system,
                  const std::string& gpu) {
  for (const Point& p : run.points)
    if (p.context == context && p.system == system && p.gpu == gpu) return &p;
  return nullptr;
}

}  // namespace energy_detail

report::StudyResult run_energy_study(const StudyInput& in, Context& ctx) {
  const auto spec = config::read_spec<EnergyStudySpec>(in.document, in.load);
  config::LoadOptions plain = in.load;  // --set applies to the study's config only
  plain.assignments.clear();
  const auto seed = support::load_reference<EnergySeedReference>("energy_seed", in.load);
  std::vector<std::pair<std::string, prism::AcceleratorSpec>> accels;
  for (const std::string& name : spec.accelerators)
    accels.emplace_back(name, prism::load_accelerator(name, plain));
  const std::vector<Gpu> gpus = load_gpus(spec, plain);

  report::StudyResult r;
  r.study = in.name;
  r.title = "Energy and latency per block-selection query (one KV head, one decode step)";
  r.spec_section = "SPEC 1.1, 1.6";
  r.seed = ctx.seed();
  r.config = config::to_yaml(in.document);
  const Run run = evaluate(spec, accels, gpus, r, ctx);
  energy_detail::add_claims(r, run, spec, seed);
  energy_detail::add_power(r, spec, plain, seed);
  add_crossovers(r, run, spec);
  add_chart(r, spec);
  return r;
}

}  // namespace lightsim::studies
