// The JSON-lines result store: create, append, resume, torn last line, refusals.
#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "lightsim/core/json.h"
#include "lightsim/sweep/store.h"
#include "scratch_dir.h"

namespace lightsim::sweep {
namespace {

using lightsim::testing::read_bytes;
using lightsim::testing::scratch_dir;
using lightsim::testing::write_bytes;

Json header(std::size_t points = 5, const char* hash = "abc") {
  return {{"lightsim_sweep", 1}, {"spec_hash", hash}, {"seed", 1}, {"points", points}};
}

std::string line(std::size_t i) {
  return record_line(i, "id", Json::object(), {{"x", 1.5 * i}});
}

// The points of header(n): each with the id and values line(i) writes.
std::vector<StoredPoint> points(std::size_t n = 5) {
  return std::vector<StoredPoint>(n, StoredPoint{"id", "{}"});
}

TEST(ResultStore, AppendsLinesAfterTheHeader) {
  const auto file = scratch_dir() / "s.jsonl";
  {
    ResultStore store(file, header(), false, points());
    store.append({{1, line(1)}, {0, line(0)}});
    EXPECT_EQ(store.done(), (std::vector<std::size_t>{0, 1}));
  }
  const std::string text = read_bytes(file);
  EXPECT_EQ(text, header().dump() + "\n" + line(1) + "\n" + line(0) + "\n");
}

TEST(ResultStore, ExistingStoreNeedsResume) {
  const auto file = scratch_dir() / "s.jsonl";
  { ResultStore store(file, header(), false, points()); }
  EXPECT_THROW({ ResultStore s(file, header(), false, points()); }, InputError);
  EXPECT_NO_THROW({ ResultStore s(file, header(), true, points()); });
}

TEST(ResultStore, ASecondWriterIsRefusedWhileTheFirstIsOpen) {
  const auto file = scratch_dir() / "s.jsonl";
  {
    ResultStore first(file, header(), false, points());
    try {
      ResultStore second(file, header(), true, points());
      FAIL() << "a second writer opened the store";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("in use by another run"), std::string::npos) << e.what();
    }
    first.append({{0, line(0)}});
  }
  ResultStore again(file, header(), true, points());  // the lock went with the first store
  EXPECT_EQ(again.done(), (std::vector<std::size_t>{0}));
}

TEST(ResultStore, ResumeKeepsFinishedPointsAndDropsATornLastLine) {
  const auto file = scratch_dir() / "s.jsonl";
  const std::string torn = line(3).substr(0, 10);
  write_bytes(file, header().dump() + "\n" + line(0) + "\n" + line(2) + "\n" + torn);
  ResultStore store(file, header(), true, points());
  EXPECT_EQ(store.done(), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(store.dropped_bytes(), torn.size());
  store.append({{3, line(3)}});
  EXPECT_EQ(read_bytes(file),
            header().dump() + "\n" + line(0) + "\n" + line(2) + "\n" + line(3) + "\n");
}

TEST(ResultStore, ChangedSpecIsRefused) {
  const auto file = scratch_dir() / "s.jsonl";
  { ResultStore store(file, header(5, "abc"), false, points(5)); }
  try {
    ResultStore store(file, header(5, "def"), true, points(5));
    FAIL() << "a changed spec hash was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("spec_hash"), std::string::npos) << e.what();
  }
  EXPECT_THROW({ ResultStore s(file, header(6, "abc"), true, points(6)); }, ConfigError);
}

TEST(ResultStore, CorruptionIsADataFormatError) {
  const auto dir = scratch_dir();
  write_bytes(dir / "a.jsonl", header().dump() + "\nnot json\n" + line(1) + "\n");
  EXPECT_THROW({ ResultStore s(dir / "a.jsonl", header(), true, points()); }, DataFormatError);
  write_bytes(dir / "b.jsonl", header().dump() + "\n" + line(1) + "\n" + line(1) + "\n");
  EXPECT_THROW({ ResultStore s(dir / "b.jsonl", header(), true, points()); }, DataFormatError);
  write_bytes(dir / "c.jsonl", header().dump() + "\n" + line(7) + "\n");
  EXPECT_THROW({ ResultStore s(dir / "c.jsonl", header(), true, points()); }, DataFormatError);
}

// A kept record must be the sweep's point: an edited id or value, or a result that is not an
// object, names the store and line.
TEST(ResultStore, ResumeVerifiesEveryKeptRecordAgainstThePoints) {
  const auto dir = scratch_dir();
  const auto expect_refused = [&](const std::string& name, const std::string& bad,
                                  const std::string& says) {
    const auto file = dir / name;
    write_bytes(file, header().dump() + "\n" + line(0) + "\n" + bad + "\n");
    try {
      ResultStore s(file, header(), true, points());
      FAIL() << name << ": the record was trusted";
    } catch (const DataFormatError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(file.string() + ":3:"), std::string::npos) << what;
      EXPECT_NE(what.find(says), std::string::npos) << what;
    }
  };
  expect_refused("id.jsonl", record_line(1, "other", Json::object(), {{"x", 1}}), "has id");
  expect_refused("values.jsonl", record_line(1, "id", {{"gpus", 8}}, {{"x", 1}}), "has values");
  expect_refused("result.jsonl", R"({"id":"id","index":1,"result":"{not json","values":{}})",
                 "has result");
  expect_refused("keys.jsonl", R"({"extra":1,"id":"id","index":1,"result":{},"values":{}})",
                 "keys besides");
  // The same records are accepted by a sweep whose points they are.
  std::vector<StoredPoint> other = points();
  other[1] = {"other", "{}"};
  write_bytes(dir / "ok.jsonl",
              header().dump() + "\n" + record_line(1, "other", Json::object(), {{"x", 1}}) + "\n");
  ResultStore ok(dir / "ok.jsonl", header(), true, other);
  EXPECT_EQ(ok.done(), (std::vector<std::size_t>{1}));
}

TEST(ResultStore, SortPutsPointsInIndexOrder) {
  const auto file = scratch_dir() / "s.jsonl";
  ResultStore store(file, header(), false, points());
  store.append({{4, line(4)}, {1, line(1)}});
  store.append({{0, line(0)}});
  store.sort();
  store.append({{2, line(2)}});
  EXPECT_EQ(read_bytes(file), header().dump() + "\n" + line(0) + "\n" + line(1) + "\n" + line(4) +
                                  "\n" + line(2) + "\n");
}

TEST(ResultStore, NonFiniteResultsAreRefused) {
  EXPECT_THROW(record_line(0, "id", Json::object(), {{"x", std::nan("")}}), NumericError);
}

}  // namespace
}  // namespace lightsim::sweep
