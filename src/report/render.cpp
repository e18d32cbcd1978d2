// report.html: summary of claims, then one section per study (render.h).
#include "lightsim/report/render.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <type_traits>

#include "lightsim/core/error.h"
#include "report/chart_scales.h"
#include "report/page.h"
#include "report/page_parts.h"
#include "report/summary.h"

namespace lightsim::report {
namespace {

std::string chart_id(const StudyResult& r, std::size_t index) {
  return fmt::format("chart-{}-{}", r.study, index);
}

void claim_cells(Page& p, const Claim& c) {
  p.raw("<td class=\"num\">");
  p.text(seed_text(c));
  p.raw("</td><td class=\"num\">");
  p.text(ours_text(c));
  p.raw("</td><td class=\"num\">");
  p.text(deviation_text(c));
  p.raw("</td><td class=\"{}\">", verdict_class(c.verdict));
  p.text(to_string(c.verdict));
  p.raw("</td>");
}

std::string table_key(const StudyResult& r, const NamedTable& t) {
  return r.study + "/" + t.name;
}

// Uncharted tables of more rows than this are not carried by the page: their CSV file beside
// the results holds them (the default-size page stays under 1.5 MB, issue 22; the serving
// study's per-run context table alone was 190 KB).
constexpr std::size_t kMaxEmbeddedRows = 500;

bool charted(const StudyResult& r, const NamedTable& t) {
  return std::any_of(r.charts.begin(), r.charts.end(),
                     [&](const Chart& c) { return c.table == t.name; });
}

bool embedded(const StudyResult& r, const NamedTable& t) {
  return t.table.row_count() <= kMaxEmbeddedRows || charted(r, t);
}

// A number as the page carries it: 6 significant digits (the result's JSON and CSV files keep
// every digit). Integer values below 2^53 stay exact: chart filters compare them.
Json page_number(double v) {
  if (!std::isfinite(v) || (std::trunc(v) == v && std::fabs(v) < 9007199254740992.0)) return v;
  return std::strtod(fmt::format("{:.6g}", v).c_str(), nullptr);
}

// A table's heading and an empty <table> the page script fills from the shared data
// (lightsimData.tables[key]), so a table charted several times is stored once; a table not
// embedded (above) names its CSV file instead.
void table_html(Page& p, const StudyResult& r, const NamedTable& t) {
  if (!embedded(r, t)) {
    p.markup("<h4>");
    p.text(t.title);
    p.raw(
        "</h4>\n<p class=\"meta\">{} rows, not carried by this page: the file {}_{}.csv beside "
        "the results holds them.</p>\n",
        t.table.row_count(), r.study, t.name);
    return;
  }
  const bool long_table = t.table.row_count() > 40;
  p.markup(long_table ? "<details><summary>" : "<h4>");
  p.text(t.title);
  if (long_table) {
    p.raw(" ({} rows)</summary>\n", t.table.row_count());
  } else {
    p.markup("</h4>\n");
  }
  p.raw("<table class=\"data\" data-table=\"{}\" data-source=\"{}\"></table>\n{}", t.name,
        table_key(r, t), long_table ? "</details>\n" : "");
}

void study_section(Page& p, const StudyResult& r) {
  p.raw("<section class=\"study\" id=\"study-{}\">\n<h2>", r.study);
  p.text(r.title);
  p.raw("</h2>\n<p class=\"meta\">study <code>{}</code>", r.study);
  if (!r.spec_section.empty()) {
    p.raw(" · claims from ");
    p.text(r.spec_section);
  }
  p.raw(" · lightsim ");
  p.text(r.lightsim_version);
  p.raw(" · random seed {}</p>\n", r.seed);
  if (!r.claims.empty()) {
    p.raw(
        "<table class=\"claims\"><thead><tr><th>Claim</th><th>Seed figure</th><th>Ours</th>"
        "<th>Deviation</th><th>Verdict</th><th>Conditions</th><th>Explanation</th></tr>"
        "</thead><tbody>\n");
    for (const Claim& c : r.claims) {
      p.raw("<tr id=\"claim-{}-{}\"><td>", r.study, c.id);
      p.text(c.claim);
      p.raw("</td>");
      claim_cells(p, c);
      p.raw("<td>");
      p.text(c.conditions);
      p.raw("</td><td>");
      p.text(c.explanation);
      p.raw("</td></tr>\n");
    }
    p.raw("</tbody></table>\n");
  }
  for (std::size_t i = 0; i < r.charts.size(); ++i) {
    p.raw("<figure><figcaption>");
    p.text(r.charts[i].title);
    p.raw("</figcaption><div class=\"chart\" id=\"{}\"></div></figure>\n", chart_id(r, i));
  }
  for (const NamedTable& t : r.tables) table_html(p, r, t);
  if (!r.shadowed_presets.empty()) {
    p.raw(
        "<p class=\"shadowed\">Presets read from --config-path instead of the shipped "
        "ones:</p>\n<ul class=\"shadowed\">\n");
    for (const ShadowedPreset& sp : r.shadowed_presets) {
      p.raw("<li><code>");
      p.text(sp.name);
      p.raw("</code> (");
      p.text(sp.kind);
      p.raw("): read <code>");
      p.text(sp.used);
      p.raw("</code>, not <code>");
      p.text(sp.shadowed);
      p.raw("</code></li>\n");
    }
    p.raw("</ul>\n");
  }
  p.raw("<details><summary>Configuration</summary><pre>");
  p.text(r.config.empty() ? "(empty)" : r.config);
  p.raw("</pre></details>\n</section>\n");
}

void run_section(Page& p, const ResultSet& results) {
  if (results.run) {
    const Json& run = *results.run;
    p.raw("<p class=\"meta\">Produced by <code>lightsim reproduce</code>");
    if (run.contains("lightsim_version") && run["lightsim_version"].is_string()) {
      p.raw(" · lightsim ");
      p.text(run["lightsim_version"].get<std::string>());
    }
    if (run.contains("seed")) p.raw(" · random seed {}", html_escape(run["seed"].dump()));
    if (run.contains("size") && run["size"].is_string()) {
      p.raw(" · size ");
      p.text(run["size"].get<std::string>());
    }
    p.raw("</p>\n");
    if (run.contains("config") && run["config"].is_string()) {
      p.raw("<details><summary>Job configuration</summary><pre>");
      p.text(run["config"].get<std::string>());
      p.raw("</pre></details>\n");
    }
  }
  if (results.run && (*results.run).contains("studies")) {
    std::vector<std::string> missing;
    for (const Json& name : (*results.run)["studies"]) {
      if (!name.is_string()) continue;
      bool found = false;
      for (const StudyResult& r : results.studies)
        found = found || r.study == name.get<std::string>();
      if (!found) missing.push_back(name.get<std::string>());
    }
    if (!missing.empty()) {
      p.raw("<p class=\"empty\">No result file for: ");
      p.text(fmt::format("{}", fmt::join(missing, ", ")));
      p.raw(" (listed in run.json).</p>\n");
    }
  }
  if (results.studies.empty()) {
    const bool none_ran =
        results.run && results.run->contains("studies") && (*results.run)["studies"].empty();
    p.raw("<p class=\"empty\">{}</p>\n",
          none_ran ? "No study ran: no study is registered in this build of lightsim yet, so "
                     "this report has no claims, tables or charts."
                   : "No study result files (*.json) were found in the results folder.");
  }
}

// Gives every encoding channel over a column with a unit, and without a title of its own, the
// title "column [unit]" (also inside layers), so axes and legends carry units.
void title_with_units(Json& spec, const Table& table) {
  if (spec.contains("encoding") && spec["encoding"].is_object()) {
    for (auto& [channel, def] : spec["encoding"].items()) {
      if (!def.is_object() || def.contains("title") || !def.contains("field") ||
          !def["field"].is_string())
        continue;
      for (const Column& col : table.columns())
        if (col.name == def["field"].get<std::string>() && !col.unit.empty())
          def["title"] = fmt::format("{} [{}]", col.name, col.unit);
    }
  }
  if (spec.contains("layer") && spec["layer"].is_array())
    for (Json& layer : spec["layer"]) title_with_units(layer, table);
}

// Every table once, by key "study/table": {"columns": [{name, unit}], "rows": [[...]]}, and
// every chart as {id, title, table (key), spec (without data)}; the page script builds each
// chart's data.values from its table.
// Rows between two polls of the stop flag.
constexpr std::size_t kStopPollRows = 4096;

Json page_data(const ResultSet& results, StopFlag stop) {
  Json tables = Json::object();
  Json charts = Json::array();
  for (const StudyResult& r : results.studies) {
    for (const NamedTable& t : r.tables) {
      if (!embedded(r, t)) continue;
      Json columns = Json::array();
      for (const Column& col : t.table.columns())
        columns.push_back({{"name", col.name}, {"unit", col.unit}});
      Json rows = Json::array();
      for (const auto& row : t.table.rows()) {
        if (rows.size() % kStopPollRows == 0) throw_if_stopped(stop);
        Json cells = Json::array();
        for (const Cell& cell : row)
          std::visit(
              [&](const auto& v) {
                if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) {
                  cells.push_back(page_number(v));
                } else {
                  cells.push_back(v);
                }
              },
              cell);
        rows.push_back(std::move(cells));
      }
      tables[table_key(r, t)] = {{"columns", std::move(columns)}, {"rows", std::move(rows)}};
    }
    for (std::size_t i = 0; i < r.charts.size(); ++i) {
      const Chart& chart = r.charts[i];
      const NamedTable* table = nullptr;
      for (const NamedTable& t : r.tables)
        if (t.name == chart.table) table = &t;
      LIGHTSIM_CHECK(table != nullptr, "chart '{}' names no table (unvalidated result)",
                     chart.title);
      Json spec = chart.vega_lite;
      title_with_units(spec, table->table);
      fit_scales(spec, table->table);
      charts.push_back({{"id", chart_id(r, i)},
                        {"title", chart.title},
                        {"table", table_key(r, *table)},
                        {"spec", std::move(spec)}});
    }
  }
  return {{"tables", std::move(tables)}, {"charts", std::move(charts)}};
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string script_json(const Json& value) {
  const std::string text = value.dump();  // compact: the page carries every table once
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_html(const ResultSet& results, const ChartLibraries& libraries, StopFlag stop) {
  Page p;
  p.raw(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>lightsim report</title>\n<style>{}</style>\n",
      page::kStyle);
  p.raw("<script>{}</script>\n", page::kRecorder);
  p.raw("<script>\n{}\n</script>\n<script>\n{}\n</script>\n<script>\n{}\n</script>\n",
        libraries.vega, libraries.vega_lite, libraries.vega_embed);
  p.raw("</head>\n<body>\n<h1>lightsim report</h1>\n");
  summary_block(p, results);
  table_of_contents(p, results);
  run_section(p, results);
  p.raw(
      "<p id=\"report-status\" class=\"muted\">charts and tables not rendered yet (scripts "
      "disabled? every table is also a CSV file beside the results)</p>\n"
      "<ul id=\"report-errors\" hidden></ul>\n");
  claims_by_study(p, results);
  for (const StudyResult& r : results.studies) {
    throw_if_stopped(stop);
    study_section(p, r);
  }
  p.raw("<script>\nvar lightsimData = {};\n{}</script>\n</body>\n</html>\n",
        script_json(page_data(results, stop)), page::kCharts);
  return std::move(p.html());
}

}  // namespace lightsim::report
