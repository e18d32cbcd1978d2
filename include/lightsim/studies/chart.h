// One chart builder: the Vega-Lite spec of a declared chart over a study table
// (docs/results.md, "Charts"). Studies declare charts; none writes Vega-Lite itself.
//
//   studies::Chart c{.title = "Recall vs bits", .table = "recall", .mark = Mark::line_points};
//   c.x = {.field = "weight_bits", .type = "quantitative", .title = "weight bits"};
//   c.y = {.field = "recall", .type = "quantitative"};
//   c.color = {.field = "k", .type = "nominal"};
//   result.add_chart(c.title, c.table, vega_lite(c));
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lightsim/core/json_fwd.h"

namespace lightsim::studies {

enum class Mark { line, line_points, bar, rule };

// A scale: whether it starts at zero (empty = Vega's default), its type ("" = linear, "log")
// and log base (0 = Vega's default 10).
struct Scale {
  std::optional<bool> zero{};
  std::string type{};
  double base = 0;
};

// One encoding channel. Empty strings and defaults are left out of the spec.
struct Channel {
  std::string field{};
  std::string type{};                  // quantitative, nominal, ordinal ("" for tooltips)
  std::optional<std::string> title{};  // "" prints an empty title; see no_title
  bool no_title = false;               // title: null (no axis or header title)
  std::string stack{};                 // "zero", "normalize"
  bool unsorted = false;               // sort: null (the table's order)
  bool no_labels = false;              // axis: {labels: false}
  bool no_legend = false;              // legend: null
  std::string format{};                // d3 format of a tooltip value
  Scale scale{};                       // last: designated initializers name it last
};

// A tooltip entry: the field, its d3 format and title ("" = none).
Channel tip(std::string field, std::string format = {}, std::string title = {});

// A claim whose seed figure a chart draws, on the axis whose column has the claim's unit (an
// InternalError if neither x nor y has it, the claim has no seed figure, or the chart is
// faceted or layered). `at`: the other axis' value the claim is about (a marker there);
// without it a rule (or band, for a range) across the chart.
struct SeedClaim {
  std::string id{};
  std::optional<double> at{};
};

// The seed documents' figure on one axis of a chart: a marker at (at, lo), or without `at` a
// rule at lo (lo == hi) or a band [lo, hi]; `label` drawn beside it ("" = none) and `tip` its
// tooltip.
struct SeedFigure {
  std::string axis{};  // "x" or "y"
  double lo = 0.0, hi = 0.0;
  std::optional<double> at{};
  std::string label{};
  std::string tip{};
};

// A chart (or one layer of a layered chart: then title and table are unused).
struct Chart {
  std::string title{};
  std::string table{};  // a table of the same study
  Mark mark = Mark::line;
  std::string mark_color{};            // "" = by encoding
  std::vector<std::string> filters{};  // Vega expressions on `datum`, each a filter transform
  std::vector<std::string> fold{};     // columns folded into rows (key, value) named fold_as
  std::vector<std::string> fold_as{};  // {key, value}; used when fold is not empty
  std::optional<Channel> x{}, x2{}, y{}, color{}, stroke_dash{}, column{}, row{};
  std::vector<Channel> tooltip{};
  std::vector<std::string> independent{};  // scales resolved independently ("x", "y")
  std::vector<Chart> layers{};             // a layered chart: the layers replace mark/encoding
  // Claims judged before the chart whose seed figure is drawn beside ours (RunBase::chart).
  std::vector<SeedClaim> seed_claims{};
};

// The Vega-Lite spec (without data) of `chart`. Keys in a fixed order: layer or mark,
// transform, encoding (x, x2, y, color, strokeDash, column, row, tooltip), resolve; in a
// channel field, type, format, title, scale, stack, sort, axis, legend.
Json vega_lite(const Chart& chart);

// `spec` (a chart's Vega-Lite, unfaceted) with the seed figures drawn over it: the spec becomes
// the first layer of a layered chart, each figure a dark-grey diamond, dashed rule or light
// band with its label in a text mark, in layers that reduce the data to one row (one mark each)
// and share the chart's scales (a figure outside the data widens the axis to show it).
Json with_seed_figures(Json spec, const std::vector<SeedFigure>& figures);

}  // namespace lightsim::studies
