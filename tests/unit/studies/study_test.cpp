// The study family: sizes, config overlays, lookup and cancellation.
#include "lightsim/studies/study.h"

#include <fstream>

#include <gtest/gtest.h>

#include "scratch_dir.h"

namespace lightsim::studies {
namespace {

std::filesystem::path write_file(const std::filesystem::path& file, std::string_view text) {
  std::ofstream(file) << text;
  return file;
}

// A study that echoes the `trials` key of its document into one claim.
report::StudyResult echo_study(const StudyInput& in, Context& ctx) {
  ctx.throw_if_cancelled("echo");
  report::StudyResult r;
  r.study = in.name;
  r.title = "echo";
  r.seed = ctx.seed();
  report::Claim& c = r.add_claim("trials", "trials as configured", "");
  c.ours = std::stod(in.document.find("trials")->scalar());
  return r;
}

TEST(StudySize, NamesRoundTrip) {
  for (Size s : {Size::quick, Size::standard, Size::full}) EXPECT_EQ(parse_size(to_string(s)), s);
  EXPECT_EQ(to_string(Size::standard), "default");
  EXPECT_THROW(parse_size("huge"), UsageError);
}

TEST(StudyInput, SizeOverlayMergesAndSizesKeyIsRemoved) {
  const auto dir = testing::scratch_dir();
  const auto file = write_file(dir / "echo.yaml",
                               "kind: echo_study\ntrials: 8\nname: x\n"
                               "sizes:\n  quick: {trials: 2}\n  full: {trials: 64}\n");
  for (auto [size, trials] :
       {std::pair{Size::quick, "2"}, std::pair{Size::standard, "8"}, std::pair{Size::full, "64"}}) {
    const StudyInput in = make_input("echo", file, {}, size);
    EXPECT_EQ(in.document.find("trials")->scalar(), trials);
    EXPECT_EQ(in.document.find("sizes"), nullptr);
    EXPECT_EQ(in.document.find("name")->scalar(), "x");
  }
}

TEST(StudyInput, UnknownSizeKeyIsAConfigErrorNamingIt) {
  const auto dir = testing::scratch_dir();
  const auto file = write_file(dir / "bad.yaml", "kind: echo_study\nsizes:\n  huge: {a: 1}\n");
  try {
    (void)make_input("echo", file, {}, Size::standard);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sizes.huge"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos) << e.what();
  }
}

// A spec kind with one bounded key, for `config check` of a study config.
struct TrialsStudySpec {
  static constexpr std::string_view kind = "trials_study";
  std::int64_t trials = 1;
  static void describe(config::Schema<TrialsStudySpec>& s) {
    s.field("trials", &TrialsStudySpec::trials, "trials").range(std::int64_t{1}, std::int64_t{100});
  }
};

TEST(StudyRegistry, ConfigCheckReadsTheDocumentAtEverySize) {
  Registry registry;
  add_study_spec<TrialsStudySpec>(registry);
  const auto dir = testing::scratch_dir();
  const auto good = write_file(dir / "good.yaml",
                               "schema_version: 1\nkind: trials_study\ntrials: 5\n"
                               "sizes: {quick: {trials: 2}, full: {trials: 50}}\n");
  EXPECT_EQ(registry.check_file(good, {}), "trials_study");
  // Only the full overlay is out of range: the check still catches it.
  const auto bad = write_file(
      dir / "bad.yaml",
      "schema_version: 1\nkind: trials_study\ntrials: 5\nsizes: {full: {trials: 500}}\n");
  try {
    (void)registry.check_file(bad, {});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("trials"), std::string::npos) << e.what();
  }
}

TEST(StudyRegistry, RunsARegisteredStudyAndRejectsUnknownNames) {
  Registry registry;
  EXPECT_TRUE(study_names(registry).empty());
  study_family(registry).add("echo", "echo test study", echo_study);
  EXPECT_EQ(study_names(registry), std::vector<std::string>{"echo"});

  const auto dir = testing::scratch_dir();
  const auto file = write_file(dir / "echo.yaml", "trials: 5\nsizes: {full: {trials: 50}}\n");
  Context ctx;
  const auto r = run_study(registry, "echo", file, {}, Size::full, ctx);
  ASSERT_EQ(r.claims.size(), 1u);
  EXPECT_EQ(*r.claims[0].ours, 50.0);
  EXPECT_THROW(run_study(registry, "ecko", file, {}, Size::full, ctx), ConfigError);
}

TEST(StudyRegistry, DefaultConfigSearchesRootsInOrder) {
  const auto dir = testing::scratch_dir();
  std::filesystem::create_directories(dir / "a" / "studies");
  std::filesystem::create_directories(dir / "b" / "studies");
  write_file(dir / "b" / "studies" / "echo.yaml", "trials: 1\n");
  config::LoadOptions load;
  load.config_roots = {dir / "a", dir / "b"};
  EXPECT_EQ(default_config("echo", load), dir / "b" / "studies" / "echo.yaml");
  EXPECT_THROW((void)default_config("other", load), ConfigNotFound);
}

TEST(StudyRegistry, CancelledContextStopsTheStudy) {
  Registry registry;
  study_family(registry).add("echo", "echo test study", echo_study);
  const auto dir = testing::scratch_dir();
  const auto file = write_file(dir / "echo.yaml", "trials: 5\n");
  std::atomic<bool> stop{true};
  ContextOptions options;
  options.cancel = &stop;
  Context ctx(options);
  EXPECT_TRUE(ctx.cancelled());
  EXPECT_THROW(run_study(registry, "echo", file, {}, Size::standard, ctx), Interrupted);
}

}  // namespace
}  // namespace lightsim::studies
