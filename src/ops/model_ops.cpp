// Transformer models (docs/model.md): model_show, the parameters, KV cache and per-operator
// cost of a prefill chunk or decode step of a Hugging Face config.json.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <optional>
#include <ostream>

#include "lightsim/core/config_files.h"
#include "lightsim/model/cost.h"
#include "lightsim/model/params.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"

namespace lightsim::ops {

struct ModelShowRequest {
  static constexpr std::string_view kind = "model_show_request";
  std::string config{};
  std::int64_t tokens = 4096, sequences = 1, prior = 0;
  std::optional<std::int64_t> decode;
  std::string dtypes{};  // preset name in configs/dtypes/ or a file; the fields below override it
  std::optional<std::string> weights, activations, kv{};
  std::string mla_form = "auto";
  bool ops = false;
  static void describe(config::Schema<ModelShowRequest>& s) {
    const std::vector<std::string> formats = {"bf16", "fp8", "fp4"};
    s.help("Request of model show: one model and one workload.");
    s.field("config", &ModelShowRequest::config, "Hugging Face config.json").required();
    s.field("tokens", &ModelShowRequest::tokens, "prefill tokens per sequence")
        .range(std::int64_t{1}, std::int64_t{1} << 40);
    s.field("sequences", &ModelShowRequest::sequences, "sequences processed together")
        .range(std::int64_t{1}, std::int64_t{1} << 30);
    s.field("prior", &ModelShowRequest::prior,
            "tokens already cached per sequence (chunked prefill)")
        .range(std::int64_t{0}, std::int64_t{1} << 40);
    s.field("decode", &ModelShowRequest::decode,
            "analyse one decode step at this context length instead of a prefill")
        .range(std::int64_t{0}, std::int64_t{1} << 40);
    s.field("dtypes", &ModelShowRequest::dtypes,
            "dtype_policy preset (configs/dtypes/: bf16, fp8, fp4) or file; default bf16");
    s.field("weights", &ModelShowRequest::weights, "weight format (overrides dtypes)")
        .one_of(formats);
    s.field("activations", &ModelShowRequest::activations, "activation format (overrides dtypes)")
        .one_of(formats);
    s.field("kv", &ModelShowRequest::kv, "KV-cache format (overrides dtypes)").one_of(formats);
    s.field("mla_form", &ModelShowRequest::mla_form, "MLA form")
        .one_of({"auto", "absorbed", "unabsorbed"});
    s.field("ops", &ModelShowRequest::ops, "print the operator list of each layer kind");
  }
};

namespace {

model::DType parse_dtype(const std::string& word) {
  if (word == "bf16") return model::DType::bf16;
  if (word == "fp8") return model::DType::fp8;
  return model::DType::fp4;  // the request schema checks the allowed words
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
                 const model::CostReport& r, const std::string& cost_unavailable) {
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
  Json out = {{"model", m.name},
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
  if (m.checkpoint.method != "bf16")
    out["checkpoint"] = {{"quant_method", m.checkpoint.method},
                         {"quantized_bits", m.checkpoint.quantized_bits},
                         {"experts_only", m.checkpoint.experts_only},
                         {"weight_bytes", c.checkpoint_bytes}};
  if (!cost_unavailable.empty()) out["cost_unavailable"] = cost_unavailable;
  return out;
}

void print_metadata(const model::Transformer& m, std::ostream& out) {
  if (!m.ignored_fields.empty()) {
    fmt::print(out, "\nfields read as metadata (no effect on shapes or FLOPs):\n");
    for (const auto& f : m.ignored_fields) fmt::print(out, "  {}\n", f);
  }
}

void print_report(const model::Transformer& m, const model::ParameterCount& c,
                  const model::CostReport& r, bool show_ops, const std::string& cost_unavailable,
                  std::ostream& out) {
  const model::Workload& w = r.workload;
  fmt::print(out, "{} ({}): {} layers ({} MoE), hidden {}, vocab {}\n", m.name, m.model_type,
             m.layers.size(), m.moe_layer_count(), m.hidden, m.vocab);
  fmt::print(out, "parameters: {:.2f} B total, {:.2f} B active per token", c.total / 1e9,
             c.active / 1e9);
  if (c.mtp > 0) fmt::print(out, " (+{:.2f} B in MTP modules)", c.mtp / 1e9);
  fmt::print(out, "\nKV cache: {} values/token/layer, {:.1f} KiB/token ({})\n",
             model::kv_values_per_token_per_layer(m), model::kv_bytes_per_token(m, r.dtypes) / 1024,
             model::dtype_name(r.dtypes.kv_cache));
  if (m.checkpoint.method != "bf16")
    fmt::print(out, "checkpoint: {:.2f} GB ({})\n", c.checkpoint_bytes / 1e9,
               m.checkpoint.method == "float32"
                   ? std::string("float32")
                   : fmt::format("{} at {:.4g} bits per {} weight, the rest bf16",
                                 m.checkpoint.method, m.checkpoint.quantized_bits,
                                 m.checkpoint.experts_only ? "routed-expert" : "linear-layer"));
  if (!cost_unavailable.empty()) {
    fmt::print(out, "cost: not available: the operator cost model does not represent {} yet\n",
               cost_unavailable);
    print_metadata(m, out);
    return;
  }
  fmt::print(out, "workload: {} of {} new tokens x {} sequences after {} cached tokens{}\n\n",
             w.phase == model::Phase::prefill ? "prefill" : "decode", w.new_tokens, w.sequences,
             w.prior_context, r.mla_form.empty() ? "" : "; MLA " + r.mla_form);
  fmt::print(out, "{:>5}  {:<36} {:>10} {:>12} {:>12} {:>12}\n", "layer", "kind", "params (M)",
             "GFLOP", "read (MB)", "written (MB)");
  std::vector<const model::OpGroup*> by_layer(m.layers.size(), nullptr);
  for (const auto& g : r.groups)
    for (auto i : g.layers) by_layer[static_cast<std::size_t>(i)] = &g;
  auto row = [&out](const std::string& idx, const model::OpGroup& g) {
    fmt::print(out, "{:>5}  {:<36} {:>10.1f} {:>12.2f} {:>12.1f} {:>12.1f}\n", idx, g.label,
               g.parameters / 1e6, g.flops() / 1e9, g.bytes_read() / 1e6, g.bytes_written() / 1e6);
  };
  row("-", r.groups.front());
  for (std::size_t i = 0; i < by_layer.size(); ++i) row(std::to_string(i), *by_layer[i]);
  row("-", r.groups.back());
  fmt::print(out,
             "\ntotal: {:.4g} TFLOP ({:.1f}% attention core), {:.4g} GB read ({:.4g} GB "
             "weights), {:.4g} GB written\n",
             r.flops / 1e12, 100 * r.attention_flops / r.flops, r.bytes_read / 1e9,
             r.weight_bytes / 1e9, r.bytes_written / 1e9);
  fmt::print(out, "check: 2 x active params x tokens = {:.4g} TFLOP\n",
             2 * c.active * static_cast<double>(w.tokens()) / 1e12);
  if (show_ops)
    for (const auto& g : r.groups) {
      fmt::print(out, "\n{} (x{}):\n", g.label, g.count());
      for (const auto& op : g.ops)
        fmt::print(out,
                   "  {:<18} {:<12} {:>12.3f} GFLOP {:>10.2f} MB read {:>10.2f} MB written  {}\n",
                   op.name, model::op_class_name(op.op_class), op.flops / 1e9, op.bytes_read / 1e6,
                   op.bytes_written / 1e6, op.output);
    }
  print_metadata(m, out);
}

struct ModelResult {
  bool show_ops = false;
  std::string cost_unavailable{};  // unmodelled_cost_feature: no operator list
  model::Transformer model{};
  model::ParameterCount count{};
  model::CostReport report{};
};

ModelResult evaluate_model(const ModelShowRequest& q, Env& env) {
  ModelResult r{.show_ops = q.ops, .model = model::load_hf_config(q.config)};
  model::DTypePolicy dt;
  if (!q.dtypes.empty())
    dt = config::load_spec<model::DTypePolicy>(
        config::find_named(q.dtypes, "dtypes", env.load, "dtype policy"), env.load);
  env.inputs_read();
  if (q.weights) dt.weights = parse_dtype(*q.weights);
  if (q.activations) dt.activations = parse_dtype(*q.activations);
  if (q.kv) dt.kv_cache = parse_dtype(*q.kv);
  model::Workload w = q.decode ? model::Workload::decode(*q.decode, q.sequences)
                               : model::Workload::prefill(q.tokens, q.sequences, q.prior);
  w.mla_form = q.mla_form == "absorbed"     ? model::MlaForm::absorbed
               : q.mla_form == "unabsorbed" ? model::MlaForm::unabsorbed
                                            : model::MlaForm::automatic;
  r.count = model::count_parameters(r.model);
  r.cost_unavailable = model::unmodelled_cost_feature(r.model);
  if (r.cost_unavailable.empty()) {
    r.report = model::analyze(r.model, dt, w);
  } else {
    r.report.workload = w;
    r.report.dtypes = dt;
  }
  return r;
}

}  // namespace

void register_model_ops(Registry& registry) {
  add<ModelShowRequest, ModelResult>(
      registry, {.info = {.name = "model_show",
                          .command = {"model", "show"},
                          .help = "Parameters, KV cache and per-layer cost",
                          .positional = {"config"}},
                 .evaluate = evaluate_model,
                 .to_json =
                     [](const ModelResult& r) {
                       return report_json(r.model, r.count, r.report, r.cost_unavailable);
                     },
                 .print =
                     [](const ModelResult& r, std::ostream& out) {
                       print_report(r.model, r.count, r.report, r.show_ops, r.cost_unavailable,
                                    out);
                     }});
}

}  // namespace lightsim::ops
