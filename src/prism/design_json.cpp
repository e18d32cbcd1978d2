// The JSON form of the design search's result (design.h).
#include <cmath>

#include "lightsim/core/json.h"
#include "lightsim/prism/design.h"

namespace lightsim::prism {

namespace {

Json variables_json(const DesignVariables& v) {
  return {{"ring_radius_m", v.ring_radius},
          {"q_loaded", v.q_loaded},
          {"channel_spacing_m", v.channel_spacing},
          {"dim", v.dim},
          {"laser_power_w", v.laser_power},
          {"rows", v.rows},
          {"detection",
           v.detection == photonics::DetectionMode::balanced ? "balanced" : "single_ended"},
          {"weight_bits", v.weight_bits},
          {"lock_precision_m", v.lock_precision},
          {"chips", v.chips},
          {"query_encoding", to_string(v.query_encoding)},
          {"projection", v.projection},
          {"block_tokens", v.block_tokens},
          {"top_k", v.top_k}};
}

Json number_or_null(double x) {
  return std::isfinite(x) ? Json(x) : Json(nullptr);
}

}  // namespace

Json design_candidate_json(const DesignCandidate& c) {
  Json j{{"index", c.index},
         {"variables", variables_json(c.variables)},
         {"feasible", c.feasible},
         {"removed_by", c.removed_by}};
  if (c.figures) {
    const DesignFigures& f = *c.figures;
    j["figures"] = {{"recall", f.recall},
                    {"mass_recall", f.mass_recall},
                    {"ideal_recall", f.ideal_recall},
                    {"ideal_mass_recall", f.ideal_mass_recall},
                    {"energy_per_query_j", f.energy_per_query},
                    {"latency_per_query_s", f.latency_per_query},
                    {"latency_per_step_s", f.latency_per_step},
                    {"query_interval_s", f.query_interval},
                    {"static_power_w", f.static_power},
                    {"lock_power_w", f.lock_power},
                    {"area_m2", f.area},
                    {"passes", f.passes}};
    Json by = Json::array();
    for (const DesignContextFigures& t : f.by_context)
      by.push_back({{"tokens", t.tokens},
                    {"recall", t.recall},
                    {"mass_recall", t.mass_recall},
                    {"ideal_recall", t.ideal_recall},
                    {"ideal_mass_recall", t.ideal_mass_recall},
                    {"energy_per_query_j", t.energy_per_query},
                    {"latency_per_step_s", t.latency_per_step},
                    {"passes", t.passes}});
    j["figures"]["by_context"] = by;
  }
  Json cs = Json::array();
  for (const DesignConstraint& k : c.constraints)
    cs.push_back({{"name", k.name},
                  {"passed", k.passed},
                  {"value", number_or_null(k.value)},
                  {"limit", number_or_null(k.limit)},
                  {"margin", number_or_null(k.margin)},
                  {"unit", k.unit},
                  {"sense", k.sense},
                  {"message", k.message}});
  j["constraints"] = cs;
  return j;
}

Json to_json(const DesignResult& r) {
  Json removal = Json::array();
  for (const ConstraintCount& c : r.removal)
    removal.push_back({{"name", c.name}, {"removed", c.removed}, {"failed", c.failed}});
  Json front = Json::array();
  for (std::size_t i : r.front) front.push_back(design_candidate_json(r.all[i]));
  Json j{{"context_tokens", r.context},
         {"contexts", r.contexts},
         {"first_scored_step", r.first_step},
         {"target",
          {{"metric", to_string(r.target.metric)},
           {"recall", r.target.recall},
           {"cheapest_by", to_string(r.target.cheapest_by)}}},
         {"candidates", r.candidates},
         {"devices", r.devices},
         {"feasible", r.feasible},
         {"scored_tuples", r.scored_tuples},
         {"removal", removal},
         {"front", front}};
  if (r.best) {
    j["best"] = design_candidate_json(r.all[*r.best]);
    j["binding"] = nullptr;
  } else {
    j["best"] = nullptr;
    j["binding"] = {{"constraint", r.binding}, {"reason", r.binding_reason}};
  }
  return j;
}

}  // namespace lightsim::prism
