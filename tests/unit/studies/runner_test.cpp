// The study runner (runner.h): the one judge, tables by column name, the chart builder, the
// header and the references read without the study's --set assignments, the parallel map.
#include "lightsim/studies/runner.h"

#include <cmath>
#include <fstream>
#include <tuple>

#include <gtest/gtest.h>

#include "lightsim/core/json.h"
#include "lightsim/studies/rejudge.h"
#include "lightsim/studies/sampled.h"
#include "scratch_dir.h"

namespace lightsim::studies {
namespace {

using report::SeedValue;
using report::Verdict;

TEST(Judge, RelativeAndAbsoluteBands) {
  EXPECT_EQ(judge(SeedValue::point(10), 10.9, Comparison::relative, 0.1), Verdict::holds);
  EXPECT_EQ(judge(SeedValue::point(10), 11.2, Comparison::relative, 0.1), Verdict::does_not_hold);
  EXPECT_EQ(judge(SeedValue::point(-10), -10.9, Comparison::relative, 0.1), Verdict::holds);
  EXPECT_EQ(judge(SeedValue::point(0.85), 0.81, Comparison::absolute, 0.05), Verdict::holds);
  EXPECT_EQ(judge(SeedValue::point(0.85), 0.79, Comparison::absolute, 0.05),
            Verdict::does_not_hold);
}

TEST(Judge, BoundsDirectionsAndOrders) {
  EXPECT_EQ(judge(SeedValue::point(1), 0.5, Comparison::at_most, 0), Verdict::holds);
  EXPECT_EQ(judge(SeedValue::point(1), 1.5, Comparison::at_most, 0), Verdict::does_not_hold);
  EXPECT_EQ(judge(SeedValue::point(0.1), 0.2, Comparison::at_least, 0), Verdict::holds);
  EXPECT_EQ(judge(SeedValue::point(0.1), 0.05, Comparison::at_least, 0), Verdict::does_not_hold);
  EXPECT_EQ(judge(SeedValue::point(-28), -1, Comparison::same_sign, 0), Verdict::holds);
  EXPECT_EQ(judge(SeedValue::point(-28), 3, Comparison::same_sign, 0), Verdict::does_not_hold);
  EXPECT_EQ(judge(SeedValue::point(5), 12, Comparison::same_order, 0.5), Verdict::holds);
  EXPECT_EQ(judge(SeedValue::point(5), 20, Comparison::same_order, 0.5), Verdict::does_not_hold);
}

TEST(Judge, RangesAndMissingFigures) {
  const SeedValue seed = SeedValue::range(2, 4);
  EXPECT_EQ(judge(seed, 2.5, 3.5, Comparison::relative, 0.1), Verdict::holds);
  EXPECT_EQ(judge(seed, 3.5, 6.0, Comparison::relative, 0.1), Verdict::holds_under_conditions);
  EXPECT_EQ(judge(seed, 1.0, 9.0, Comparison::relative, 0.1), Verdict::holds_under_conditions);
  EXPECT_EQ(judge(seed, 5.0, 6.0, Comparison::relative, 0.1), Verdict::does_not_hold);
  EXPECT_EQ(judge(SeedValue::point(1), std::nullopt, Comparison::relative, 0.1),
            Verdict::not_comparable);
  EXPECT_EQ(judge(SeedValue::none(), 1.0, Comparison::relative, 0.1), Verdict::not_comparable);
  EXPECT_THROW((void)judge(seed, 1.0, Comparison::relative, -0.1), InternalError);
}

TEST(AcrossWorkloads, AVerdictThatFlipsBetweenProfilesDependsOnTheWorkload) {
  // Hand-made verdicts of one claim on two profiles.
  EXPECT_EQ(across_workloads({Verdict::holds, Verdict::does_not_hold}),
            Verdict::depends_on_workload);
  EXPECT_EQ(across_workloads({Verdict::does_not_hold, Verdict::not_comparable}),
            Verdict::depends_on_workload);
  EXPECT_EQ(across_workloads({Verdict::does_not_hold, Verdict::does_not_hold}),
            Verdict::does_not_hold);
  EXPECT_EQ(across_workloads({Verdict::holds}), Verdict::holds);
  // Holding as stated on one profile and under conditions on another still holds.
  EXPECT_EQ(across_workloads({Verdict::holds, Verdict::holds_under_conditions}),
            Verdict::holds_under_conditions);
  EXPECT_EQ(report::to_string(Verdict::depends_on_workload), "depends on the workload");
  EXPECT_THROW((void)across_workloads({}), InternalError);
}

TEST(Sampled, IntervalsOfMeansAndRelativeChanges) {
  // Samples {0, 1, 1, 0}: mean 0.5, E[x^2] 0.5, s^2 = 1/3: 1.96 sqrt(1/12).
  EXPECT_NEAR(ci95_from_moments(0.5, 0.5, 4), 1.96 * std::sqrt(1.0 / 12.0), 1e-12);
  EXPECT_EQ(ci95_from_moments(0.5, 0.5, 1), 0.0);
  const Sampled drop = relative_drop({0.8, 0.02}, {0.6, 0.03});
  EXPECT_DOUBLE_EQ(drop.value, (0.8 - 0.6) / 0.8);
  EXPECT_NEAR(drop.ci95, std::sqrt(0.03 * 0.03 + 0.75 * 0.75 * 0.02 * 0.02) / 0.8, 1e-12);
  const Sampled gain = relative_gain({0.05, 0.01}, {0.1, 0.01});
  EXPECT_DOUBLE_EQ(gain.value, (0.1 - 0.05) / 0.05);
  EXPECT_NEAR(gain.ci95, std::sqrt(0.01 * 0.01 + 4.0 * 0.01 * 0.01) / 0.05, 1e-12);
}

TEST(TableByName, RowsAreFilledByColumnName) {
  report::StudyResult r;
  r.study = "t";
  r.add_table("grid", "a grid", {{"gpu", ""}, {"batch", ""}, {"ms", "ms"}});
  r.add_row("grid", {{"ms", 1.5}, {"gpu", std::string("a100")}, {"batch", std::int64_t{4}}});
  ASSERT_EQ(r.tables[0].table.row_count(), 1u);
  const auto& row = r.tables[0].table.rows()[0];
  EXPECT_EQ(std::get<std::string>(row[0]), "a100");
  EXPECT_EQ(std::get<std::int64_t>(row[1]), 4);
  EXPECT_EQ(std::get<double>(row[2]), 1.5);
}

TEST(TableByName, UnknownMissingOrRepeatedColumnsAreInternalErrors) {
  report::StudyResult r;
  r.study = "t";
  r.add_table("grid", "a grid", {{"gpu", ""}, {"batch", ""}});
  EXPECT_THROW(r.add_row("nope", {{"gpu", std::string("x")}, {"batch", 1.0}}), InternalError);
  EXPECT_THROW(r.add_row("grid", {{"gpu", std::string("x")}}), InternalError);
  EXPECT_THROW(r.add_row("grid", {{"gpu", std::string("x")}, {"batch", 1.0}, {"ms", 2.0}}),
               InternalError);
  EXPECT_THROW(r.add_row("grid", {{"gpu", std::string("x")}, {"gpu", std::string("y")}}),
               InternalError);
  EXPECT_EQ(r.tables[0].table.row_count(), 0u);
}

TEST(ChartBuilder, LineChartFromADeclaration) {
  Chart c{.title = "t", .table = "grid", .mark = Mark::line_points, .filters = {"datum.k == 8"}};
  c.fold = {"a", "b"};
  c.fold_as = {"truth", "y"};
  c.x = Channel{.field = "batch", .type = "quantitative", .scale = {.type = "log", .base = 2}};
  c.y = Channel{.field = "y", .type = "quantitative", .title = "ratio"};
  c.color = Channel{.field = "truth", .type = "nominal", .no_legend = true};
  c.tooltip = {tip("batch", ".3f")};
  EXPECT_EQ(vega_lite(c).dump(),
            R"({"mark":{"type":"line","point":true},"transform":[{"filter":"datum.k == 8"},)"
            R"({"fold":["a","b"],"as":["truth","y"]}],"encoding":{"x":{"field":"batch",)"
            R"("type":"quantitative","scale":{"type":"log","base":2}},"y":{"field":"y",)"
            R"("type":"quantitative","title":"ratio"},"color":{"field":"truth","type":"nominal",)"
            R"("legend":null},"tooltip":[{"field":"batch","format":".3f"}]}})");
  EXPECT_EQ(vega_lite(Chart{.mark = Mark::bar}).dump(), R"({"mark":"bar"})");
}

// A study whose spec and reference share the key `value`.
struct EchoSpec {
  static constexpr std::string_view kind = "echo_study";
  double value = 0;
  double tolerance = 0.1;
  static void describe(config::Schema<EchoSpec>& s) {
    s.field("value", &EchoSpec::value, "our figure");
    s.field("tolerance", &EchoSpec::tolerance, "relative band");
  }
};

struct EchoReference {
  static constexpr std::string_view kind = "echo_reference";
  double value = 0;
  static void describe(config::Schema<EchoReference>& s) {
    s.field("value", &EchoReference::value, "the seed's figure");
  }
};

Definition<EchoSpec, EchoReference> echo_definition() {
  return {
      .name = "echo",
      .help = "echo",
      .title =
          [](const EchoSpec& s, const EchoReference& r) {
            return fmt::format("echo {} beside {}", s.value, r.value);
          },
      .spec_section = "none",
      .reference = "references/echo_seed.yaml",
      .claims = {{.id = "value",
                  .unit = "x",
                  .tolerance = &EchoSpec::tolerance,
                  .text = [](const EchoReference& r) { return fmt::format("it is {}", r.value); },
                  .seed = [](const EchoReference& r) { return SeedValue::point(r.value); }}},
      .evaluate =
          [](Run<EchoSpec, EchoReference>& run) {
            run.claim("value", run.spec.value).explanation = "echoed";
            EXPECT_THROW(run.claim("undeclared", 1.0), InternalError);
          }};
}

StudyInput echo_input(const std::filesystem::path& root, std::vector<std::string> assignments) {
  std::filesystem::create_directories(root / "references");
  std::ofstream(root / "references" / "echo_seed.yaml")
      << "schema_version: 1\nkind: echo_reference\nvalue: 2\n";
  std::ofstream(root / "echo.yaml") << "schema_version: 1\nkind: echo_study\nvalue: 2.1\n";
  config::LoadOptions load;
  load.config_roots = {root};
  load.assignments = std::move(assignments);
  return make_input("echo", root / "echo.yaml", load, Size::standard);
}

TEST(Runner, FillsTheHeaderAndJudgesTheDeclaredClaim) {
  const StudyInput in = echo_input(testing::scratch_dir(), {});
  Context ctx(ContextOptions{.seed = 7, .threads = 1});
  const report::StudyResult r = run_definition(echo_definition(), in, ctx);
  EXPECT_EQ(r.study, "echo");
  EXPECT_EQ(r.title, "echo 2.1 beside 2");
  EXPECT_EQ(r.spec_section, "none");
  EXPECT_EQ(r.seed, 7u);
  EXPECT_EQ(r.config, config::to_yaml(in.document));
  ASSERT_EQ(r.claims.size(), 1u);
  EXPECT_EQ(r.claims[0].claim, "it is 2");
  EXPECT_EQ(r.claims[0].verdict, Verdict::holds);
}

// --set addresses the study's config: the reference keeps its own figure, and the claim's
// words and seed figure come from the reference file only.
TEST(Runner, AssignmentsNeverReachTheReference) {
  const StudyInput in = echo_input(testing::scratch_dir(), {"value=7"});
  Context ctx(ContextOptions{.seed = 7, .threads = 1});
  const report::StudyResult r = run_definition(echo_definition(), in, ctx);
  ASSERT_EQ(r.claims.size(), 1u);
  EXPECT_EQ(r.claims[0].claim, "it is 2");
  EXPECT_EQ(r.claims[0].seed_value.lo, 2.0);
  EXPECT_EQ(r.claims[0].ours, 7.0);
  EXPECT_EQ(r.claims[0].verdict, Verdict::does_not_hold);
}

// A chart names claims; each seed figure lands on the axis whose column has the claim's unit:
// a marker where the claim says where (only the first labelled), a rule where it does not.
TEST(ChartBuilder, SeedFiguresAreDrawnOnTheAxisOfTheClaimsUnit) {
  const StudyInput in = echo_input(testing::scratch_dir(), {});
  Context ctx(ContextOptions{.threads = 1});
  report::StudyResult result;
  result.study = "t";
  result.title = "t";
  RunBase run(in, ctx, result);
  run.table("grid", "g", {{"tokens", "tokens"}, {"energy", "nJ"}});
  run.add_row("grid", {{"tokens", std::int64_t{1024}}, {"energy", 2.0}});
  for (auto [id, unit, seed] : {std::tuple{"e", "nJ", 3.0}, std::tuple{"f", "nJ", 4.0},
                                std::tuple{"x", "tokens", 2048.0}, std::tuple{"w", "W", 1.0}})
    run.judged(id, "energy", unit, SeedValue::point(seed), 1.0, Comparison::relative, 0.1)
        .explanation = "made up";
  run.qualitative("q", "words").explanation = "qualitative";
  Chart c{.title = "c", .table = "grid", .mark = Mark::line};
  c.x = Channel{.field = "tokens", .type = "quantitative"};
  c.y = Channel{.field = "energy", .type = "quantitative"};
  const Json plain = vega_lite(c);
  c.seed_claims = {{.id = "e", .at = 1024.0}, {.id = "f", .at = 1024.0}, {.id = "x"}};
  run.chart(c);
  ASSERT_EQ(result.charts.size(), 1u);
  const Json& spec = result.charts[0].vega_lite;
  EXPECT_EQ(spec["layer"][0], plain);
  const Json& seed = spec["layer"][1];
  EXPECT_EQ(seed["transform"][0]["aggregate"][0]["op"], "count");  // one mark per figure
  const Json& marks = seed["layer"];
  ASSERT_EQ(marks.size(), 5u);  // e: marker + label, f: marker, x: rule + label
  EXPECT_EQ(marks[0]["mark"]["type"], "point");
  EXPECT_EQ(marks[0]["encoding"]["y"]["datum"], 3.0);
  EXPECT_EQ(marks[0]["encoding"]["x"]["datum"], 1024.0);
  EXPECT_EQ(marks[0]["encoding"]["tooltip"]["value"], "seed figure: 3 nJ (energy)");
  EXPECT_EQ(marks[1]["mark"]["type"], "text");
  EXPECT_EQ(marks[1]["encoding"]["text"]["value"], "seed figure");
  EXPECT_EQ(marks[2]["mark"]["type"], "point");
  EXPECT_EQ(marks[3]["mark"]["type"], "rule");
  EXPECT_EQ(marks[3]["encoding"]["x"]["datum"], 2048.0);
  EXPECT_FALSE(marks[3]["encoding"].contains("y"));
  EXPECT_EQ(marks[4]["encoding"]["text"]["value"], "seed figure: 2048 tokens");
  EXPECT_NO_THROW((void)report::to_json(result, "t"));  // the result contract still holds

  for (const char* bad : {"w", "q", "absent"}) {
    c.seed_claims = {{.id = bad}};
    EXPECT_THROW(run.chart(c), InternalError) << bad;
  }
  c.seed_claims = {{.id = "e"}};
  c.column = Channel{.field = "tokens", .type = "nominal"};
  EXPECT_THROW(run.chart(c), InternalError);
}

TEST(Runner, MissingReferenceIsAConfigErrorNamingIt) {
  const auto root = testing::scratch_dir();
  StudyInput in = echo_input(root, {});
  std::filesystem::remove(root / "references" / "echo_seed.yaml");
  Context ctx;
  try {
    (void)run_definition(echo_definition(), in, ctx);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'echo_seed'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("references/"), std::string::npos) << e.what();
  }
}

// A study's memory check (Definition::require_memory) runs on the spec, --set applied, before
// evaluate, through the runner and through check_study_memory (what `study run` calls before
// --out is touched); its error names the config file and the key.
TEST(Runner, MemoryCheckRefusesBeforeEvaluateNamingFileAndKey) {
  constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
  bool evaluated = false;
  Definition<EchoSpec, EchoReference> d = echo_definition();
  d.evaluate = [&evaluated](studies::Run<EchoSpec, EchoReference>&) { evaluated = true; };
  d.require_memory = [](const EchoSpec& s, std::uint64_t budget, std::size_t,
                        const config::LoadOptions&) {  // `value` GiB
    require_memory(static_cast<std::uint64_t>(s.value * static_cast<double>(kGiB)), budget,
                   "value");
  };
  const auto root = testing::scratch_dir();
  Context ctx(ContextOptions{.threads = 1, .memory_budget = kGiB});
  const auto expect_refused = [&](auto&& call) {
    try {
      call();
      FAIL() << "expected ConfigError";
    } catch (const ConfigError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("echo.yaml: value needs ~2.1 GiB, more than the memory budget of 1 GiB"),
                std::string::npos)
          << what;
    }
  };
  expect_refused([&] { (void)run_definition(d, echo_input(root, {}), ctx); });
  EXPECT_FALSE(evaluated);
  (void)run_definition(d, echo_input(root, {"value=0.5"}), ctx);  // --set: within the budget
  EXPECT_TRUE(evaluated);

  Registry registry;
  add_study(registry, d);
  config::LoadOptions load;
  load.config_roots = {root};
  expect_refused([&] {
    check_study_memory(registry, "echo", root / "echo.yaml", load, Size::standard, kGiB, 1);
  });
  load.assignments = config::Assignments(std::vector<std::string>{"value=0.5"});
  EXPECT_NO_THROW(
      check_study_memory(registry, "echo", root / "echo.yaml", load, Size::standard, kGiB, 1));
}

TEST(Runner, MapKeepsGridOrderOnAnyThreadCount) {
  const StudyInput in = echo_input(testing::scratch_dir(), {});
  std::vector<int> grid(100);
  for (int i = 0; i < 100; ++i) grid[i] = i;
  for (std::size_t threads : {1u, 4u}) {
    Context ctx(ContextOptions{.seed = 1, .threads = threads});
    report::StudyResult r;
    r.study = "echo";
    RunBase run(in, ctx, r);
    const std::vector<int> squares = run.map(grid, [](int i) { return i * i; });
    ASSERT_EQ(squares.size(), grid.size());
    for (int i = 0; i < 100; ++i) EXPECT_EQ(squares[i], i * i);
  }
}

}  // namespace
}  // namespace lightsim::studies
