// Scale settings from the data (chart_scales.h).
#include "report/chart_scales.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

namespace lightsim::report {
namespace {

constexpr double kResidual = 1e-9;        // relative size of a negative rounding residual
constexpr std::size_t kBasePalette = 10;  // colours of Vega's default categorical scheme

std::optional<std::size_t> column_index(const Table& table, const Json& def) {
  if (!def.is_object() || !def.contains("field") || !def["field"].is_string()) return {};
  const std::string field = def["field"].get<std::string>();
  for (std::size_t i = 0; i < table.columns().size(); ++i)
    if (table.columns()[i].name == field) return i;
  return {};
}

std::string string_of(const Json& def, const char* key) {
  return def.contains(key) && def[key].is_string() ? def[key].get<std::string>() : "";
}

void fit_axis(Json& def, const Table& table) {
  const std::optional<std::size_t> col = column_index(table, def);
  if (!col || string_of(def, "type") != "quantitative" || string_of(def, "stack") == "normalize")
    return;
  Json& scale = def["scale"];
  if (scale.is_null()) scale = Json::object();
  if (!string_of(scale, "type").empty() || scale.contains("domain") ||
      scale.contains("domainMin")) {
    if (scale.empty()) def.erase("scale");
    return;
  }
  double lo = 0.0, magnitude = 0.0;
  for (const auto& row : table.rows()) {
    const Cell& cell = row[*col];
    const double v = std::holds_alternative<double>(cell) ? std::get<double>(cell)
                     : std::holds_alternative<std::int64_t>(cell)
                         ? static_cast<double>(std::get<std::int64_t>(cell))
                         : 0.0;
    lo = std::min(lo, v);
    magnitude = std::max(magnitude, std::fabs(v));
  }
  if (lo < 0.0 && -lo <= kResidual * magnitude) {
    scale["domainMin"] = lo;
    scale["nice"] = false;
  }
  if (scale.empty()) def.erase("scale");
}

void fit_colour(Json& def, const Table& table) {
  const std::optional<std::size_t> col = column_index(table, def);
  if (!col || string_of(def, "type") != "nominal") return;
  if (def.contains("scale") && (def["scale"].contains("scheme") || def["scale"].contains("range")))
    return;
  std::set<std::string> distinct;
  for (const auto& row : table.rows())
    std::visit([&](const auto& v) { distinct.insert(fmt::format("{}", v)); }, row[*col]);
  if (distinct.size() > kBasePalette) def["scale"]["scheme"] = "tableau20";
}

// The legend of a dash encoding draws a short line in each dash pattern (Vega-Lite's default
// symbol for a line mark with points is a filled circle: every entry looked the same).
void fit_dash_legend(Json& def) {
  if (!def.is_object() || def.contains("legend")) return;
  Json symbols = {{"stroke", {{"value", "#444444"}}}, {"fill", {{"value", "transparent"}}}};
  def["legend"] = {{"symbolType", "stroke"},
                   {"symbolSize", 400},
                   {"symbolStrokeWidth", 2},
                   {"encode", {{"symbols", {{"update", std::move(symbols)}}}}}};
}

}  // namespace

void fit_scales(Json& spec, const Table& table) {
  if (spec.contains("encoding") && spec["encoding"].is_object()) {
    Json& enc = spec["encoding"];
    for (const char* axis : {"x", "y"})
      if (enc.contains(axis)) fit_axis(enc[axis], table);
    for (const char* colour : {"color", "stroke"})
      if (enc.contains(colour)) fit_colour(enc[colour], table);
    if (enc.contains("strokeDash")) fit_dash_legend(enc["strokeDash"]);
  }
  if (spec.contains("layer") && spec["layer"].is_array())
    for (Json& layer : spec["layer"]) fit_scales(layer, table);
}

}  // namespace lightsim::report
