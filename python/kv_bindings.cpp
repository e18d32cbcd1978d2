// lightsim.score, lightsim.generate_kv and lightsim.evaluate_kv (bindings.h; the kv module,
// docs/metrics.md).
#include <array>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "bindings.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/io.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer_setup.h"

namespace lightsim::python {
namespace {

using namespace pybind11::literals;
using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// The scorer keyword arguments given (not None) plus `options` ({field: value}), as kv
// scorer options: each applies to the selected scorers whose options spec has the field.
std::vector<kv::ScorerOption> scorer_options(const py::object& projection, const py::object& dim,
                                             const py::object& reps, const py::object& accelerator,
                                             const py::object& options) {
  std::vector<kv::ScorerOption> out;
  auto add = [&](const std::string& field, const std::string& value) {
    out.push_back({field, value, field + "="});
  };
  if (!projection.is_none()) add("projection", py::str(projection));
  if (!dim.is_none()) add("dim", py::str(dim));
  if (!reps.is_none()) add("reps", py::str(reps));
  if (!accelerator.is_none()) add("accelerator", to_path(accelerator).string());
  if (!options.is_none())
    for (const auto& [key, value] : options.cast<py::dict>())
      out.push_back({py::str(key), to_json(value, "options").dump(),
                     fmt::format("options['{}']", std::string(py::str(key)))});
  return out;
}

std::vector<kv::ScorerSetup> resolve(const std::vector<std::string>& names,
                                     const std::vector<kv::ScorerOption>& options,
                                     const Registry& registry, const config::LoadOptions& load) {
  return kv::resolve_scorers(names, options, kv::scorer_family(registry),
                             {&kv::projection_family(registry), load});
}

// A NaN or an infinity anywhere in `a` is a UsageError naming the argument and the index.
void require_finite(const FloatArray& a, const char* what) {
  const float* p = a.data();
  for (py::ssize_t i = 0; i < a.size(); ++i)
    LIGHTSIM_CHECK_AS(UsageError, std::isfinite(p[i]),
                      "{}: expected finite numbers, got {} at flat index {}", what, p[i], i);
}

std::array<std::size_t, 3> query_shape(const py::array& queries, std::size_t head_dim) {
  const auto n = static_cast<std::size_t>(queries.ndim());
  LIGHTSIM_CHECK_AS(UsageError, n >= 1 && n <= 3,
                    "queries: expected shape [D], [steps, D] or [group, steps, D], got {} dims", n);
  std::array<std::size_t, 3> shape{1, 1, 1};  // group, steps, D
  for (std::size_t i = 0; i < n; ++i)
    shape[3 - n + i] = static_cast<std::size_t>(queries.shape(static_cast<py::ssize_t>(i)));
  LIGHTSIM_CHECK_AS(UsageError, shape[2] == head_dim,
                    "queries: last dimension {} differs from the keys' head_dim {}", shape[2],
                    head_dim);
  LIGHTSIM_CHECK_AS(UsageError, shape[0] > 0 && shape[1] > 0, "queries: empty array");
  return shape;
}

// A cache folder (manifest.json), or a kv_synthetic config generated with ctx's seed.
kv::KvCache obtain_cache(const py::object& source, const Registry& registry,
                         const config::LoadOptions& load, const ContextOptions& context) {
  if (is_existing_path(source) && std::filesystem::is_directory(to_path(source))) {
    const std::filesystem::path dir = to_path(source);
    py::gil_scoped_release release;
    return kv::read_kv_cache(dir);
  }
  const config::Node doc =
      load_document(source, std::string(kv::KvGeneratorSpec::kind), registry, load);
  const auto spec = config::read_spec<kv::KvGeneratorSpec>(doc, load);
  kv::require_generator_memory(spec, default_memory_budget());  // the CLI's check, first
  return run_interruptible([&](const std::atomic<bool>* cancel) {
    ContextOptions o = context;
    o.cancel = cancel;
    Context ctx(o);
    return kv::generate_kv_cache(spec, ctx);
  });
}

py::array_t<float> to_array(const std::vector<float>& data, std::vector<py::ssize_t> shape) {
  py::array_t<float> out(shape);
  std::copy(data.begin(), data.end(), out.mutable_data());
  return out;
}

}  // namespace

void bind_kv(py::module_& m, const RegistryPtr& registry) {
  m.def(
      "score",
      [registry](const std::string& scorer, const FloatArray& keys, const FloatArray& queries,
                 std::size_t block_tokens, std::size_t sink_tokens, std::size_t recent_tokens,
                 const py::object& projection, const py::object& dim, const py::object& reps,
                 const py::object& accelerator, const py::object& options, std::uint64_t seed,
                 const py::object& set, const py::object& config_path) {
        LIGHTSIM_CHECK_AS(UsageError, keys.ndim() == 2 && keys.shape(0) > 0 && keys.shape(1) > 0,
                          "keys: expected a non-empty [tokens, head_dim] array, got {} dims",
                          keys.ndim());
        const auto tokens = static_cast<std::size_t>(keys.shape(0));
        const auto head_dim = static_cast<std::size_t>(keys.shape(1));
        const auto [group, steps, d] = query_shape(queries, head_dim);
        require_finite(keys, "keys");
        require_finite(queries, "queries");
        const config::LoadOptions load = load_options(set, config_path);
        const std::vector<std::string> names{scorer};
        const std::vector<kv::ScorerOption> chosen =
            scorer_options(projection, dim, reps, accelerator, options);
        const std::vector<kv::ScorerSetup> setups = resolve(names, chosen, *registry, load);
        load.assignments.require_all_used();  // a `set` key no config read has: InputError
        const kv::BlockLayout layout(tokens, {block_tokens, sink_tokens, recent_tokens});
        // The options whose ranges depend on the keys (pq_m, nlist, dim, ...): kv select's check.
        kv::check_scorers(names, chosen, kv::scorer_family(*registry),
                          {&kv::projection_family(*registry), load},
                          {tokens, head_dim, layout.blocks(), layout.block_tokens()});
        py::array_t<float> out(
            {static_cast<py::ssize_t>(steps), static_cast<py::ssize_t>(layout.blocks())});
        float* result = out.mutable_data();
        const std::vector<float> values(tokens * head_dim, 0.0f);  // scorers read keys only
        const kv::HeadView head{tokens,      head_dim,      group,         steps,
                                keys.data(), values.data(), queries.data()};
        {
          py::gil_scoped_release release;
          const std::unique_ptr<kv::Scorer> s = setups.front().make();
          s->prepare(head, layout, kv::HeadIndex{0, 0, seed});
          for (std::size_t step = 0; step < steps; ++step)
            s->score(step, std::span<float>(result + step * layout.blocks(), layout.blocks()));
        }
        return out;
      },
      "scorer"_a, "keys"_a, "queries"_a, py::kw_only(), "block_tokens"_a = 128, "sink_tokens"_a = 4,
      "recent_tokens"_a = 512, "projection"_a = py::none(), "dim"_a = py::none(),
      "reps"_a = py::none(), "accelerator"_a = py::none(), "options"_a = py::none(), "seed"_a = 1,
      "set"_a = py::none(), "config_path"_a = py::none(),
      R"doc(Score the blocks of one KV head with a kv scorer; returns float32 [steps, blocks].

keys: [tokens, head_dim]; queries: [head_dim], [steps, head_dim] or [group, steps, head_dim]
(the GQA group of query heads that read this KV head; a block's score is summed over the
group). Arrays are converted to C-contiguous float32. Higher = more important. Blocks are
cut every block_tokens; sink and recent tokens are always resident (their blocks are still
scored). scorer: a name of `lightsim list` (kv_scorer), NAME:PROJECTION or a scorer options
file, as `lightsim kv select --scorer`; prism needs accelerator=NAME (dim defaults to its
channels). projection, dim, reps, accelerator and options={field: value} set the fields of
the scorer's options spec (`lightsim config explain scorer_NAME`); one it does not take is an
error. seed: seed of the head's random stream (random projection, Prism impairment draw).)doc");

  m.def(
      "generate_kv",
      [registry](const py::object& config, std::uint64_t seed, std::size_t threads,
                 const py::object& set, const py::object& config_path) {
        const config::LoadOptions load = load_options(set, config_path);
        const kv::KvCache cache =
            obtain_cache(config, *registry, load, context_options(seed, threads, false, nullptr));
        load.assignments.require_all_used();  // a `set` key no config read has: InputError
        const kv::KvGeometry& g = cache.geometry();
        const auto sz = [](std::size_t n) { return static_cast<py::ssize_t>(n); };
        py::list needles;
        for (const auto& n : cache.needles) needles.append(py::make_tuple(n.begin, n.end));
        py::dict out;
        out["keys"] = to_array(cache.key_data(),
                               {sz(g.layers), sz(g.kv_heads), sz(g.tokens), sz(g.head_dim)});
        out["values"] = to_array(cache.value_data(),
                                 {sz(g.layers), sz(g.kv_heads), sz(g.tokens), sz(g.head_dim)});
        out["queries"] = to_array(cache.query_data(),
                                  {sz(g.layers), sz(g.q_heads), sz(g.steps), sz(g.head_dim)});
        out["layer_ids"] = cache.layer_ids;
        out["needles"] = needles;
        out["rope_base"] = cache.rope_base;
        out["source"] = cache.source;
        return out;
      },
      "config"_a = "llama-3-8b", py::kw_only(), "seed"_a = 1, "threads"_a = 0, "set"_a = py::none(),
      "config_path"_a = py::none(),
      R"doc(Generate a synthetic KV cache (kind kv_synthetic, docs/kv-data.md) or read a cache
folder; returns {keys [L, H, T, D], values, queries [L, Hq, S, D] (float32), layer_ids,
needles [(begin, end)], rope_base, source}. config: preset NAME (configs/kv/), file, YAML
text, dict or cache folder. Query head g reads KV head g // (Hq // H).)doc");

  m.def(
      "evaluate_kv",
      [registry](const py::object& cache_source, const py::object& scorer_names,
                 const py::object& ks, const py::object& block_tokens,
                 const py::object& sink_tokens, const py::object& recent_tokens,
                 const py::object& projection, const py::object& dim, const py::object& reps,
                 const py::object& accelerator, const py::object& options,
                 const py::object& kv_bytes, const py::object& budget_bytes, std::uint64_t seed,
                 std::size_t threads, const py::object& set, const py::object& config_path) {
        LIGHTSIM_CHECK_AS(UsageError,
                          is_existing_path(cache_source) || py::isinstance<py::str>(cache_source),
                          "cache: expected a cache folder, a KV profile name or a kind "
                          "kv_synthetic file (generate_kv takes a dict or YAML text)");
        OperationCall call;
        call.field("cache", py::str(to_path(cache_source).string()));
        call.field("scorer", scorer_names);
        if (!ks.is_none()) call.field("k", ks);  // None: 8, 16, 32, clipped to the blocks
        call.field("block", block_tokens);
        call.field("sink", sink_tokens);
        call.field("recent", recent_tokens);
        call.field("kv_bytes", kv_bytes);
        if (!budget_bytes.is_none()) call.field("budget_bytes", budget_bytes);
        py::dict scorer_options;
        if (!options.is_none()) scorer_options = py::dict(options);
        const std::pair<const char*, const py::object*> named[] = {
            {"projection", &projection}, {"dim", &dim}, {"reps", &reps}};
        for (const auto& [key, value] : named)
          if (!value->is_none()) scorer_options[key] = *value;
        if (!accelerator.is_none()) scorer_options["accelerator"] = to_path(accelerator).string();
        if (!scorer_options.empty()) call.field("scorer_options", scorer_options);
        call.load = load_options(set, config_path);
        call.seed = seed;
        call.threads = threads;
        return to_python(run_operation(*registry, "kv_select", call));
      },
      "cache"_a, "scorers"_a = std::vector<std::string>{"exact", "mean_key", "quest", "signature"},
      py::kw_only(), "ks"_a = py::none(), "block_tokens"_a = 128, "sink_tokens"_a = 4,
      "recent_tokens"_a = 512, "projection"_a = py::none(), "dim"_a = py::none(),
      "reps"_a = py::none(), "accelerator"_a = py::none(), "options"_a = py::none(),
      "kv_bytes"_a = 2.0, "budget_bytes"_a = py::none(), "seed"_a = 1, "threads"_a = 0,
      "set"_a = py::none(), "config_path"_a = py::none(),
      R"doc(Retrieval metrics of block scorers against exact attention: operation kv_select
(`lightsim kv select --json`, the same JSON; docs/metrics.md; lightsim.kv_select takes its
request fields by their own names), over every (layer, KV head) of a cache. cache: a cache
folder, or a KV profile name or kind kv_synthetic file (generated with `seed`). scorers: as `kv select
--scorer`: "all", names, "NAME:PROJECTION" (signature, prism) or scorer options files;
projection, dim, reps, accelerator and options={field: value} set the fields of each scorer
that takes them. budget_bytes: metadata bytes per block of the equal-bytes comparison (adds
equal_bytes; docs/metrics.md, "Equal bytes"). Returns {tokens, blocks, ..., results: {scorer: {k: {recall: {mean, ci95,
n}, mass_recall, output_rel_error, needle_hit, bytes_per_step, traffic_reduction, ...}}}}.)doc");
}

}  // namespace lightsim::python
