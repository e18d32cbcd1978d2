// The study family and running a study by name (include/lightsim/studies/study.h).
#include "lightsim/studies/study.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/config_files.h"
#include "lightsim/core/config_shadow.h"

namespace lightsim::studies {

namespace {
constexpr std::array<std::string_view, 3> kSizeNames{"quick", "default", "full"};
}  // namespace

std::string_view to_string(Size size) {
  return kSizeNames[static_cast<std::size_t>(size)];
}

Size parse_size(std::string_view name) {
  for (std::size_t i = 0; i < kSizeNames.size(); ++i)
    if (kSizeNames[i] == name) return static_cast<Size>(i);
  LIGHTSIM_THROW(UsageError, "unknown study size '{}' (expected quick, default or full)", name);
}

StudyFamily& study_family(Registry& registry) {
  return registry.family<StudyFunction>(std::string(kStudyFamily), std::string(kStudyFamilyHelp));
}

std::vector<std::string> study_names(const Registry& registry) {
  std::vector<std::string> names;
  if (const StudyFamily* family = registry.find_family<StudyFunction>(kStudyFamily))
    for (const auto& impl : family->implementations()) names.push_back(impl.name);
  return names;
}

std::filesystem::path default_config(std::string_view name, const config::LoadOptions& load) {
  return config::find_named(std::string(name), "studies", load, "study config");
}

std::optional<double> declared_cost_s(const config::Node& document, Size size) {
  const config::Node* cost = document.is_map() ? document.find("cost") : nullptr;
  if (cost == nullptr) return std::nullopt;
  LIGHTSIM_CHECK_AS(ConfigError, cost->is_map(),
                    "{}: cost: expected a mapping of sizes (quick, default, full) to wall times, "
                    "got {}",
                    cost->location().str(), cost->kind_name());
  std::optional<double> at_size, at_default;
  for (const auto& [key, value] : cost->entries()) {
    LIGHTSIM_CHECK_AS(ConfigError,
                      std::find(kSizeNames.begin(), kSizeNames.end(), key) != kSizeNames.end(),
                      "{}: cost.{}: unknown size (expected quick, default or full)",
                      cost->key_location(key).str(), key);
    LIGHTSIM_CHECK_AS(ConfigError, value.is_scalar(),
                      "{}: cost.{}: expected a time such as '12 s', got {}", value.location().str(),
                      key, value.kind_name());
    double seconds = 0;
    try {
      seconds = parse<dims::time>(value.scalar()).si();
    } catch (const UnitError& e) {
      LIGHTSIM_THROW(ConfigError, "{}: cost.{}: {}", value.location().str(), key, e.what());
    }
    LIGHTSIM_CHECK_AS(ConfigError, seconds > 0 && std::isfinite(seconds),
                      "{}: cost.{}: expected a positive time, got {}", value.location().str(), key,
                      value.scalar());
    if (key == to_string(size)) at_size = seconds;
    if (key == to_string(Size::standard)) at_default = seconds;
  }
  return at_size ? at_size : at_default;
}

config::Node with_size(config::Node document, Size size) {
  if (!document.is_map()) return document;  // read_spec reports the problem with its location
  if (document.find("cost") != nullptr) {
    (void)declared_cost_s(document, size);  // checked, then not the study's business
    document.erase("cost");
  }
  if (const config::Node* sizes = document.find("sizes")) {
    LIGHTSIM_CHECK_AS(ConfigError, sizes->is_map(),
                      "{}: sizes: expected a mapping of quick/full "
                      "overlays, got {}",
                      sizes->location().str(), sizes->kind_name());
    config::Node overlay;
    for (const auto& [key, value] : sizes->entries()) {
      LIGHTSIM_CHECK_AS(ConfigError, key == "quick" || key == "full",
                        "{}: sizes.{}: unknown size (expected quick or full; default is the "
                        "document itself)",
                        sizes->key_location(key).str(), key);
      LIGHTSIM_CHECK_AS(ConfigError, value.is_map(),
                        "{}: sizes.{}: expected a mapping of overrides, got {}",
                        value.location().str(), key, value.kind_name());
      if (key == to_string(size)) overlay = value;
    }
    document.erase("sizes");
    if (overlay.is_map()) config::merge_into(document, overlay);
  }
  return document;
}

StudyInput make_input(std::string name, const std::filesystem::path& config_file,
                      const config::LoadOptions& load, Size size) {
  StudyInput in;
  in.name = std::move(name);
  in.config_file = config_file;
  in.load = load;
  in.size = size;
  in.document = with_size(config::load_document(config_file), size);
  return in;
}

namespace {
const StudyFunction& find_study(const Registry& registry, std::string_view name) {
  const StudyFamily* family = registry.find_family<StudyFunction>(kStudyFamily);
  LIGHTSIM_CHECK_AS(ConfigError, family != nullptr,
                    "unknown study '{}' (no study is registered in this build)", name);
  return family->get(name);
}
}  // namespace

void check_study_memory(const Registry& registry, std::string_view name,
                        const std::filesystem::path& config_file, const config::LoadOptions& load,
                        Size size, std::uint64_t budget_bytes, std::size_t threads) {
  const StudyFunction& study = find_study(registry, name);
  if (study.check_memory)
    study.check_memory(make_input(std::string(name), config_file, load, size), budget_bytes,
                       threads);
}

report::StudyResult run_study(const Registry& registry, std::string_view name,
                              const std::filesystem::path& config_file,
                              const config::LoadOptions& load, Size size, Context& ctx) {
  const StudyFunction& study = find_study(registry, name);
  report::StudyResult r = study(make_input(std::string(name), config_file, load, size), ctx);
  r.shadowed_presets = recorded_shadows(load);
  return r;
}

std::vector<report::ShadowedPreset> recorded_shadows(const config::LoadOptions& load) {
  std::vector<report::ShadowedPreset> out;
  for (const config::ShadowedPreset& s : config::shadowed_presets(load))
    out.push_back({.name = s.name,
                   .kind = s.name.substr(0, s.name.find('/')),
                   .used = s.used.string(),
                   .shadowed = s.shadowed.string()});
  return out;
}

}  // namespace lightsim::studies
