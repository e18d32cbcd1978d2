// One decode step with full attention or Prism-selected blocks (step.h, docs/decode.md).
#include "lightsim/decode/step.h"

#include <fmt/format.h>
#include <algorithm>

#include "lightsim/core/as_double.h"
#include "lightsim/model/cost.h"
#include "lightsim/model/params.h"
#include "lightsim/prism/cost.h"

namespace lightsim::decode {
namespace {

// The GPU side of a step in which every sequence attends to `keys` keys: the operators of
// model::analyze, each timed by the GPU's roofline with achievable efficiencies.
struct GpuCost {
  double flops = 0, hbm_bytes = 0, weight_bytes = 0, time = 0;
};

GpuCost gpu_cost(const DecodeSetup& s, const fabric::GpuSpec& gpu, std::int64_t batch,
                 std::int64_t keys) {
  const model::DTypePolicy& dt = s.scenario.dtypes;
  const model::CostReport report =
      model::analyze(s.model, dt, model::Workload::decode(keys - 1, batch));
  // Same number-format convention as the prefill model: matmuls in the activation format,
  // attention products in the KV-cache format, the rest in BF16.
  const std::string_view act = model::dtype_name(dt.activations);
  const std::string_view kv = model::dtype_name(dt.kv_cache);
  const std::string_view other = "bf16";
  GpuCost c;
  for (const model::OpGroup& g : report.groups)
    for (const model::Operator& op : g.ops) {
      const std::string_view dtype = op.op_class == model::OpClass::matmul      ? act
                                     : op.op_class == model::OpClass::attention ? kv
                                                                                : other;
      c.time += as_double(g.count()) *
                gpu.kernel_time(op.flops, op.bytes_read + op.bytes_written, dtype).si();
    }
  c.flops = report.flops;
  c.hbm_bytes = report.bytes_read + report.bytes_written;
  c.weight_bytes = report.weight_bytes;
  return c;
}

// KV bytes one sequence reads per step when its attention covers `keys` keys, summed over the
// layers (chunked-attention layers see only their chunk: model::keys_read).
double kv_read_per_sequence(const DecodeSetup& s, std::int64_t keys) {
  const double per_token_layer = as_double(model::kv_values_per_token_per_layer(s.model)) *
                                 model::bytes_per_value(s.scenario.dtypes.kv_cache);
  double total = 0;
  for (const model::LayerShape& layer : s.model.layers)
    total += model::keys_read(keys - 1, 1, layer.attention_window) * per_token_layer;
  return total;
}

// KV heads that each ask Prism one query per step (MLA: one shared latent per layer).
std::int64_t query_heads(const model::Transformer& m) {
  return m.attention.kind == model::AttentionKind::mla ? 1 : m.attention.kv_heads;
}

StepReport evaluate(const DecodeSetup& s, const GpuOption& option, Attention attention,
                    std::int64_t batch, std::int64_t context, const PrismSelection& sel) {
  LIGHTSIM_CHECK_AS(ConfigError, batch >= 1 && context >= 1,
                    "decode step needs batch >= 1 and context >= 1 (got {} and {})", batch,
                    context);
  const fabric::GpuSpec& gpu = option.gpu;
  const DecodeScenario& sc = s.scenario;
  StepReport r;
  r.gpu = gpu.name;
  r.attention = attention;
  r.batch = batch;
  r.context = context;
  const double weights_resident =
      model::count_parameters(s.model).total * model::bytes_per_value(sc.dtypes.weights);
  const double kv_resident = as_double(batch) * kv_read_per_sequence(s, context);
  r.hbm_footprint = weights_resident + kv_resident;
  const double usable = gpu.hbm_capacity.si() * sc.hbm_usable_fraction;
  if (r.hbm_footprint > usable) {
    r.feasible = false;
    r.reason = fmt::format(
        "weights {:.1f} GB + KV cache {:.1f} GB ({} x {} tokens) exceed {:.0f}% of {:.0f} GB HBM",
        weights_resident / 1e9, kv_resident / 1e9, batch, context, 100 * sc.hbm_usable_fraction,
        gpu.hbm_capacity.si() / 1e9);
    return r;
  }

  const bool prism = attention == Attention::prism && sel.used;
  r.attended_tokens = prism ? sel.attended_tokens : context;
  const GpuCost g = gpu_cost(s, gpu, batch, r.attended_tokens);
  r.kv_bytes_read = as_double(batch) * kv_read_per_sequence(s, r.attended_tokens);
  r.weight_bytes = g.weight_bytes;
  r.hbm_bytes = g.hbm_bytes;
  r.flops = g.flops;
  r.gpu_time = g.time;

  double prism_energy = 0;  // J per step, dynamic
  if (prism) {
    r.selection = sel;
    const PrismDecodeSpec& p = sc.prism;
    const std::int64_t per_layer = batch * query_heads(s.model);
    const std::int64_t layers = static_cast<std::int64_t>(s.model.layers.size());
    r.prism_queries = per_layer * layers;
    // Per layer: the projected queries go out (d values, 2 B) and the top-k block indices come
    // back (4 B each); the queries of a layer spread over the units, back to back on each.
    const double link_bytes = as_double(per_layer) * (2.0 * s.accelerator.device.grid.channels +
                                                      4.0 * s.accelerator.selection.top_k);
    const std::int64_t per_unit = (per_layer + p.accelerators - 1) / p.accelerators;
    const double layer_time = p.link_latency.si() + link_bytes / p.link_bandwidth.si() +
                              sel.query_latency + as_double(per_unit - 1) * sel.query_interval;
    r.prism_time = as_double(layers) * layer_time;
    prism_energy = as_double(r.prism_queries) * sel.dynamic_energy;
  }
  r.step_time = r.gpu_time + r.prism_time;
  r.tokens_per_second = as_double(batch) / r.step_time;
  r.memory_utilization = r.hbm_bytes / (r.step_time * gpu.hbm_bandwidth.si());
  r.compute_utilization =
      r.flops / (r.step_time * gpu.peak(model::dtype_name(sc.dtypes.activations)).si());
  const double s_mem = sc.power.memory_share;
  r.gpu_power =
      gpu.board_power(s_mem * r.memory_utilization + (1.0 - s_mem) * r.compute_utilization);
  if (prism) r.prism_power = sc.prism.accelerators * sel.static_power + prism_energy / r.step_time;
  r.system_power = r.gpu_power + r.prism_power;
  r.energy_per_token = r.system_power * r.step_time / as_double(batch);
  const double price = option.price_per_hour_usd + (prism ? sc.prism.price_per_hour_usd : 0.0);
  r.cost_per_million_tokens = price / 3600.0 * r.step_time / as_double(batch) * 1e6;
  return r;
}

}  // namespace

std::string_view to_string(Attention a) {
  return a == Attention::full ? "full" : "prism";
}

DecodeSetup prepare(const DecodeScenario& scenario, const config::LoadOptions& options) {
  return DecodeSetup{scenario, load_model(scenario.model, options),
                     scenario.prism.accelerator.get()};
}

PrismSelection prism_selection(const DecodeSetup& setup, std::int64_t context) {
  const PrismDecodeSpec& p = setup.scenario.prism;
  const prism::AcceleratorSpec& a = setup.accelerator;
  PrismSelection sel;
  const std::int64_t block = a.programming.block_tokens;
  sel.blocks = (context + block - 1) / block;
  const std::int64_t wanted =
      p.sink_tokens + p.recent_tokens + std::int64_t{a.selection.top_k} * block;
  sel.used = wanted < context;
  sel.attended_tokens = std::min(context, wanted);
  if (!sel.used) return sel;
  // The accelerator as decode uses it: one bank reloaded for every query (it holds one
  // (sequence, layer, KV head) cache's signatures at a time), as many logical rows as the
  // context has blocks (time multiplexing beyond the physical rows).
  prism::AcceleratorSpec used = a;
  used.logical_rows = static_cast<int>(sel.blocks);
  used.programming.banks = prism::BankSharing::time_shared;
  used.programming.kv_heads = static_cast<int>(query_heads(setup.model));
  const prism::CostReport c = prism::cost(used);
  sel.passes = c.timeline.passes;
  sel.query_latency = c.timeline.latency;
  sel.query_interval = c.timeline.interval;
  sel.dynamic_energy = c.dynamic_energy;
  sel.static_power = c.static_power_total;
  sel.tec_included = c.tec_included;
  if (!c.tec_included) sel.tec_note = c.thermal.reason;
  return sel;
}

StepReport evaluate_step(const DecodeSetup& setup, const GpuOption& gpu, Attention attention,
                         std::int64_t batch, std::int64_t context) {
  const PrismSelection sel =
      attention == Attention::prism ? prism_selection(setup, context) : PrismSelection{};
  return evaluate(setup, gpu, attention, batch, context, sel);
}

std::vector<Comparison> evaluate_grid(const DecodeSetup& setup) {
  return evaluate_grid(setup, setup.scenario.batches, setup.scenario.contexts);
}

std::vector<Comparison> evaluate_grid(const DecodeSetup& setup,
                                      const std::vector<std::int64_t>& batches,
                                      const std::vector<std::int64_t>& contexts) {
  std::vector<PrismSelection> selections;
  for (std::int64_t c : contexts) selections.push_back(prism_selection(setup, c));
  std::vector<Comparison> out;
  for (const GpuOption& g : setup.scenario.gpus)
    for (std::int64_t b : batches)
      for (std::size_t i = 0; i < contexts.size(); ++i) {
        const std::int64_t c = contexts[i];
        out.push_back({evaluate(setup, g, Attention::full, b, c, PrismSelection{}),
                       evaluate(setup, g, Attention::prism, b, c, selections[i])});
      }
  return out;
}

}  // namespace lightsim::decode
