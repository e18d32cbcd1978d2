#include "lightsim/report/render.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "scratch_dir.h"

namespace lightsim::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::filesystem::path kFixtures =
    std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "tests" / "data" / "report";

// Stand-ins for the chart libraries: the renderer only inlines them.
ChartLibraries fake_libraries() {
  return {"/*vega*/", "/*vega-lite*/", "/*vega-embed*/"};
}

StudyResult hostile() {
  StudyResult r;
  r.study = "hostile";
  r.title = "<script>alert(1)</script> & \"quotes\"";
  Claim& c = r.add_claim("c", "a < b", "");
  c.seed_value = SeedValue::point(1.0);
  c.ours = 1.0;
  c.verdict = Verdict::holds;
  Table& t = r.add_table("t", "T", {{"label", ""}});
  t.add_row({"</script><script>alert(2)</script>"});
  r.add_chart("Chart", "t",
              Json::parse(R"({"mark": "text", "encoding": {"text": {"field": "label"}}})"));
  return r;
}

TEST(Render, EscapesHtml) {
  EXPECT_EQ(html_escape("<a href='x'>\"&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/a&gt;");
  EXPECT_EQ(html_escape("plain"), "plain");
}

TEST(Render, ScriptJsonCannotCloseTheScriptElement) {
  const Json value = {{"s", "</script><!-- & -->"}};
  const std::string text = script_json(value);
  EXPECT_THAT(text, Not(HasSubstr("<")));
  EXPECT_THAT(text, Not(HasSubstr(">")));
  EXPECT_EQ(Json::parse(text), value);  // still the same JSON
}

TEST(Render, ResultTextNeverBecomesMarkup) {
  ResultSet set;
  set.studies.push_back(hostile());
  const std::string html = render_html(set, fake_libraries());
  EXPECT_THAT(html, Not(HasSubstr("<script>alert")));
  EXPECT_THAT(html, Not(HasSubstr("</script><script>alert(2)")));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"));
  EXPECT_THAT(html, HasSubstr("\\u003c/script\\u003e\\u003cscript\\u003ealert(2)"));
}

TEST(Render, InlinesLibrariesAndChartData) {
  ResultSet set;
  set.studies.push_back(hostile());
  const std::string html = render_html(set, fake_libraries());
  EXPECT_THAT(html, HasSubstr("/*vega*/"));
  EXPECT_THAT(html, HasSubstr("/*vega-lite*/"));
  EXPECT_THAT(html, HasSubstr("/*vega-embed*/"));
  EXPECT_THAT(html, HasSubstr("<div class=\"chart\" id=\"chart-hostile-0\">"));
  EXPECT_THAT(html, HasSubstr("\"tables\":{\"hostile/t\":{"));  // each table once, shared
  EXPECT_THAT(html, HasSubstr("\"table\":\"hostile/t\""));      // the chart names it
  EXPECT_THAT(html, Not(HasSubstr("src=\"http")));              // nothing fetched from the network
}

// The page carries numbers at 6 significant digits (integer values exactly) and leaves an
// uncharted table of more than 500 rows to its CSV file; a charted one of that size stays.
TEST(Render, PageNumbersAreSixDigitsAndLongUnchartedTablesAreLeftToTheirCsv) {
  StudyResult r;
  r.study = "s";
  r.title = "S";
  {
    Table& small = r.add_table("small", "Small", {{"x", ""}});
    small.add_row({0.123456789});
    small.add_row({1048576.0});
  }
  // One table at a time: add_table may move the tables added before.
  for (const char* name : {"lone", "drawn"}) {
    Table& t = r.add_table(name, name, {{"x", ""}});
    for (int i = 0; i < 501; ++i) t.add_row({static_cast<double>(i)});
  }
  r.add_chart("Chart", "drawn",
              Json::parse(R"({"mark": "point", "encoding": {"x": {"field": "x"}}})"));
  ResultSet set;
  set.studies.push_back(r);
  const std::string html = render_html(set, fake_libraries());
  EXPECT_THAT(html, HasSubstr("\"s/small\":{\"columns\":[{\"name\":\"x\",\"unit\":\"\"}],"
                              "\"rows\":[[0.123457],[1048576.0]]}"));
  EXPECT_THAT(html, HasSubstr("\"s/drawn\":{"));
  EXPECT_THAT(html, Not(HasSubstr("\"s/lone\"")));
  EXPECT_THAT(html, HasSubstr("501 rows, not carried by this page: the file s_lone.csv beside the "
                              "results holds them."));
}

TEST(Render, GoldenSetHasSummaryLinksChartsAndTables) {
  const ResultSet set = load_results(kFixtures);
  ASSERT_EQ(set.studies.size(), 3u);
  EXPECT_EQ(set.studies[0].study, "fixture_energy");  // by file name without run.json
  const std::string html = render_html(set, fake_libraries());
  std::size_t claims = 0, charts = 0;
  for (const StudyResult& r : set.studies) {
    EXPECT_THAT(html, HasSubstr("<section class=\"study\" id=\"study-" + r.study + "\">"));
    for (const Claim& c : r.claims) {
      EXPECT_THAT(html, HasSubstr("<a href=\"#claim-" + r.study + "-" + c.id + "\">"));
      EXPECT_THAT(html, HasSubstr("<tr id=\"claim-" + r.study + "-" + c.id + "\">"));
      ++claims;
    }
    for (std::size_t i = 0; i < r.charts.size(); ++i, ++charts)
      EXPECT_THAT(html, HasSubstr(fmt::format("id=\"chart-{}-{}\"", r.study, i)));
    for (const NamedTable& t : r.tables)
      EXPECT_THAT(html, HasSubstr("data-table=\"" + t.name + "\""));
  }
  EXPECT_EQ(claims, 5u);
  EXPECT_EQ(charts, 4u);
  EXPECT_THAT(html, HasSubstr("+46.5 %"));  // fixture_energy: (12000 - 8192) / 8192
  EXPECT_THAT(html, HasSubstr("verdict-holds-under-conditions"));
  EXPECT_EQ(html, render_html(load_results(kFixtures), fake_libraries()));  // same bytes
}

TEST(Render, SummaryBlockComesFirstWithTallyFindingsContentsAndSeedDefined) {
  const std::string html = render_html(load_results(kFixtures), fake_libraries());
  const std::size_t body = html.find("<body>");
  const std::size_t summary = html.find("<section id=\"summary\"");
  const std::size_t contents = html.find("<nav id=\"contents\">");
  const std::size_t claims = html.find("<section id=\"claims\">");
  const std::size_t first_study = html.find("<section class=\"study\"");
  ASSERT_NE(summary, std::string::npos);
  EXPECT_EQ(html.substr(body, summary - body), "<body>\n<h1>lightsim report</h1>\n");
  EXPECT_LT(summary, contents);
  EXPECT_LT(contents, claims);
  EXPECT_LT(claims, first_study);
  // Tally: fixtures hold 2 holds, 1 under conditions, 1 does not hold, 1 not comparable, none
  // that depends on the workload; one header cell per verdict.
  EXPECT_THAT(html, HasSubstr("<tfoot><tr><th>all studies</th><th class=\"num\">2</th><th "
                              "class=\"num\">1</th><th class=\"num\">1</th><th "
                              "class=\"num\">1</th><th class=\"num\">0</th><th "
                              "class=\"num\">5</th></tr></tfoot>"));
  EXPECT_THAT(html, HasSubstr("<th>not comparable</th><th>depends on the workload</th>"
                              "<th>claims</th></tr></thead>"));
  EXPECT_THAT(html, HasSubstr("<li>Of 5 claims from the seed documents, 2 hold as stated, 1 "
                              "holds only under stated conditions, 1 does not hold and 1 cannot "
                              "be judged"));
  EXPECT_THAT(html, HasSubstr("Largest deviation in fixture_energy:"));
  EXPECT_THAT(html,
              HasSubstr("the seed documents give 8192 tokens, we get 12000 tokens (+46.5 %)"));
  EXPECT_THAT(html, HasSubstr("<b>random seed</b>"));
  EXPECT_THAT(html, HasSubstr("· random seed 1"));
  EXPECT_THAT(html, Not(HasSubstr("· seed ")));
  EXPECT_THAT(html, Not(HasSubstr("<th>Seed</th>")));  // the column is "Seed figure"
}

TEST(Render, ClaimsAreGroupedByStudyWithFourSignificantDigits) {
  ResultSet set = load_results(kFixtures);
  set.studies[0].claims[0].ours = 0.45214843750001;
  set.studies[0].claims[0].seed_value = SeedValue::point(1048576.0);
  const std::string html = render_html(set, fake_libraries());
  const std::size_t start = html.find("<section id=\"claims\">");
  const std::string claims = html.substr(start, html.find("</section>", start) - start);
  for (const StudyResult& r : set.studies) {
    const std::string title = "\">" + r.title + "</a></th></tr>";
    EXPECT_EQ(claims.find(title), claims.rfind(title)) << r.title;  // once per group
    EXPECT_NE(claims.find(title), std::string::npos) << r.title;
  }
  EXPECT_THAT(claims, HasSubstr(">0.4521 tokens<"));
  EXPECT_THAT(claims, HasSubstr(">1048576 tokens<"));
  EXPECT_THAT(html, Not(HasSubstr("0.452148")));
}

TEST(Render, SampledFiguresShowTheirIntervalAndTheWorkloadVerdictItsColour) {
  ResultSet set;
  set.studies.push_back(hostile());
  Claim& c = set.studies[0].claims[0];
  c.ours = 0.4521;
  c.ours_ci95 = 0.0153;
  c.verdict = Verdict::depends_on_workload;
  c.explanation = "holds on one profile, not on the other";
  const std::string html = render_html(set, fake_libraries());
  EXPECT_THAT(html, HasSubstr(">0.4521 ± 0.0153<"));
  EXPECT_THAT(html, HasSubstr("class=\"verdict verdict-depends-on-the-workload\">depends on the "
                              "workload<"));
  EXPECT_THAT(html, HasSubstr(".verdict-depends-on-the-workload {"));
}

// A study whose chart plots `y` over a table with the given y values and `series` labels.
StudyResult scaled(std::vector<double> ys, std::size_t series) {
  StudyResult r;
  r.study = "scaled";
  r.title = "Scaled";
  Table& t = r.add_table("t", "T", {{"x", ""}, {"y", "ms"}, {"series", ""}});
  for (std::size_t i = 0; i < ys.size(); ++i)
    t.add_row({static_cast<double>(i), ys[i], fmt::format("s{}", i % series)});
  r.add_chart("Chart", "t", Json::parse(R"({"mark": "line", "encoding": {
      "x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"},
      "color": {"field": "series", "type": "nominal"}}})"));
  return r;
}

TEST(Render, ResidualNegativesDoNotPullTheAxisBelowZero) {
  ResultSet set;
  set.studies.push_back(scaled({-5e-13, 3.0, 10.0}, 2));
  const std::string html = render_html(set, fake_libraries());
  EXPECT_THAT(html, HasSubstr("\"scale\":{\"domainMin\":-5e-13,\"nice\":false}"));
  set.studies[0] = scaled({-3.0, 3.0, 10.0}, 2);  // a real negative value keeps Vega's axis
  EXPECT_THAT(render_html(set, fake_libraries()), Not(HasSubstr("domainMin")));
}

TEST(Render, MoreThanTenSeriesGetTwentyColours) {
  ResultSet set;
  set.studies.push_back(scaled(std::vector<double>(12, 1.0), 10));
  EXPECT_THAT(render_html(set, fake_libraries()), Not(HasSubstr("tableau20")));
  set.studies[0] = scaled(std::vector<double>(12, 1.0), 12);
  EXPECT_THAT(render_html(set, fake_libraries()), HasSubstr("\"scheme\":\"tableau20\""));
}

TEST(Render, DashLegendsDrawTheirDashPattern) {
  ResultSet set;
  set.studies.push_back(scaled({1.0, 2.0}, 2));
  set.studies[0].charts[0].vega_lite["encoding"]["strokeDash"] = {{"field", "series"},
                                                                  {"type", "nominal"}};
  const std::string html = render_html(set, fake_libraries());
  EXPECT_THAT(html, HasSubstr("\"strokeDash\":{\"field\":\"series\",\"type\":\"nominal\","
                              "\"legend\":{\"symbolType\":\"stroke\""));
}

TEST(Render, AxesGetUnitsUnlessTheSpecTitlesThem) {
  ResultSet set;
  set.studies.push_back(load_results(kFixtures).studies[0]);  // fixture_energy
  const std::string html = render_html(set, fake_libraries());
  EXPECT_THAT(html, HasSubstr("\"title\":\"energy_uj [uJ]\""));
  EXPECT_THAT(html, HasSubstr("\"title\":\"context_tokens [tokens]\""));
  set.studies[0].charts[0].vega_lite["encoding"]["y"]["title"] = "mine";
  const std::string titled = render_html(set, fake_libraries());
  EXPECT_THAT(titled, HasSubstr("\"title\":\"mine\""));
}

TEST(Render, SaysWhichStudiesOfTheRunHaveNoResult) {
  ResultSet set;
  set.run = Json{{"kind", "reproduce"}, {"studies", {"energy", "needle"}}};
  const std::string html = render_html(set, fake_libraries());
  EXPECT_THAT(html, HasSubstr("No result file for: energy, needle (listed in run.json)."));
}

TEST(Render, EmptyRunSaysNoStudyIsRegistered) {
  ResultSet set;
  set.run =
      Json{{"kind", "reproduce"}, {"lightsim_version", "0.1.0"}, {"seed", 1},
           {"size", "default"},   {"studies", Json::array()},    {"config", "kind: reproduce\n"}};
  const std::string html = render_html(set, fake_libraries());
  EXPECT_THAT(html, HasSubstr("No study ran: no study is registered"));
  EXPECT_THAT(html, HasSubstr("var lightsimData = {\"tables\":{},\"charts\":[]};"));
}

TEST(Render, RunOrderComesFromRunJson) {
  const auto dir = lightsim::testing::scratch_dir();
  for (const char* name : {"fixture_energy.json", "fixture_prefill.json", "fixture_recall.json"})
    std::filesystem::copy_file(kFixtures / name, dir / name);
  write_json_file(dir / "run.json",
                  Json{{"kind", "reproduce"}, {"studies", {"fixture_recall", "fixture_energy"}}});
  const ResultSet set = load_results(dir);
  ASSERT_EQ(set.studies.size(), 3u);
  EXPECT_EQ(set.studies[0].study, "fixture_recall");
  EXPECT_EQ(set.studies[1].study, "fixture_energy");
  EXPECT_EQ(set.studies[2].study, "fixture_prefill");
}

TEST(Render, BadResultFileNamesFileAndKey) {
  const auto dir = lightsim::testing::scratch_dir();
  std::filesystem::copy_file(kFixtures / "fixture_prefill.json", dir / "fixture_prefill.json");
  Json doc = read_json_file(dir / "fixture_prefill.json");
  doc["charts"][0]["table"] = "nope";
  write_json_file(dir / "fixture_prefill.json", doc);
  try {
    load_results(dir);
    FAIL() << "no error";
  } catch (const DataFormatError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("fixture_prefill.json: charts[0].table: no table named 'nope'"));
  }
  write_json_file(dir / "run.json", Json{{"kind", "other"}});
  EXPECT_THROW(load_results(dir), DataFormatError);
}

TEST(Render, MissingFolderIsAnInputError) {
  EXPECT_THROW(load_results(lightsim::testing::scratch_dir() / "absent"), InputError);
}

TEST(Render, MissingLibraryIsAnIoErrorNamingIt) {
  const auto dir = lightsim::testing::scratch_dir();
  lightsim::testing::write_bytes(dir / "vega.min.js", "var vega = {};");
  lightsim::testing::write_bytes(dir / "vega-lite.min.js", "var vegaLite = {};");
  try {
    load_chart_libraries(dir);
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_THAT(e.what(), HasSubstr((dir / "vega-embed.min.js").string()));
    EXPECT_THAT(e.what(), HasSubstr("third_party/vega/"));
  }
  lightsim::testing::write_bytes(dir / "vega-embed.min.js", "x = '</script>';");
  EXPECT_THROW(load_chart_libraries(dir), IoError);
}

TEST(Render, VendoredLibrariesLoad) {
  const ChartLibraries libs = load_chart_libraries(default_library_dir());
  EXPECT_GT(libs.vega.size(), 100000u);
  EXPECT_GT(libs.vega_lite.size(), 100000u);
  EXPECT_GT(libs.vega_embed.size(), 10000u);
}

TEST(Render, WriteReportWritesOneFile) {
  const auto dir = lightsim::testing::scratch_dir();
  const ReportSummary s = write_report(kFixtures, dir / "report.html");
  EXPECT_EQ(s.studies, 3u);
  EXPECT_EQ(s.claims, 5u);
  EXPECT_EQ(s.charts, 4u);
  EXPECT_THAT(lightsim::testing::list_dir(dir), ::testing::ElementsAre("report.html"));
}

// SIGINT/SIGTERM (main's flag) stops reading and rendering; write_report then writes nothing.
TEST(Report, StopFlagEndsReadingAndRenderingWithoutAFile) {
  std::atomic<bool> stop{true};
  EXPECT_THROW((void)load_results(kFixtures, &stop), Interrupted);
  const ResultSet set = load_results(kFixtures);
  EXPECT_THROW((void)render_html(set, fake_libraries(), &stop), Interrupted);
  const auto file = testing::scratch_dir() / "report.html";
  EXPECT_THROW((void)write_report(kFixtures, file, default_library_dir(), &stop), Interrupted);
  EXPECT_FALSE(std::filesystem::exists(file));
  stop = false;
  EXPECT_EQ(render_html(set, fake_libraries(), &stop), render_html(set, fake_libraries()));
}

}  // namespace
}  // namespace lightsim::report
