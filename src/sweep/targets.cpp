// The targets a sweep point can run (include/lightsim/sweep/target.h).
#include <fmt/format.h>

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

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || s.ends_with(".yaml") || s.ends_with(".yml") ||
         s.ends_with(".json");
}

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
                       fmt::join(load_.assignments, " --set "));
  }

 protected:
  // The load options of one point: --set first, then the point's assignments.
  config::LoadOptions load_for(const Point& p) const {
    config::LoadOptions o = load_;
    for (auto& a : p.assignments()) o.assignments.push_back(std::move(a));
    return o;
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
  void check(const Point& p) const override {
    const prefill::ScenarioSpec s = read(p);
    if (!plan_.empty()) (void)prefill::parse_plan(plan_, gpus(s));
  }
  Json run(const Point& p, Context&) const override {
    const prefill::ScenarioSpec s = read(p);
    // The model and the fabric are other top-level files: assignments are not theirs.
    config::LoadOptions load = load_;
    load.assignments.clear();
    const model::Transformer m = prefill::load_model(s.model, load);
    const std::string fabric_name = fabric_.empty() ? s.fabrics.front() : fabric_;
    fabric::Topology t = fabric::build_topology(fabric::load_fabric(fabric_name, load));
    t.name = fabric_name;
    const std::int64_t n = gpus(s);
    const prefill::Evaluator ev(s, m, t, n);
    Json j;
    if (plan_.empty()) {
      j = prefill::search_json(prefill::search(ev, n), t);
      j.erase("seconds");  // wall time: not a result, and not reproducible
    } else {
      j = prefill::result_json(ev.evaluate(prefill::parse_plan(plan_, n)), t);
    }
    j["fabric"] = fabric_name;
    j["gpus"] = n;
    return j;
  }

 private:
  prefill::ScenarioSpec read(const Point& p) const {
    prefill::ScenarioSpec s = config::read_spec<prefill::ScenarioSpec>(document_, load_for(p));
    LIGHTSIM_CHECK_AS(ConfigError, !fabric_.empty() || !s.fabrics.empty(),
                      "{}: point {}: the scenario lists no fabrics and the sweep gives none",
                      file_.string(), p.index);
    LIGHTSIM_CHECK_AS(ConfigError, gpus_ > 0 || !s.gpu_counts.empty(),
                      "{}: point {}: the scenario lists no gpu_counts and the sweep gives no gpus",
                      file_.string(), p.index);
    return s;
  }
  std::int64_t gpus(const prefill::ScenarioSpec& s) const {
    return gpus_ > 0 ? gpus_ : s.gpu_counts.front();
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
  if (looks_like_path(config)) {
    const std::filesystem::path p(config);
    if (p.is_relative() && std::filesystem::exists(spec_dir / p)) return spec_dir / p;
    LIGHTSIM_CHECK_AS(InputError, std::filesystem::exists(p),
                      "sweep base config '{}' not found (looked in '{}' and the working folder)",
                      config, spec_dir.string());
    return p;
  }
  for (const auto& root : load.config_roots) {
    const auto candidate = root / preset_dir / (config + ".yaml");
    if (std::filesystem::exists(candidate)) return candidate;
  }
  LIGHTSIM_THROW(InputError, "sweep base config '{}': no {}/{}.yaml under the config roots", config,
                 preset_dir, config);
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
