// `lightsim model show CONFIG.json`: parameters, KV cache and the per-operator cost of a
// prefill chunk or decode step (docs/model.md).
#include <iostream>

#include "cli.h"
#include "lightsim/core/config_files.h"
#include "lightsim/core/json.h"
#include "lightsim/model/cost.h"
#include "lightsim/model/params.h"

namespace lightsim::cli {
namespace {

struct ShowOptions {
  std::filesystem::path file;
  std::int64_t tokens = 4096, sequences = 1, prior = 0, decode_context = -1;
  std::string dtypes;  // preset name in configs/dtypes/ or a file; flags below override it
  std::string weights, activations, kv, mla_form = "auto";
  bool ops = false;
};

model::DType parse_dtype(const std::string& word) {
  if (word == "bf16") return model::DType::bf16;
  if (word == "fp8") return model::DType::fp8;
  return model::DType::fp4;  // CLI11 checks the allowed words
}

Json op_json(const model::Operator& op) {
  return {{"name", op.name},
          {"class", std::string(model::op_class_name(op.op_class))},
          {"output", op.output},
          {"flops", op.flops},
          {"bytes_read", op.bytes_read},
          {"bytes_written", op.bytes_written},
          {"weight_bytes", op.weight_bytes}};
}

Json report_json(const model::Transformer& m, const model::ParameterCount& c,
                 const model::CostReport& r) {
  Json groups = Json::array();
  for (const auto& g : r.groups) {
    Json ops = Json::array();
    for (const auto& op : g.ops) ops.push_back(op_json(op));
    groups.push_back({{"label", g.label},
                      {"layers", g.layers},
                      {"count", g.count()},
                      {"parameters", g.parameters},
                      {"flops", g.flops()},
                      {"bytes_read", g.bytes_read()},
                      {"bytes_written", g.bytes_written()},
                      {"operators", ops}});
  }
  const model::Workload& w = r.workload;
  return {{"model", m.name},
          {"model_type", m.model_type},
          {"parameters",
           {{"total", c.total},
            {"active", c.active},
            {"embedding", c.embedding},
            {"lm_head", c.lm_head},
            {"attention", c.attention},
            {"dense_ffn", c.dense_ffn},
            {"routed_experts", c.routed_experts},
            {"shared_experts", c.shared_experts},
            {"routers", c.routers},
            {"norms", c.norms + c.final_norm},
            {"mtp", c.mtp}}},
          {"kv_values_per_token_per_layer", model::kv_values_per_token_per_layer(m)},
          {"kv_bytes_per_token", model::kv_bytes_per_token(m, r.dtypes)},
          {"dtypes",
           {{"weights", model::dtype_name(r.dtypes.weights)},
            {"activations", model::dtype_name(r.dtypes.activations)},
            {"kv_cache", model::dtype_name(r.dtypes.kv_cache)}}},
          {"workload",
           {{"phase", w.phase == model::Phase::prefill ? "prefill" : "decode"},
            {"new_tokens_per_sequence", w.new_tokens},
            {"sequences", w.sequences},
            {"prior_context", w.prior_context}}},
          {"mla_form", r.mla_form},
          {"expected_experts_touched_per_moe_layer", r.expected_experts_touched},
          {"totals",
           {{"flops", r.flops},
            {"matmul_flops", r.matmul_flops},
            {"attention_flops", r.attention_flops},
            {"bytes_read", r.bytes_read},
            {"bytes_written", r.bytes_written},
            {"weight_bytes", r.weight_bytes}}},
          {"groups", groups},
          {"ignored_fields", m.ignored_fields}};
}

void print_report(const model::Transformer& m, const model::ParameterCount& c,
                  const model::CostReport& r, bool show_ops) {
  const model::Workload& w = r.workload;
  fmt::print("{} ({}): {} layers ({} MoE), hidden {}, vocab {}\n", m.name, m.model_type,
             m.layers.size(), m.moe_layer_count(), m.hidden, m.vocab);
  fmt::print("parameters: {:.2f} B total, {:.2f} B active per token", c.total / 1e9,
             c.active / 1e9);
  if (c.mtp > 0) fmt::print(" (+{:.2f} B in MTP modules)", c.mtp / 1e9);
  fmt::print("\nKV cache: {} values/token/layer, {:.1f} KiB/token ({})\n",
             model::kv_values_per_token_per_layer(m), model::kv_bytes_per_token(m, r.dtypes) / 1024,
             model::dtype_name(r.dtypes.kv_cache));
  fmt::print("workload: {} of {} new tokens x {} sequences after {} cached tokens{}\n\n",
             w.phase == model::Phase::prefill ? "prefill" : "decode", w.new_tokens, w.sequences,
             w.prior_context, r.mla_form.empty() ? "" : "; MLA " + r.mla_form);
  fmt::print("{:>5}  {:<36} {:>10} {:>12} {:>12} {:>12}\n", "layer", "kind", "params (M)", "GFLOP",
             "read (MB)", "written (MB)");
  std::vector<const model::OpGroup*> by_layer(m.layers.size(), nullptr);
  for (const auto& g : r.groups)
    for (auto i : g.layers) by_layer[static_cast<std::size_t>(i)] = &g;
  auto row = [](const std::string& idx, const model::OpGroup& g) {
    fmt::print("{:>5}  {:<36} {:>10.1f} {:>12.2f} {:>12.1f} {:>12.1f}\n", idx, g.label,
               g.parameters / 1e6, g.flops() / 1e9, g.bytes_read() / 1e6, g.bytes_written() / 1e6);
  };
  row("-", r.groups.front());
  for (std::size_t i = 0; i < by_layer.size(); ++i) row(std::to_string(i), *by_layer[i]);
  row("-", r.groups.back());
  fmt::print(
      "\ntotal: {:.4g} TFLOP ({:.1f}% attention core), {:.4g} GB read ({:.4g} GB "
      "weights), {:.4g} GB written\n",
      r.flops / 1e12, 100 * r.attention_flops / r.flops, r.bytes_read / 1e9, r.weight_bytes / 1e9,
      r.bytes_written / 1e9);
  fmt::print("check: 2 x active params x tokens = {:.4g} TFLOP\n",
             2 * c.active * static_cast<double>(w.tokens()) / 1e12);
  if (show_ops)
    for (const auto& g : r.groups) {
      fmt::print("\n{} (x{}):\n", g.label, g.count());
      for (const auto& op : g.ops)
        fmt::print("  {:<18} {:<12} {:>12.3f} GFLOP {:>10.2f} MB read {:>10.2f} MB written  {}\n",
                   op.name, model::op_class_name(op.op_class), op.flops / 1e9, op.bytes_read / 1e6,
                   op.bytes_written / 1e6, op.output);
    }
  if (!m.ignored_fields.empty()) {
    fmt::print("\nfields read as metadata (no effect on shapes or FLOPs):\n");
    for (const auto& f : m.ignored_fields) fmt::print("  {}\n", f);
  }
}

}  // namespace

void add_model_commands(CLI::App& app, const GlobalOptions& options, const Registry&) {
  CLI::App* model_cmd = app.add_subcommand("model", "Transformer models from config.json");
  model_cmd->require_subcommand(1);
  auto* show = model_cmd->add_subcommand("show", "Parameters, KV cache and per-layer cost");
  auto o = std::make_shared<ShowOptions>();
  show->add_option("CONFIG", o->file, "Hugging Face config.json")->required();
  show->add_option("--tokens", o->tokens, "Prefill tokens per sequence")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  show->add_option("--sequences", o->sequences, "Sequences processed together")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  show->add_option("--prior", o->prior, "Tokens already cached per sequence (chunked prefill)")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  show->add_option("--decode", o->decode_context,
                   "Analyse one decode step at this context length instead of a prefill")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  const std::vector<std::string> dtypes = {"bf16", "fp8", "fp4"};
  show->add_option("--dtypes", o->dtypes,
                   "dtype_policy preset (configs/dtypes/: bf16, fp8, fp4) or file; default bf16");
  show->add_option("--weights", o->weights, "Weight format (overrides --dtypes)")
      ->check(CLI::IsMember(dtypes));
  show->add_option("--activations", o->activations, "Activation format (overrides --dtypes)")
      ->check(CLI::IsMember(dtypes));
  show->add_option("--kv", o->kv, "KV-cache format (overrides --dtypes)")
      ->check(CLI::IsMember(dtypes));
  show->add_option("--mla-form", o->mla_form, "MLA form: auto, absorbed, unabsorbed")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "absorbed", "unabsorbed"}));
  show->add_flag("--ops", o->ops, "Print the operator list of each layer kind");
  show->callback([o, &options] {
    const model::Transformer m = model::load_hf_config(o->file);
    model::DTypePolicy dt;
    if (!o->dtypes.empty()) {
      const config::LoadOptions load = options.load_options();
      dt = config::load_spec<model::DTypePolicy>(
          config::find_named(o->dtypes, "dtypes", ".yaml", load, "dtype policy"), load);
    }
    options.require_all_used();
    if (!o->weights.empty()) dt.weights = parse_dtype(o->weights);
    if (!o->activations.empty()) dt.activations = parse_dtype(o->activations);
    if (!o->kv.empty()) dt.kv_cache = parse_dtype(o->kv);
    model::Workload w = o->decode_context >= 0
                            ? model::Workload::decode(o->decode_context, o->sequences)
                            : model::Workload::prefill(o->tokens, o->sequences, o->prior);
    w.mla_form = o->mla_form == "absorbed"     ? model::MlaForm::absorbed
                 : o->mla_form == "unabsorbed" ? model::MlaForm::unabsorbed
                                               : model::MlaForm::automatic;
    const model::ParameterCount c = model::count_parameters(m);
    const model::CostReport r = model::analyze(m, dt, w);
    if (options.json)
      std::cout << dump_json(report_json(m, c, r));
    else
      print_report(m, c, r, o->ops);
  });
}

}  // namespace lightsim::cli
