// report.html: summary of claims, then one section per study (render.h).
#include "lightsim/report/render.h"

#include <iterator>

#include "lightsim/core/error.h"
#include "report/page_parts.h"

namespace lightsim::report {
namespace {

// Builds the page; every piece of text from a result passes through add_text (escaped).
class Page {
 public:
  template <typename... Args>
  void raw(fmt::format_string<Args...> format, Args&&... args) {
    fmt::format_to(std::back_inserter(html_), format, std::forward<Args>(args)...);
  }
  void text(std::string_view plain) { html_ += html_escape(plain); }
  void markup(std::string_view fixed) { html_ += fixed; }
  std::string& html() { return html_; }

 private:
  std::string html_;
};

std::string with_unit(const std::string& value, const std::string& unit) {
  return unit.empty() ? value : value + " " + unit;
}

std::string seed_text(const Claim& c) {
  switch (c.seed_value.kind) {
    case SeedValue::Kind::none:
      return "—";
    case SeedValue::Kind::point:
      return with_unit(fmt::format("{:.6g}", c.seed_value.lo), c.unit);
    case SeedValue::Kind::range:
      return with_unit(fmt::format("{:.6g} – {:.6g}", c.seed_value.lo, c.seed_value.hi), c.unit);
  }
  return "";
}

std::string ours_text(const Claim& c) {
  return c.ours ? with_unit(fmt::format("{:.6g}", *c.ours), c.unit) : "—";
}

std::string deviation_text(const Claim& c) {
  const std::optional<double> d = deviation(c.seed_value, c.ours);
  return d ? fmt::format("{:+.1f} %", *d * 100.0) : "—";
}

std::string verdict_class(Verdict v) {
  std::string slug(to_string(v));
  for (char& ch : slug)
    if (ch == ' ') ch = '-';
  return "verdict verdict-" + slug;
}

std::string cell_text(const Cell& cell) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, double>) return fmt::format("{:.6g}", v);
        if constexpr (std::is_same_v<T, std::string>) return v;
        if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
        if constexpr (std::is_same_v<T, std::int64_t>) return fmt::format("{}", v);
      },
      cell);
}

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

void summary(Page& p, const ResultSet& results) {
  p.raw("<h2 id=\"summary\">Claims</h2>\n");
  std::size_t claims = 0;
  for (const StudyResult& r : results.studies) claims += r.claims.size();
  if (claims == 0) {
    p.raw("<p class=\"muted\">No claims in these results.</p>\n");
    return;
  }
  p.raw(
      "<table class=\"summary\"><thead><tr><th>Study</th><th>Claim</th><th>Seed</th>"
      "<th>Ours</th><th>Deviation</th><th>Verdict</th></tr></thead><tbody>\n");
  for (const StudyResult& r : results.studies) {
    for (const Claim& c : r.claims) {
      p.raw("<tr><td><a href=\"#study-{}\">", r.study);
      p.text(r.title);
      p.raw("</a></td><td><a href=\"#claim-{}-{}\">", r.study, c.id);
      p.text(c.claim);
      p.raw("</a></td>");
      claim_cells(p, c);
      p.raw("</tr>\n");
    }
  }
  p.raw("</tbody></table>\n");
}

void table_html(Page& p, const NamedTable& t) {
  const bool long_table = t.table.row_count() > 40;
  p.markup(long_table ? "<details><summary>" : "<h4>");
  p.text(t.title);
  if (long_table) {
    p.raw(" ({} rows)</summary>\n", t.table.row_count());
  } else {
    p.markup("</h4>\n");
  }
  p.raw("<table class=\"data\" data-table=\"{}\"><thead><tr>", t.name);
  for (const Column& col : t.table.columns()) {
    p.raw("<th>");
    p.text(col.unit.empty() ? col.name : col.name + " [" + col.unit + "]");
    p.raw("</th>");
  }
  p.raw("</tr></thead><tbody>\n");
  for (const auto& row : t.table.rows()) {
    p.raw("<tr>");
    for (const Cell& cell : row) {
      p.markup(std::holds_alternative<std::string>(cell) ? "<td>" : "<td class=\"num\">");
      p.text(cell_text(cell));
      p.raw("</td>");
    }
    p.raw("</tr>\n");
  }
  p.raw("</tbody></table>\n{}", long_table ? "</details>\n" : "");
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
  p.raw(" · seed {}</p>\n", r.seed);
  if (!r.claims.empty()) {
    p.raw(
        "<table class=\"claims\"><thead><tr><th>Claim</th><th>Seed</th><th>Ours</th>"
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
  for (const NamedTable& t : r.tables) table_html(p, t);
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
    if (run.contains("seed")) p.raw(" · seed {}", html_escape(run["seed"].dump()));
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

Json chart_list(const ResultSet& results) {
  Json charts = Json::array();
  for (const StudyResult& r : results.studies) {
    for (std::size_t i = 0; i < r.charts.size(); ++i) {
      const Chart& chart = r.charts[i];
      const NamedTable* table = nullptr;
      for (const NamedTable& t : r.tables)
        if (t.name == chart.table) table = &t;
      LIGHTSIM_CHECK(table != nullptr, "chart '{}' names no table (unvalidated result)",
                     chart.title);
      Json values = Json::array();
      for (const auto& row : table->table.rows()) {
        Json object = Json::object();
        for (std::size_t c = 0; c < row.size(); ++c)
          std::visit([&](const auto& v) { object[table->table.columns()[c].name] = v; }, row[c]);
        values.push_back(std::move(object));
      }
      Json spec = chart.vega_lite;
      title_with_units(spec, table->table);
      spec["data"] = {{"values", std::move(values)}};
      charts.push_back({{"id", chart_id(r, i)}, {"title", chart.title}, {"spec", std::move(spec)}});
    }
  }
  return charts;
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
  const std::string text = dump_json(value);
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

std::string render_html(const ResultSet& results, const ChartLibraries& libraries) {
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
  run_section(p, results);
  p.raw(
      "<p id=\"report-status\" class=\"muted\">charts not rendered yet (scripts disabled?)</p>\n"
      "<ul id=\"report-errors\" hidden></ul>\n");
  summary(p, results);
  for (const StudyResult& r : results.studies) study_section(p, r);
  p.raw("<script>\nvar lightsimCharts = {};\n{}</script>\n</body>\n</html>\n",
        script_json(chart_list(results)), page::kCharts);
  return std::move(p.html());
}

}  // namespace lightsim::report
