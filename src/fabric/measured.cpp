// Measured collectives and the model's figure for each (measured.h).
#include "lightsim/fabric/measured.h"

#include "lightsim/fabric/collective.h"
#include "lightsim/fabric/expert.h"

namespace lightsim::fabric {

void CollectiveMeasurement::describe(config::Schema<CollectiveMeasurement>& s) {
  s.help("A published collective measurement (nccl-tests or DeepEP), used to validate the model.");
  s.field("id", &CollectiveMeasurement::id, "unique name of the row").required();
  s.enumeration("library", &CollectiveMeasurement::library,
                {{"nccl", MeasuredLibrary::nccl}, {"deepep", MeasuredLibrary::deepep}},
                "who ran it: nccl (nccl-tests) or deepep (DeepEP's benchmarks)");
  s.field("fabric", &CollectiveMeasurement::fabric,
          "configs/fabrics/ name restating the measured system")
      .required();
  s.field("op", &CollectiveMeasurement::op,
          "nccl: all_reduce, reduce_scatter, all_gather, all_to_all, send_recv; deepep: "
          "dispatch, combine")
      .required();
  s.field("algorithm", &CollectiveMeasurement::algorithm,
          "nccl: the algorithm run (auto = NCCL's choice); deepep: normal or low_latency");
  s.field("gpus", &CollectiveMeasurement::gpus, "ranks (EP size for deepep)")
      .range(std::int64_t{2}, std::int64_t{1} << 20)
      .required();
  s.field("bytes", &CollectiveMeasurement::bytes, "nccl: the nccl-tests size").positive();
  s.field("tokens", &CollectiveMeasurement::tokens, "deepep: tokens per rank").min(0.0);
  s.field("experts_per_token", &CollectiveMeasurement::experts_per_token, "deepep: top-k").min(0.0);
  s.field("hidden", &CollectiveMeasurement::hidden, "deepep: hidden size")
      .range(std::int64_t{0}, std::int64_t{1} << 20);
  s.field("bytes_per_value", &CollectiveMeasurement::bytes_per_value,
          "deepep: bytes per hidden value in the transfer, scales included")
      .range(0.0, 8.0);
  s.field("max_nodes", &CollectiveMeasurement::max_nodes,
          "deepep: nodes a token may reach (node-limited routing; 0 = any)")
      .range(std::int64_t{0}, std::int64_t{1} << 20);
  s.field("busbw", &CollectiveMeasurement::busbw, "measured nccl-tests bus bandwidth").positive();
  s.field("bandwidth", &CollectiveMeasurement::bandwidth,
          "measured DeepEP bottleneck bandwidth as DeepEP reports it")
      .positive();
  s.field("latency", &CollectiveMeasurement::latency, "measured time of one call").positive();
  s.field("source", &CollectiveMeasurement::source, "URL and table or figure").required();
  s.field("text", &CollectiveMeasurement::text, "exact configuration and how the figure is read");
  s.field("fitted", &CollectiveMeasurement::fitted,
          "true when the figure was used to fit a parameter: then it is excluded from the "
          "validation error")
      .required();
  s.rule([](const CollectiveMeasurement& m) -> std::optional<std::string> {
    const int figures = (m.busbw ? 1 : 0) + (m.bandwidth ? 1 : 0) + (m.latency ? 1 : 0);
    if (figures != 1)
      return fmt::format("'{}': give exactly one of busbw, bandwidth, latency (got {})", m.id,
                         figures);
    if (m.library == MeasuredLibrary::nccl) {
      try {
        (void)parse_op(m.op);
        (void)parse_algorithm(m.algorithm);
      } catch (const UsageError& e) {
        return fmt::format("'{}': {}", m.id, e.what());
      }
      if (!m.bytes) return fmt::format("'{}': an nccl row needs 'bytes'", m.id);
      if (!m.busbw) return fmt::format("'{}': an nccl row measures 'busbw'", m.id);
    } else {
      if (m.op != "dispatch" && m.op != "combine")
        return fmt::format("'{}': op '{}' (expected dispatch or combine)", m.id, m.op);
      if (m.algorithm != "normal" && m.algorithm != "low_latency")
        return fmt::format("'{}': algorithm '{}' (expected normal or low_latency)", m.id,
                           m.algorithm);
      if (!(m.tokens > 0) || !(m.experts_per_token > 0) || m.hidden <= 0 ||
          !(m.bytes_per_value > 0))
        return fmt::format(
            "'{}': a deepep row needs positive tokens, experts_per_token, hidden and "
            "bytes_per_value",
            m.id);
      if (m.busbw) return fmt::format("'{}': a deepep row measures bandwidth or latency", m.id);
    }
    return std::nullopt;
  });
}

void CollectiveMeasurementReference::describe(config::Schema<CollectiveMeasurementReference>& s) {
  s.help(
      "Published measurements of collectives (nccl-tests, DeepEP): the collective models are "
      "validated against the rows with fitted: false (docs/fabric.md).");
  s.field("measurements", &CollectiveMeasurementReference::measurements, "the measurements")
      .min_items(1);
  s.rule([](const CollectiveMeasurementReference& r) -> std::optional<std::string> {
    for (std::size_t i = 0; i < r.measurements.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (r.measurements[i].id == r.measurements[j].id)
          return fmt::format("measurements[{}] repeats the id '{}' of measurements[{}]", i,
                             r.measurements[i].id, j);
    return std::nullopt;
  });
}

double measured_value(const CollectiveMeasurement& m) {
  if (m.busbw) return m.busbw->si();
  if (m.bandwidth) return m.bandwidth->si();
  return m.latency ? m.latency->si() : 0.0;
}

std::string_view measured_metric(const CollectiveMeasurement& m) {
  return m.busbw ? "busbw" : m.bandwidth ? "bandwidth" : "latency";
}

ModelledMeasurement model_measurement(const Topology& t, const CollectiveMeasurement& m) {
  ModelledMeasurement r;
  if (m.library == MeasuredLibrary::nccl) {
    const CollectiveResult c =
        collective(t, parse_op(m.op), m.gpus, m.bytes->si(), parse_algorithm(m.algorithm));
    r.feasible = c.feasible;
    r.reason = c.reason;
    r.value = c.busbw;
    r.how = std::string(algorithm_name(c.algorithm));
    if (c.protocol) r.how.append("/").append(protocol_name(*c.protocol));
    return r;
  }
  ExpertExchange x;
  x.mode = m.algorithm == "low_latency" ? ExpertMode::low_latency : ExpertMode::normal;
  x.ranks = m.gpus;
  x.tokens = m.tokens;
  x.experts_per_token = m.experts_per_token;
  x.token_bytes = static_cast<double>(m.hidden) * m.bytes_per_value;
  x.max_nodes = m.max_nodes;
  const ExpertResult e = expert_exchange(t, x);
  r.feasible = e.feasible;
  r.reason = e.reason;
  r.value = m.latency ? e.time : e.reported_bandwidth;
  if (e.feasible)
    r.how = fmt::format("{}, bound {}", m.algorithm,
                        t.tiers[static_cast<std::size_t>(e.bounding_tier)].name);
  return r;
}

}  // namespace lightsim::fabric
