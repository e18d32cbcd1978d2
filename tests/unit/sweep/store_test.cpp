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

TEST(ResultStore, AppendsLinesAfterTheHeader) {
  const auto file = scratch_dir() / "s.jsonl";
  {
    ResultStore store(file, header(), false);
    store.append({{1, line(1)}, {0, line(0)}});
    EXPECT_EQ(store.done(), (std::vector<std::size_t>{0, 1}));
  }
  const std::string text = read_bytes(file);
  EXPECT_EQ(text, header().dump() + "\n" + line(1) + "\n" + line(0) + "\n");
}

TEST(ResultStore, ExistingStoreNeedsResume) {
  const auto file = scratch_dir() / "s.jsonl";
  { ResultStore store(file, header(), false); }
  EXPECT_THROW({ ResultStore s(file, header(), false); }, InputError);
  EXPECT_NO_THROW({ ResultStore s(file, header(), true); });
}

TEST(ResultStore, ASecondWriterIsRefusedWhileTheFirstIsOpen) {
  const auto file = scratch_dir() / "s.jsonl";
  {
    ResultStore first(file, header(), false);
    try {
      ResultStore second(file, header(), true);
      FAIL() << "a second writer opened the store";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("in use by another run"), std::string::npos) << e.what();
    }
    first.append({{0, line(0)}});
  }
  ResultStore again(file, header(), true);  // the lock went with the first store
  EXPECT_EQ(again.done(), (std::vector<std::size_t>{0}));
}

TEST(ResultStore, ResumeKeepsFinishedPointsAndDropsATornLastLine) {
  const auto file = scratch_dir() / "s.jsonl";
  const std::string torn = line(3).substr(0, 10);
  write_bytes(file, header().dump() + "\n" + line(0) + "\n" + line(2) + "\n" + torn);
  ResultStore store(file, header(), true);
  EXPECT_EQ(store.done(), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(store.dropped_bytes(), torn.size());
  store.append({{3, line(3)}});
  EXPECT_EQ(read_bytes(file),
            header().dump() + "\n" + line(0) + "\n" + line(2) + "\n" + line(3) + "\n");
}

TEST(ResultStore, ChangedSpecIsRefused) {
  const auto file = scratch_dir() / "s.jsonl";
  { ResultStore store(file, header(5, "abc"), false); }
  try {
    ResultStore store(file, header(5, "def"), true);
    FAIL() << "a changed spec hash was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("spec_hash"), std::string::npos) << e.what();
  }
  EXPECT_THROW({ ResultStore s(file, header(6, "abc"), true); }, ConfigError);
}

TEST(ResultStore, CorruptionIsADataFormatError) {
  const auto dir = scratch_dir();
  write_bytes(dir / "a.jsonl", header().dump() + "\nnot json\n" + line(1) + "\n");
  EXPECT_THROW({ ResultStore s(dir / "a.jsonl", header(), true); }, DataFormatError);
  write_bytes(dir / "b.jsonl", header().dump() + "\n" + line(1) + "\n" + line(1) + "\n");
  EXPECT_THROW({ ResultStore s(dir / "b.jsonl", header(), true); }, DataFormatError);
  write_bytes(dir / "c.jsonl", header().dump() + "\n" + line(7) + "\n");
  EXPECT_THROW({ ResultStore s(dir / "c.jsonl", header(), true); }, DataFormatError);
}

TEST(ResultStore, SortPutsPointsInIndexOrder) {
  const auto file = scratch_dir() / "s.jsonl";
  ResultStore store(file, header(), false);
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
