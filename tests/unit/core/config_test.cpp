#include "lightsim/core/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lightsim/core/registry.h"
#include "scratch_dir.h"

namespace lightsim::config {
namespace {

using ::testing::HasSubstr;

enum class Detection { balanced, single_ended };

struct LaserSpec {
  static constexpr std::string_view kind = "laser";
  Power power_per_line = Power::si(1e-3);
  Decibel rin = parse<dims::decibel>("-150 dB");
  static void describe(Schema<LaserSpec>& s) {
    s.help("Comb laser.");
    s.field("power_per_line", &LaserSpec::power_per_line, "optical power per comb line")
        .range("1 uW", "1 W");
    s.field("rin", &LaserSpec::rin, "relative intensity noise per Hz");
  }
};

struct RingSpec {
  static constexpr std::string_view kind = "test_ring";
  static constexpr std::string_view preset_dir = "rings";
  Length radius = parse<dims::length>("20 um");
  double q_loaded = 1e4;
  int rows = 256;
  bool balanced = true;
  std::string material = "tfln";
  Detection detection = Detection::balanced;
  std::vector<Length> channels;
  std::optional<Time> settle;
  std::map<std::string, double> gains;
  LaserSpec laser;
  std::vector<LaserSpec> spares;
  static void describe(Schema<RingSpec>& s) {
    s.help("A ring for tests.");
    s.field("radius", &RingSpec::radius, "ring radius").range("1 um", "1 mm");
    s.field("q_loaded", &RingSpec::q_loaded, "loaded Q").range(100, 1e8);
    s.field("rows", &RingSpec::rows, "rows").positive();
    s.field("balanced", &RingSpec::balanced, "balanced detection");
    s.field("material", &RingSpec::material, "ring material").one_of({"tfln", "soi"});
    s.enumeration("detection", &RingSpec::detection,
                  {{"balanced", Detection::balanced}, {"single_ended", Detection::single_ended}},
                  "detector arrangement");
    s.field("channels", &RingSpec::channels, "channel wavelengths").min("1 um");
    s.field("settle", &RingSpec::settle, "settling time").positive();
    s.field("gains", &RingSpec::gains, "named gains");
    s.field("laser", &RingSpec::laser, "the laser");
    s.field("spares", &RingSpec::spares, "spare lasers");
    s.rule([](const RingSpec& r) -> std::optional<std::string> {
      if (r.material == "soi" && r.q_loaded > 1e6) return "an SOI ring cannot have q_loaded > 1e6";
      return std::nullopt;
    });
  }
};

struct RequiredSpec {
  static constexpr std::string_view kind = "needs";
  int count = 0;
  static void describe(Schema<RequiredSpec>& s) {
    s.field("count", &RequiredSpec::count, "how many").required();
  }
};

RingSpec read_ring(const std::string& yaml, LoadOptions options = {}) {
  return read_spec<RingSpec>(parse_document(yaml, "ring.yaml"), options);
}

std::string error_of(const std::string& yaml, LoadOptions options = {}) {
  try {
    read_ring(yaml, std::move(options));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Config, ReadsEveryFieldTypeWithUnits) {
  const RingSpec r = read_ring(R"(schema_version: 1
kind: test_ring
radius: 10 um
q_loaded: 2e4
rows: 1024
balanced: false
material: soi
detection: single_ended
channels: [1550 nm, 1551.6 nm]
settle: 5 ns
gains: {a: 1.5, b: 2}
laser: {power_per_line: -10 dBm}
spares:
  - {rin: -140 dB}
)");
  EXPECT_DOUBLE_EQ(r.radius.si(), 10e-6);
  EXPECT_EQ(r.q_loaded, 2e4);
  EXPECT_EQ(r.rows, 1024);
  EXPECT_FALSE(r.balanced);
  EXPECT_EQ(r.material, "soi");
  EXPECT_EQ(r.detection, Detection::single_ended);
  ASSERT_EQ(r.channels.size(), 2u);
  EXPECT_DOUBLE_EQ(r.channels[1].si(), 1551.6e-9);
  ASSERT_TRUE(r.settle.has_value());
  EXPECT_DOUBLE_EQ(r.settle->si(), 5e-9);
  EXPECT_EQ(r.gains.at("b"), 2.0);
  EXPECT_NEAR(r.laser.power_per_line.si(), 1e-4, 1e-18);
  ASSERT_EQ(r.spares.size(), 1u);
  EXPECT_DOUBLE_EQ(r.spares[0].rin.si(), -140);
  EXPECT_DOUBLE_EQ(r.spares[0].power_per_line.si(), 1e-3);  // default kept
}

TEST(Config, DefaultsWhenKeysAreAbsent) {
  const RingSpec r = read_ring("schema_version: 1\nkind: test_ring\n");
  EXPECT_DOUBLE_EQ(r.radius.si(), 20e-6);
  EXPECT_FALSE(r.settle.has_value());
  EXPECT_TRUE(r.channels.empty());
}

TEST(Config, UnknownKeyNamesFileLinePathAndSuggestion) {
  const std::string e =
      error_of("schema_version: 1\nkind: test_ring\nlaser:\n  powr_per_line: 1 mW\n");
  EXPECT_THAT(e, HasSubstr("ring.yaml:4:3: laser.powr_per_line: unknown key in laser spec"));
  EXPECT_THAT(e, HasSubstr("did you mean 'power_per_line'?"));
  const std::string far = error_of("schema_version: 1\nkind: test_ring\nzzzzzz: 1\n");
  EXPECT_THAT(far, HasSubstr("valid keys: radius, q_loaded"));
}

TEST(Config, WrongUnitNamesTheExpectedDimension) {
  const std::string e = error_of("schema_version: 1\nkind: test_ring\nradius: 3 ns\n");
  EXPECT_THAT(e, HasSubstr("ring.yaml:3:9: radius:"));
  EXPECT_THAT(e, HasSubstr("expected a length"));
  const std::string bare = error_of("schema_version: 1\nkind: test_ring\nradius: 20\n");
  EXPECT_THAT(bare, HasSubstr("radius:"));
  EXPECT_THAT(bare, HasSubstr("length"));
  EXPECT_THROW(read_ring("schema_version: 1\nkind: test_ring\nradius: 3 ns\n"), UnitError);
}

TEST(Config, RangesTypesAndChoicesAreEnforced) {
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nradius: 2 mm\n"),
              HasSubstr("radius: 2 mm is out of range [1 um, 1 mm]"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nrows: 0\n"),
              HasSubstr("rows: 0 is out of range > 0"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nrows: 2.5\n"),
              HasSubstr("rows: expected an integer"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nrows: 1e10\n"),
              HasSubstr("does not fit"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nq_loaded: 1 GHz\n"),
              HasSubstr("q_loaded: expected a finite plain number"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nbalanced: yes\n"),
              HasSubstr("balanced: expected true or false"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nmaterial: sio\n"),
              HasSubstr("'sio' is not one of: tfln, soi (did you mean 'soi'?)"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\ndetection: both\n"),
              HasSubstr("detection: 'both' is not one of: balanced, single_ended"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nchannels: [1550 nm, 0.5 um]\n"),
              HasSubstr("channels[1]: 500 nm is out of range >= 1 um"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nchannels: 1550 nm\n"),
              HasSubstr("channels: expected a list, got a value"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nlaser: 3\n"),
              HasSubstr("laser: expected a mapping of laser keys"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nq_loaded:\n"),
              HasSubstr("q_loaded: has no value"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nmaterial: soi\nq_loaded: 1e7\n"),
              HasSubstr("an SOI ring cannot have q_loaded > 1e6"));
}

TEST(Config, HeaderIsRequiredAndChecked) {
  EXPECT_THAT(error_of("kind: test_ring\n"), HasSubstr("missing 'schema_version'"));
  EXPECT_THAT(error_of("schema_version: 2\nkind: test_ring\n"), HasSubstr("newer than"));
  EXPECT_THAT(error_of("schema_version: 1\n"), HasSubstr("missing 'kind'"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: laser\n"),
              HasSubstr("this file is a 'laser' config; expected a 'test_ring' config"));
  EXPECT_THAT(error_of("- 1\n- 2\n"), HasSubstr("expected a mapping"));
}

TEST(Config, SyntaxErrorsAndDuplicateKeysHavePositions) {
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nradius: [1 um\n"),
              HasSubstr("ring.yaml:"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nrows: 1\nrows: 2\n"),
              HasSubstr("ring.yaml:4:1: duplicate key 'rows' (first given at line 3)"));
}

TEST(Config, RequiredKeysMustBeGiven) {
  try {
    read_spec<RequiredSpec>(parse_document("schema_version: 1\nkind: needs\n", "n.yaml"));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("missing required key 'count'"));
  }
}

TEST(Config, JsonFilesAreReadWithPositions) {
  EXPECT_EQ(
      read_spec<RingSpec>(
          parse_document(R"({"schema_version": 1, "kind": "test_ring", "rows": 8})", "r.json"))
          .rows,
      8);
  try {
    read_spec<RingSpec>(parse_document(
        "{\n  \"schema_version\": 1,\n  \"kind\": \"test_ring\",\n  \"rowz\": 8\n}", "r.json"));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("r.json:4:3: rowz: unknown key"));
  }
}

TEST(Config, AssignmentsOverrideKeys) {
  LoadOptions o;
  o.assignments = {"laser.power_per_line=2 mW", "channels=[1 um, 2 um]", "rows=7"};
  const RingSpec r = read_ring("schema_version: 1\nkind: test_ring\nrows: 3\n", o);
  EXPECT_EQ(r.rows, 7);
  EXPECT_DOUBLE_EQ(r.laser.power_per_line.si(), 2e-3);
  EXPECT_EQ(r.channels.size(), 2u);
  EXPECT_NO_THROW(o.assignments.require_all_used());
  o.assignments = {"laser.powr=2 mW"};  // no key of the document: never applied, reported
  EXPECT_NO_THROW(read_ring("schema_version: 1\nkind: test_ring\n", o));
  EXPECT_THROW(o.assignments.require_all_used(), UsageError);
  o.assignments = {"novalue"};
  EXPECT_THROW(read_ring("schema_version: 1\nkind: test_ring\n", o), UsageError);
}

class PresetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = testing::scratch_dir();  // per test: ctest runs tests in parallel
    std::filesystem::create_directories(root_ / "rings");
    write("rings/base.yaml",
          "schema_version: 1\nkind: test_ring\nradius: 30 um\nrows: 64\nlaser:\n  "
          "power_per_line: 2 mW\n  rin: -145 dB\n");
    write("rings/derived.yaml", "schema_version: 1\nkind: test_ring\npreset: base\nrows: 32\n");
    write("rings/loop_a.yaml", "schema_version: 1\nkind: test_ring\npreset: loop_b\n");
    write("rings/loop_b.yaml", "schema_version: 1\nkind: test_ring\npreset: loop_a\n");
    write("rings/typo.yaml", "schema_version: 1\nkind: test_ring\nradiuss: 1 um\n");
    options_.config_roots = {root_};
  }
  void write(const std::string& name, const std::string& text) {
    testing::write_bytes(root_ / name, text);
  }
  std::filesystem::path root_;
  LoadOptions options_;
};

TEST_F(PresetTest, PresetValuesAreOverriddenKeyByKey) {
  const RingSpec r = read_ring(
      "schema_version: 1\nkind: test_ring\npreset: derived\nlaser: {rin: -150 dB}\n", options_);
  EXPECT_DOUBLE_EQ(r.radius.si(), 30e-6);               // from base
  EXPECT_EQ(r.rows, 32);                                // derived overrides base
  EXPECT_DOUBLE_EQ(r.laser.power_per_line.si(), 2e-3);  // nested key kept from base
  EXPECT_DOUBLE_EQ(r.laser.rin.si(), -150);             // nested key overridden
}

TEST_F(PresetTest, PresetErrorsNameTheirFileAndSuggest) {
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\npreset: bse\n", options_),
              HasSubstr("preset: no test_ring preset 'bse'"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\npreset: bse\n", options_),
              HasSubstr("did you mean 'base'?"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\npreset: loop_a\n", options_),
              HasSubstr("preset cycle"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\npreset: typo\n", options_),
              HasSubstr("typo.yaml:3:1: radiuss: unknown key"));
  EXPECT_THAT(error_of("schema_version: 1\nkind: test_ring\nlaser: {preset: x}\n", options_),
              HasSubstr("laser.preset: unknown key in laser spec"));
}

TEST_F(PresetTest, RuleErrorsPointAtTheUsersMapping) {
  write("rings/soi_q.yaml", "schema_version: 1\nkind: test_ring\nmaterial: soi\n");
  EXPECT_THAT(
      error_of("schema_version: 1\nkind: test_ring\npreset: soi_q\nq_loaded: 1e7\n", options_),
      HasSubstr("ring.yaml:1:1: an SOI ring cannot have q_loaded > 1e6"));
}

TEST_F(PresetTest, PresetByRelativePath) {
  write("user.yaml", "schema_version: 1\nkind: test_ring\npreset: rings/base.yaml\nrows: 5\n");
  const RingSpec r = load_spec<RingSpec>(root_ / "user.yaml");
  EXPECT_EQ(r.rows, 5);
  EXPECT_DOUBLE_EQ(r.radius.si(), 30e-6);
}

TEST(Config, MissingFileIsAnInputError) {
  try {
    load_spec<RingSpec>("/nonexistent/ring.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("/nonexistent/ring.yaml: no such file"));
  }
}

TEST(Config, SchemaDescribesFieldsForExplain) {
  const SchemaInfo& info = schema_of<RingSpec>().info();
  EXPECT_EQ(info.kind, "test_ring");
  EXPECT_EQ(info.preset_dir, "rings");
  ASSERT_GE(info.fields.size(), 3u);
  EXPECT_EQ(info.fields[0].name, "radius");
  EXPECT_EQ(info.fields[0].type, "length");
  EXPECT_EQ(info.fields[0].unit, "m");
  EXPECT_EQ(info.fields[0].default_text, "20 um");
  EXPECT_EQ(info.fields[0].constraint, "[1 um, 1 mm]");
  const std::string text = explain(info);
  EXPECT_THAT(text, HasSubstr("laser.power_per_line: power [W]"));
  EXPECT_THAT(text, HasSubstr("spares[].rin"));
  EXPECT_THAT(text, HasSubstr("one of: balanced, single_ended"));
  Registry registry;
  registry.add_spec<RingSpec>();
  EXPECT_THROW(registry.add_spec<RingSpec>(), InternalError);
  EXPECT_THAT(config_reference_markdown(registry), HasSubstr("| `laser.rin` | decibel ratio [dB]"));
  EXPECT_THROW(registry.spec("test_rin"), UsageError);
}

TEST(Config, ClosestMatch) {
  EXPECT_EQ(closest_match("radiuss", {"radius", "rows"}), "radius");
  EXPECT_EQ(closest_match("zzz", {"radius", "rows"}), "");
  EXPECT_EQ(closest_match("ROWS", {"radius", "rows"}), "rows");
}

TEST(Config, YamlEmitterRoundTrips) {
  const Node n = parse_document("a: 1\nb: [x, 'y z']\nc: {d: 5 nm}\n", "t");
  const Node again = parse_document(to_yaml(n), "t2");
  EXPECT_EQ(again.find("c")->find("d")->scalar(), "5 nm");
  EXPECT_EQ(again.find("b")->items()[1].scalar(), "y z");
}

}  // namespace
}  // namespace lightsim::config
