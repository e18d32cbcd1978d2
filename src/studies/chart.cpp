// The one chart builder (include/lightsim/studies/chart.h).
#include "lightsim/studies/chart.h"

#include "lightsim/core/json.h"

namespace lightsim::studies {
namespace {

Json channel(const Channel& c) {
  Json j = Json::object();
  j["field"] = c.field;
  if (!c.type.empty()) j["type"] = c.type;
  if (!c.format.empty()) j["format"] = c.format;
  if (c.no_title)
    j["title"] = nullptr;
  else if (c.title)
    j["title"] = *c.title;
  if (!c.scale.type.empty() || c.scale.base != 0 || c.scale.zero) {
    Json s = Json::object();
    if (!c.scale.type.empty()) s["type"] = c.scale.type;
    if (c.scale.base != 0) s["base"] = static_cast<std::int64_t>(c.scale.base);
    if (c.scale.zero) s["zero"] = *c.scale.zero;
    j["scale"] = s;
  }
  if (!c.stack.empty()) j["stack"] = c.stack;
  if (c.unsorted) j["sort"] = nullptr;
  if (c.no_labels) j["axis"] = {{"labels", false}};
  if (c.no_legend) j["legend"] = nullptr;
  return j;
}

Json mark(const Chart& c) {
  const char* type = c.mark == Mark::bar ? "bar" : c.mark == Mark::rule ? "rule" : "line";
  if (c.mark != Mark::line_points && c.mark_color.empty()) return type;
  Json m = {{"type", type}};
  if (c.mark == Mark::line_points) m["point"] = true;
  if (!c.mark_color.empty()) m["color"] = c.mark_color;
  return m;
}

}  // namespace

Channel tip(std::string field, std::string format, std::string title) {
  Channel c;
  c.field = std::move(field);
  c.format = std::move(format);
  if (!title.empty()) c.title = std::move(title);
  return c;
}

Json vega_lite(const Chart& chart) {
  Json spec = Json::object();
  if (!chart.layers.empty()) {
    Json layers = Json::array();
    for (const Chart& layer : chart.layers) layers.push_back(vega_lite(layer));
    spec["layer"] = layers;
  } else {
    spec["mark"] = mark(chart);
  }
  Json transform = Json::array();
  for (const std::string& f : chart.filters) transform.push_back({{"filter", f}});
  if (!chart.fold.empty()) transform.push_back({{"fold", chart.fold}, {"as", chart.fold_as}});
  if (!transform.empty()) spec["transform"] = transform;
  Json enc = Json::object();
  const std::pair<const char*, const std::optional<Channel>*> channels[] = {
      {"x", &chart.x},
      {"x2", &chart.x2},
      {"y", &chart.y},
      {"color", &chart.color},
      {"strokeDash", &chart.stroke_dash},
      {"column", &chart.column},
      {"row", &chart.row}};
  for (const auto& [name, c] : channels)
    if (c->has_value()) enc[name] = channel(**c);
  if (!chart.tooltip.empty()) {
    Json t = Json::array();
    for (const Channel& c : chart.tooltip) t.push_back(channel(c));
    enc["tooltip"] = t;
  }
  if (!enc.empty()) spec["encoding"] = enc;
  if (!chart.independent.empty()) {
    Json scale = Json::object();
    for (const std::string& s : chart.independent) scale[s] = "independent";
    spec["resolve"] = {{"scale", scale}};
  }
  return spec;
}

Json with_seed_figures(Json spec, const std::vector<SeedFigure>& figures) {
  if (figures.empty()) return spec;
  constexpr const char* kInk = "#222222";
  Json marks = Json::array();
  for (const SeedFigure& f : figures) {
    const bool on_y = f.axis == "y";
    const std::string other = on_y ? "x" : "y";
    const Json at = {{"datum", f.lo}, {"type", "quantitative"}};
    const Json tip = {{"value", f.tip}};
    Json label_at = {{other, {{"value", 0}}}};
    if (f.at) {
      // A marker at (at, figure), its label to the right.
      const Json where = {{"datum", *f.at}, {"type", "quantitative"}};
      Json m = {{"mark",
                 {{"type", "point"},
                  {"shape", "diamond"},
                  {"filled", true},
                  {"color", kInk},
                  {"size", 90}}},
                {"encoding", {{f.axis, at}, {other, where}, {"tooltip", tip}}}};
      marks.push_back(std::move(m));
      label_at = {{other, where}};
    } else if (f.hi > f.lo) {
      Json band = {
          {"mark", {{"type", "rect"}, {"color", kInk}, {"opacity", 0.12}}},
          {"encoding", {{f.axis, at}, {f.axis + "2", {{"datum", f.hi}}}, {"tooltip", tip}}}};
      marks.push_back(std::move(band));
    } else {
      Json rule = {
          {"mark",
           {{"type", "rule"}, {"color", kInk}, {"strokeDash", {6, 3}}, {"strokeWidth", 1.5}}},
          {"encoding", {{f.axis, at}, {"tooltip", tip}}}};
      marks.push_back(std::move(rule));
    }
    if (f.label.empty()) continue;
    // Beside a marker; above a horizontal rule at the left edge; beside a vertical one at the
    // top.
    Json text_mark = {{"type", "text"},
                      {"color", kInk},
                      {"fontSize", 10},
                      {"align", "left"},
                      {"dx", f.at ? 8 : 3},
                      {"dy", f.at   ? 0
                             : on_y ? -3
                                    : 3},
                      {"baseline", f.at   ? "middle"
                                   : on_y ? "bottom"
                                          : "top"}};
    Json encoding = {{f.axis, {{"datum", on_y ? f.hi : f.lo}, {"type", "quantitative"}}},
                     {"text", {{"value", f.label}}}};
    encoding.update(label_at);
    marks.push_back({{"mark", std::move(text_mark)}, {"encoding", std::move(encoding)}});
  }
  Json seed_layer = {{"transform", {{{"aggregate", {{{"op", "count"}, {"as", "seed_rows"}}}}}}},
                     {"layer", std::move(marks)}};
  return {{"layer", {std::move(spec), std::move(seed_layer)}}};
}

}  // namespace lightsim::studies
