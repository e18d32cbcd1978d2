// Ref<S> fields, scoped --set assignments and find_named (config_ref.h,
// config_assignments.h, config_files.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lightsim/core/config.h"
#include "scratch_dir.h"

namespace lightsim::config {
namespace {

using ::testing::HasSubstr;

struct PartSpec {
  static constexpr std::string_view kind = "test_part";
  static constexpr std::string_view preset_dir = "parts";
  std::int64_t size = 1;
  std::string name;
  static void describe(Schema<PartSpec>& s) {
    s.field("size", &PartSpec::size, "size").range(std::int64_t{1}, std::int64_t{100});
    s.field("name", &PartSpec::name, "name");
  }
};

struct AssemblySpec {
  static constexpr std::string_view kind = "test_assembly";
  Ref<PartSpec> part = "small";
  std::vector<Ref<PartSpec>> spares;
  std::optional<Ref<PartSpec>> extra;
  Ref<PartSpec> other = "big";
  std::string name;
  std::int64_t count = 1;
  static void describe(Schema<AssemblySpec>& s) {
    s.field("part", &AssemblySpec::part, "the main part");
    s.field("spares", &AssemblySpec::spares, "spare parts");
    s.field("extra", &AssemblySpec::extra, "an optional part");
    s.field("other", &AssemblySpec::other, "a part from another folder").dir("others");
    s.field("name", &AssemblySpec::name, "name");
    s.field("count", &AssemblySpec::count, "count").min(std::int64_t{0});
  }
};

struct CycleSpec {
  static constexpr std::string_view kind = "test_cycle";
  static constexpr std::string_view preset_dir = "cycles";
  std::optional<Ref<CycleSpec>> next;
  static void describe(Schema<CycleSpec>& s) { s.field("next", &CycleSpec::next, "next"); }
};

class RefTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = testing::scratch_dir();
    write("parts/small.yaml", "schema_version: 1\nkind: test_part\nsize: 2\nname: small\n");
    write("parts/medium.yaml", "schema_version: 1\nkind: test_part\nsize: 5\n");
    write("parts/broken.yaml", "schema_version: 1\nkind: test_part\nsize: 500\n");
    write("others/big.yaml", "schema_version: 1\nkind: test_part\nsize: 50\n");
    write("others/huge.yaml", "schema_version: 1\nkind: test_part\nsize: 60\n");
    write("cycles/a.yaml", "schema_version: 1\nkind: test_cycle\nnext: b\n");
    write("cycles/b.yaml", "schema_version: 1\nkind: test_cycle\nnext: a\n");
    write("mine/local.yaml", "schema_version: 1\nkind: test_part\nsize: 7\n");
    options_.config_roots = {root_};
  }
  void write(const std::string& name, const std::string& text) {
    std::filesystem::create_directories((root_ / name).parent_path());
    testing::write_bytes(root_ / name, text);
  }
  AssemblySpec read(const std::string& body, LoadOptions o) {
    return read_spec<AssemblySpec>(
        parse_document("schema_version: 1\nkind: test_assembly\n" + body, "asm.yaml"), o);
  }
  AssemblySpec read(const std::string& body) { return read(body, options_); }
  std::string error_of(const std::string& body, LoadOptions o) {
    try {
      read(body, std::move(o));
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }
  std::string error_of(const std::string& body) { return error_of(body, options_); }
  std::filesystem::path root_;
  LoadOptions options_;
};

TEST_F(RefTest, NamesPathsInlineMappingsAndDefaultsAreResolvedAndRead) {
  const AssemblySpec a = read("spares: [medium, small]\nextra: {size: 9}\n");
  EXPECT_EQ(a.part.name(), "small");  // the default, resolved
  EXPECT_EQ(a.part->size, 2);
  EXPECT_EQ(a.part.file(), root_ / "parts/small.yaml");
  ASSERT_EQ(a.spares.size(), 2u);
  EXPECT_EQ(a.spares[0].get().size, 5);
  EXPECT_EQ(a.spares[1].get().name, "small");
  ASSERT_TRUE(a.extra.has_value());
  EXPECT_EQ((*a.extra)->size, 9);
  EXPECT_EQ(a.extra->name(), "");
  EXPECT_EQ(a.other->size, 50);  // looked up in the field's own folder
  // A path: from the folder of the file naming it, then from each config root.
  EXPECT_EQ(read("part: mine/local.yaml\n").part->size, 7);
  EXPECT_EQ(read("part: " + (root_ / "mine/local.yaml").string() + "\n").part->size, 7);
}

TEST_F(RefTest, ABadReferenceIsAnErrorAtTheLineThatNamesIt) {
  const std::string missing = error_of("name: x\npart: smal\n");
  EXPECT_THAT(missing, HasSubstr("asm.yaml:4:7: part: no test_part config 'smal'"));
  EXPECT_THAT(missing, HasSubstr("did you mean 'small'?"));
  EXPECT_THAT(missing, HasSubstr((root_ / "parts").string()));
  EXPECT_THROW(read("part: smal\n"), ConfigNotFound);
  const std::string invalid = error_of("spares: [broken]\n");
  EXPECT_THAT(invalid, HasSubstr("asm.yaml:3:10: spares[0]: in test_part 'broken': "));
  EXPECT_THAT(invalid, HasSubstr("broken.yaml:3:7: size: 500 is out of range"));
  EXPECT_THAT(error_of("part: mine/none.yaml\n"),
              HasSubstr("no test_part config 'mine/none.yaml'"));
  EXPECT_THAT(error_of("part: \"\"\n"), HasSubstr("part: no test_part config named"));
  EXPECT_THAT(error_of("part: small\nother: smal\n"), HasSubstr("other: no test_part config"));
  LoadOptions none;
  EXPECT_THAT(error_of("", none), HasSubstr("part: no test_part config 'small'"));
}

TEST_F(RefTest, ReferenceCyclesAreErrors) {
  try {
    read_spec<CycleSpec>(parse_document("schema_version: 1\nkind: test_cycle\nnext: a\n", "c.yaml"),
                         options_);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("reference cycle"));
  }
}

TEST_F(RefTest, AssignmentsAddressTheTopDocumentOrAReferencedOne) {
  LoadOptions o = options_;
  o.assignments = {"count=3", "part.size=11", "spares.size=12", "other=huge"};
  const AssemblySpec a = read("spares: [small, medium]\n", o);
  EXPECT_EQ(a.count, 3);
  EXPECT_EQ(a.part->size, 11);
  EXPECT_EQ(a.part.name(), "small");
  EXPECT_EQ(a.spares[0]->size, 12);  // every item of a list of references
  EXPECT_EQ(a.spares[1]->size, 12);
  EXPECT_EQ(a.other.name(), "huge");  // the reference itself replaced
  EXPECT_EQ(a.other->size, 60);
  EXPECT_NO_THROW(o.assignments.require_all_used());
  // The referenced file itself is never changed: a fresh read sees its own value.
  EXPECT_EQ(read("").part->size, 2);
}

TEST_F(RefTest, AnAssignmentNoDocumentHasIsAUsageErrorWithASuggestion) {
  LoadOptions o = options_;
  o.assignments = {"count=3", "part.sise=4"};
  const AssemblySpec a = read("", o);
  EXPECT_EQ(a.count, 3);
  EXPECT_EQ(a.part->size, 2);  // never applied elsewhere
  try {
    o.assignments.require_all_used();
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("--set part.sise: no config read"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("did you mean 'part.size'?"));
  }
  o.assignments = {"size=4"};  // a key of the referenced document, written without its path
  read("", o);
  try {
    o.assignments.require_all_used();
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr(".size'?)"));
  }
  Assignments unread = {"x=1"};
  EXPECT_THROW(unread.require_all_used(), UsageError);
}

TEST_F(RefTest, CopiesShareWhatWasUsedAndClearingACopyKeepsTheOriginal) {
  LoadOptions o = options_;
  o.assignments = {"count=3"};
  LoadOptions copy = o;
  read("", copy);
  EXPECT_NO_THROW(o.assignments.require_all_used());
  LoadOptions plain = o;
  plain.assignments.clear();
  EXPECT_TRUE(plain.assignments.empty());
  EXPECT_EQ(o.assignments.size(), 1u);
}

TEST_F(RefTest, ScopedOptionsAddressADocumentReadBesideTheTopOne) {
  LoadOptions o = options_;
  o.assignments = {"size=3", "part.size=4"};
  const PartSpec top = load_spec<PartSpec>(root_ / "parts/medium.yaml", o);
  const PartSpec beside = load_spec<PartSpec>(root_ / "parts/medium.yaml", o.scoped("part"));
  EXPECT_EQ(top.size, 3);
  EXPECT_EQ(beside.size, 4);
  EXPECT_NO_THROW(o.assignments.require_all_used());
}

TEST_F(RefTest, FindNamedListsTheFoldersSearchedAndSuggests) {
  EXPECT_EQ(find_named("small", "parts", options_, "part"), root_ / "parts/small.yaml");
  try {
    find_named("smal", "parts", options_, "part");
    FAIL();
  } catch (const ConfigNotFound& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("no part 'smal' (did you mean 'small'?)"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("looked in " + (root_ / "parts").string()));
  }
  EXPECT_EQ(named_configs("parts", options_),
            (std::vector<std::string>{"broken", "medium", "small"}));
}

TEST(RefSchema, ExplainShowsAReference) {
  const SchemaInfo& info = schema_of<AssemblySpec>().info();
  EXPECT_EQ(info.fields[0].type, "reference to test_part");
  EXPECT_EQ(info.fields[0].default_text, "small");
  EXPECT_EQ(info.fields[0].reference_dir, "parts");
  EXPECT_EQ(info.fields[1].type, "list of reference to test_part");
  EXPECT_EQ(info.fields[3].reference_dir, "others");
}

}  // namespace
}  // namespace lightsim::config
