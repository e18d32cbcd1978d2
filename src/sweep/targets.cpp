// The targets a sweep point can run (include/lightsim/sweep/target.h).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "lightsim/core/config_files.h"
#include "lightsim/core/json.h"
#include "lightsim/prefill/report.h"
#include "lightsim/prefill/scenario.h"
#include "lightsim/prefill/search.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/cost.h"
#include "lightsim/studies/study.h"
#include "lightsim/sweep/target.h"

namespace lightsim::sweep {
namespace {

// Shared by the targets: a base document, the load options, and the point's assignments.
class DocumentTarget : public Target {
 public:
  DocumentTarget(std::filesystem::path file, const Registry& registry, config::LoadOptions load)
      : file_(std::move(file)), document_(config::load_document(file_)), load_(std::move(load)) {
    const config::Node* kind = document_.is_map() ? document_.find("kind") : nullptr;
    LIGHTSIM_CHECK_AS(ConfigError, kind != nullptr && kind->is_scalar(),
                      "{}: base config of the sweep has no `kind:`", file_.string());
    schema_ = &registry.spec(kind->scalar());
  }
  const config::SchemaInfo& schema() const override { return *schema_; }
  std::string fingerprint() const override {
    return fmt::format("{}\n--set {}\n", config::to_yaml(document_),
                       fmt::join(load_.assignments.texts(), " --set "));
  }

 protected:
  // The load options of one point: --set first, then the point's assignments to the base
  // config (the target's own keys are not the base config's).
  config::LoadOptions load_for(const Point& p) const {
    config::LoadOptions o = load_;
    const std::vector<std::string> own = own_keys();
    for (std::size_t k = 0; k < p.keys.size(); ++k)
      if (std::find(own.begin(), own.end(), p.keys[k]) == own.end())
        o.assignments.push_back(p.keys[k] + "=" + p.values[k]);
    return o;
  }
  // The point's value of one of the target's own keys, or `fallback` when it sets none.
  static std::string own_value(const Point& p, std::string_view key, const std::string& fallback) {
    for (std::size_t k = 0; k < p.keys.size(); ++k)
      if (p.keys[k] == key) return p.values[k];
    return fallback;
  }
  std::filesystem::path file_;
  config::Node document_;
  config::LoadOptions load_;
  const config::SchemaInfo* schema_ = nullptr;
};

class PrismCostTarget final : public DocumentTarget {
 public:
  using DocumentTarget::DocumentTarget;
  void check(const Point& p) const override { (void)read(p); }
  Json run(const Point& p, Context&) const override { return prism::to_json(prism::cost(read(p))); }

 private:
  prism::AcceleratorSpec read(const Point& p) const {
    return config::read_spec<prism::AcceleratorSpec>(document_, load_for(p));
  }
};

// Options of one prefill_plan point: the sweep file's fabric/gpus/plan, overridden by the
// point's own `fabric`, `gpus` and `plan` keys.
struct PlanOptions {
  std::string fabric;
  std::int64_t gpus = 0;  // 0 = the scenario's first gpu_counts entry
  std::string plan;       // "" = the plan search's best
};

class PrefillPlanTarget final : public DocumentTarget {
 public:
  PrefillPlanTarget(std::filesystem::path file, const Registry& registry, config::LoadOptions load,
                    const SweepSpec& spec)
      : DocumentTarget(std::move(file), registry, std::move(load)),
        fabric_(spec.fabric),
        gpus_(spec.gpus),
        plan_(spec.plan) {}
  std::string fingerprint() const override {
    return DocumentTarget::fingerprint() +
           fmt::format("fabric {} gpus {} plan {}\n", fabric_, gpus_, plan_);
  }
  std::vector<std::string> own_keys() const override { return {"fabric", "gpus", "plan"}; }
  void check(const Point& p) const override {
    const PlanOptions o = options(p);
    const prefill::ScenarioSpec s = read(p, o);
    if (!o.fabric.empty()) (void)fabric::load_fabric(o.fabric, plain_load());
    if (!o.plan.empty()) (void)prefill::parse_plan(o.plan, gpus(s, o));
  }
  Json run(const Point& p, Context&) const override {
    const PlanOptions o = options(p);
    const prefill::ScenarioSpec s = read(p, o);
    // The model and the fabric are other top-level files: assignments are not theirs.
    const config::LoadOptions load = plain_load();
    const model::Transformer m = prefill::load_model(s.model, load);
    const std::string fabric_name = o.fabric.empty() ? s.fabrics.front() : o.fabric;
    fabric::Topology t = fabric::build_topology(fabric::load_fabric(fabric_name, load));
    t.name = fabric_name;
    const std::int64_t n = gpus(s, o);
    const prefill::Evaluator ev(s, m, t, n);
    Json j;
    if (o.plan.empty()) {
      j = prefill::search_json(prefill::search(ev, n), t);
    } else {
      j = prefill::result_json(ev.evaluate(prefill::parse_plan(o.plan, n)), t);
    }
    j["fabric"] = fabric_name;
    j["gpus"] = n;
    return j;
  }

 private:
  config::LoadOptions plain_load() const {
    config::LoadOptions load = load_;
    load.assignments.clear();
    return load;
  }
  PlanOptions options(const Point& p) const {
    PlanOptions o{own_value(p, "fabric", fabric_), gpus_, own_value(p, "plan", plan_)};
    const std::string gpus = own_value(p, "gpus", "");
    if (!gpus.empty()) {
      std::int64_t n = 0;
      const auto [end, ec] = std::from_chars(gpus.data(), gpus.data() + gpus.size(), n);
      LIGHTSIM_CHECK_AS(ConfigError,
                        ec == std::errc() && end == gpus.data() + gpus.size() && n >= 1 &&
                            n <= (std::int64_t{1} << 20),
                        "{}: point {}: gpus: expected an integer in [1, 2^20], got '{}'",
                        file_.string(), p.index, gpus);
      o.gpus = n;
    }
    return o;
  }
  prefill::ScenarioSpec read(const Point& p, const PlanOptions& o) const {
    prefill::ScenarioSpec s = config::read_spec<prefill::ScenarioSpec>(document_, load_for(p));
    LIGHTSIM_CHECK_AS(ConfigError, !o.fabric.empty() || !s.fabrics.empty(),
                      "{}: point {}: the scenario lists no fabrics and the sweep gives none",
                      file_.string(), p.index);
    LIGHTSIM_CHECK_AS(ConfigError, o.gpus > 0 || !s.gpu_counts.empty(),
                      "{}: point {}: the scenario lists no gpu_counts and the sweep gives no gpus",
                      file_.string(), p.index);
    return s;
  }
  static std::int64_t gpus(const prefill::ScenarioSpec& s, const PlanOptions& o) {
    return o.gpus > 0 ? o.gpus : s.gpu_counts.front();
  }
  std::string fabric_;
  std::int64_t gpus_;
  std::string plan_;
};

class StudyTarget final : public DocumentTarget {
 public:
  StudyTarget(std::filesystem::path file, const Registry& registry, config::LoadOptions load,
              const SweepSpec& spec)
      : DocumentTarget(std::move(file), registry, std::move(load)),
        registry_(registry),
        study_(spec.study),
        size_(studies::parse_size(spec.size)) {}
  std::string fingerprint() const override {
    return DocumentTarget::fingerprint() +
           fmt::format("study {} size {}\n", study_, studies::to_string(size_));
  }
  void check(const Point&) const override {}
  Json run(const Point& p, Context& ctx) const override {
    const report::StudyResult r =
        studies::run_study(registry_, study_, file_, load_for(p), size_, ctx);
    return report::to_json(r, fmt::format("sweep point {}", p.index));
  }

 private:
  const Registry& registry_;
  std::string study_;
  studies::Size size_;
};

}  // namespace

std::filesystem::path resolve_config(const std::string& config,
                                     const std::filesystem::path& spec_dir,
                                     const config::LoadOptions& load, std::string_view preset_dir) {
  if (config::looks_like_path(config)) {
    const std::filesystem::path p(config);
    if (p.is_relative() && std::filesystem::exists(spec_dir / p)) return spec_dir / p;
    LIGHTSIM_CHECK_AS(InputError, std::filesystem::exists(p),
                      "sweep base config '{}' not found (looked in '{}' and the working folder)",
                      config, spec_dir.string());
    return p;
  }
  return config::find_named(config, preset_dir, load, "sweep base config");
}

std::vector<std::string> config_key_paths(const Target& target, const SweepSpec& spec) {
  const std::vector<std::string> own = target.own_keys();
  std::vector<std::string> out;
  for (auto& k : key_paths(spec))
    if (std::find(own.begin(), own.end(), k) == own.end()) out.push_back(std::move(k));
  return out;
}

std::unique_ptr<Target> make_target(const SweepSpec& spec, const std::filesystem::path& spec_file,
                                    const Registry& registry, const config::LoadOptions& load) {
  const std::filesystem::path dir = spec_file.parent_path();
  if (spec.target == "prism_cost")
    return std::make_unique<PrismCostTarget>(resolve_config(spec.config, dir, load, "accelerators"),
                                             registry, load);
  if (spec.target == "prefill_plan")
    return std::make_unique<PrefillPlanTarget>(resolve_config(spec.config, dir, load, "scenarios"),
                                               registry, load, spec);
  LIGHTSIM_CHECK(spec.target == "study", "unknown sweep target '{}'", spec.target);
  const auto names = studies::study_names(registry);
  LIGHTSIM_CHECK_AS(ConfigError, std::find(names.begin(), names.end(), spec.study) != names.end(),
                    "sweep '{}': unknown study '{}'{}", spec.name, spec.study,
                    config::suggest(spec.study, names, "registered studies"));
  const std::filesystem::path file = spec.config.empty()
                                         ? studies::default_config(spec.study, load)
                                         : resolve_config(spec.config, dir, load, "studies");
  return std::make_unique<StudyTarget>(file, registry, load, spec);
}

}  // namespace lightsim::sweep
