// The sweep's operation target (include/lightsim/sweep/target.h).
#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "lightsim/core/config_files.h"
#include "lightsim/core/json.h"
#include "lightsim/ops/operation.h"
#include "lightsim/sweep/target.h"

namespace lightsim::sweep {
namespace {

// A list field's values: comma-separated text, as a CLI flag takes them.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma - start);
    const auto b = part.find_first_not_of(' ');
    const auto e = part.find_last_not_of(' ');
    out.push_back(b == std::string::npos ? std::string() : part.substr(b, e - b + 1));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

class OperationTarget final : public Target {
 public:
  OperationTarget(const SweepSpec& spec, std::filesystem::path spec_file, const Registry& registry,
                  config::LoadOptions load)
      : file_(std::move(spec_file)),
        registry_(registry),
        op_(find(registry, spec, file_)),
        request_(spec.request),
        load_(std::move(load)) {
    for (auto& [field, value] : request_) value = located(field, value);
  }

  std::string fingerprint() const override {
    std::string text = fmt::format("operation {}\n", op_.info().name);
    for (const auto& [field, value] : request_)
      text += fmt::format("request {}={}\n", field, value);
    text += fmt::format("--set {}\n", fmt::join(load_.assignments.texts(), " --set "));
    const std::lock_guard lock(mutex_);
    std::vector<std::string> read(read_.begin(), read_.end());
    std::sort(read.begin(), read.end());
    read.erase(std::unique(read.begin(), read.end()), read.end());
    for (const std::string& doc : read) text += "read " + doc + "\n";
    return text;
  }

  void check(const Point& p, std::uint64_t memory_budget) const override {
    ContextOptions co;
    co.threads = 1;
    co.memory_budget = memory_budget;
    co.log_level = LogLevel::warn;
    co.progress.mode = ProgressMode::quiet;
    Context ctx(co);
    ops::Env env{registry_, load_for(p), ctx, {}};
    env.load.assignments.record_contents();
    ops::check(op_, request_for(p), env);
    const std::vector<std::string> read = env.load.assignments.contents();
    const std::lock_guard lock(mutex_);
    read_.insert(read_.end(), read.begin(), read.end());
  }

  Json run(const Point& p, Context& ctx) const override {
    ops::Env env{registry_, load_for(p), ctx, {}};
    return op_.run(request_for(p), env).json;
  }

 private:
  static const ops::Operation& find(const Registry& registry, const SweepSpec& spec,
                                    const std::filesystem::path& file) {
    try {
      return ops::find_operation(registry, spec.target);
    } catch (const ConfigError& e) {
      LIGHTSIM_THROW(ConfigError, "{}: target: {}", file.string(), e.what());
    }
  }

  bool is_request_field(const std::string& key) const {
    return ops::addresses_request(op_.request_schema(), key);
  }

  // A value that names a file relative to the sweep file is made to name it from here.
  std::string located(const std::string& field, const std::string& value) const {
    if (!is_request_field(field) || !config::looks_like_path(value)) return value;
    const std::filesystem::path p(value);
    const std::filesystem::path beside = file_.parent_path() / p;
    if (p.is_relative() && !file_.parent_path().empty() && std::filesystem::exists(beside))
      return beside.string();
    return value;
  }

  // The request: the sweep's shared fields, then the point's own request keys.
  config::Node request_for(const Point& p) const {
    std::map<std::string, std::pair<std::string, std::string>> given;  // field -> where, text
    for (const auto& [field, value] : request_)
      given[field] = {fmt::format("{}: request.{}", file_.string(), field), value};
    for (std::size_t k = 0; k < p.keys.size(); ++k)
      if (is_request_field(p.keys[k]))
        given[p.keys[k]] = {fmt::format("{}: point {}: {}", file_.string(), p.index, p.keys[k]),
                            located(p.keys[k], p.values[k])};
    std::vector<ops::FieldValues> fields;
    for (const auto& [field, at] : given) {
      const config::FieldInfo* f = ops::find_field(op_.request_schema(), field);
      std::vector<std::string> values{at.second};
      if (f != nullptr && ops::is_list_field(*f)) values = split_list(at.second);
      fields.push_back({field, at.first, std::move(values)});
    }
    return ops::request_document(op_.request_schema(), fields, file_.string());
  }

  // The load options of one point: the command line's --set, then the point's config keys,
  // as assignments of its own (each point's run checks that all of them were used).
  config::LoadOptions load_for(const Point& p) const {
    config::LoadOptions o = load_;
    std::vector<std::string> texts = load_.assignments.texts();
    for (std::size_t k = 0; k < p.keys.size(); ++k)
      if (!is_request_field(p.keys[k])) texts.push_back(p.keys[k] + "=" + p.values[k]);
    o.assignments = config::Assignments(std::move(texts));
    return o;
  }

  std::filesystem::path file_;
  const Registry& registry_;
  const ops::Operation& op_;
  std::map<std::string, std::string> request_;
  config::LoadOptions load_;
  mutable std::mutex mutex_;
  mutable std::vector<std::string> read_;  // configs the checks read (for the fingerprint)
};

}  // namespace

std::unique_ptr<Target> make_target(const SweepSpec& spec, const std::filesystem::path& spec_file,
                                    const Registry& registry, const config::LoadOptions& load) {
  return std::make_unique<OperationTarget>(spec, spec_file, registry, load);
}

}  // namespace lightsim::sweep
