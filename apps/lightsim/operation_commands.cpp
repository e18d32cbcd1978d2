// The CLI adapter of the operations layer (include/lightsim/ops/operation.h): one subcommand per
// registered operation at its `command` path, with flags derived from the request schema:
// a field `drift_duration` is `--drift-duration VALUE`, a boolean field is a flag, a list field
// takes repeated or comma-separated values, a map field takes repeated KEY=VALUE entries (and
// each Info::key_flags entry is a flag of its own: --nlist 64), and the fields in
// Info::positional are positional arguments. The flags build the request document (each value
// located at its flag, so errors name it); --set, --seed, --threads, --out and --json are the
// global options.
#include <iostream>
#include <map>
#include <memory>

#include "cli.h"
#include "lightsim/ops/operation.h"

namespace lightsim::cli {
namespace {

// The subcommand `name` of `parent`, created (requiring one subcommand of its own) if absent.
CLI::App* group(CLI::App& parent, const std::string& name) {
  for (CLI::App* s : parent.get_subcommands([](CLI::App*) { return true; }))
    if (s->get_name() == name) return s;
  CLI::App* g = parent.add_subcommand(name, std::string(ops::group_help(name)));
  g->require_subcommand(1);
  return g;
}

std::string flag_of(const std::string& field) {
  std::string f = "--" + field;
  for (char& c : f)
    if (c == '_') c = '-';
  return f;
}

std::string positional_of(const std::string& field) {
  std::string f = field;
  for (char& c : f) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return f;
}

bool is_positional(const ops::Info& info, const std::string& field) {
  return std::find(info.positional.begin(), info.positional.end(), field) != info.positional.end();
}

std::string option_help(const config::FieldInfo& f) {
  std::string help = f.help;
  if (!f.unit.empty()) help += fmt::format(" [{}]", f.unit);
  if (!f.constraint.empty()) help += fmt::format(" ({})", f.constraint);
  if (!f.default_text.empty()) help += fmt::format(" (default: {})", f.default_text);
  return help;
}

// The values given for one request field.
struct FieldArgs {
  std::string name, where;  // field name; the flag or positional name (error locations)
  bool list = false, boolean = false;
  std::vector<std::string> values;
  bool flag = false;
  CLI::Option* option = nullptr;
};

config::Node request_document(const ops::Operation& op,
                              const std::vector<std::shared_ptr<FieldArgs>>& fields) {
  std::vector<ops::FieldValues> given;
  for (const auto& f : fields) {
    if (f->option->count() == 0) continue;
    if (f->boolean)
      given.push_back({f->name, f->where, {f->flag ? "true" : "false"}});
    else
      given.push_back({f->name, f->where, f->values});
  }
  return ops::request_document(op.request_schema(), given, "command line");
}

void add_operation(CLI::App& app, const ops::Operation& op, const GlobalOptions& options,
                   const Registry& registry) {
  const ops::Info& info = op.info();
  CLI::App* parent = &app;
  for (std::size_t i = 0; i + 1 < info.command.size(); ++i)
    parent = group(*parent, info.command[i]);
  CLI::App* sub = parent->add_subcommand(info.command.back(), info.help);
  std::vector<std::shared_ptr<FieldArgs>> fields;
  for (const std::string& name : info.positional)  // positional order is the declared one
    for (const config::FieldInfo& f : op.request_schema().fields)
      if (f.name == name) {
        auto a = std::make_shared<FieldArgs>();
        a->name = f.name;
        a->where = positional_of(f.name);
        a->list = ops::is_list_field(f);
        a->option = sub->add_option(a->where, a->values, option_help(f));
        if (!a->list) a->option->expected(1);
        if (f.required) a->option->required();
        fields.push_back(a);
      }
  for (const config::FieldInfo& f : op.request_schema().fields) {
    if (is_positional(info, f.name)) continue;
    auto a = std::make_shared<FieldArgs>();
    a->name = f.name;
    a->where = flag_of(f.name);
    a->boolean = f.type == "boolean";
    a->list = ops::is_list_field(f) || ops::is_map_field(f);
    if (a->boolean) {
      a->option = sub->add_flag(a->where, a->flag, option_help(f));
    } else {
      a->option = sub->add_option(a->where, a->values, option_help(f));
      if (a->list)
        a->option->delimiter(',');
      else
        a->option->expected(1);
      if (f.required) a->option->required();
    }
    fields.push_back(a);
  }
  if (info.key_flags)
    for (const ops::KeyFlag& k : info.key_flags(registry)) {
      auto a = std::make_shared<FieldArgs>();
      a->name = k.field + "." + k.key;
      a->where = flag_of(k.key);
      a->option = sub->add_option(a->where, a->values, k.help)->expected(1);
      fields.push_back(a);
    }
  sub->callback([&op, fields, &options, &registry] {
    const ops::Info& i = op.info();
    const config::Node request = request_document(op, fields);
    Context ctx(options.context_options(i.default_seed, Time::si(i.progress_interval_s)));
    ops::Env env{registry, options.load_options(), ctx, options.out};
    const ops::Outcome outcome = op.run(request, env);
    if (options.json)
      std::cout << dump_json(outcome.json);
    else
      outcome.print(std::cout);
    std::cout.flush();
  });
}

}  // namespace

void add_operation_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  for (const ops::Operation* op : ops::operations(registry))
    add_operation(app, *op, options, registry);
}

}  // namespace lightsim::cli
