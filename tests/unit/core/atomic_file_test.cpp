#include "lightsim/core/atomic_file.h"

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "scratch_dir.h"

namespace lightsim {
namespace {

using ::lightsim::testing::expect_error;
using ::lightsim::testing::list_dir;
using ::lightsim::testing::read_bytes;
using ::lightsim::testing::scratch_dir;
using ::testing::ElementsAre;

TEST(AtomicFile, WritesContentAndLeavesNoTempFile) {
  auto dir = scratch_dir();
  write_file_atomic(dir / "out.txt", "hello\n");
  EXPECT_EQ(read_bytes(dir / "out.txt"), "hello\n");
  EXPECT_THAT(list_dir(dir), ElementsAre("out.txt"));
}

TEST(AtomicFile, OverwritesExistingFileWhole) {
  auto dir = scratch_dir();
  write_file_atomic(dir / "out.txt", std::string(10000, 'a'));
  write_file_atomic(dir / "out.txt", "short");
  EXPECT_EQ(read_bytes(dir / "out.txt"), "short");
  EXPECT_THAT(list_dir(dir), ElementsAre("out.txt"));
}

TEST(AtomicFile, TargetUnchangedUntilCommit) {
  auto dir = scratch_dir();
  write_file_atomic(dir / "out.txt", "old");
  AtomicFile file(dir / "out.txt");
  file.write("new ");
  file.write("content");
  EXPECT_EQ(read_bytes(dir / "out.txt"), "old");
  EXPECT_EQ(file.temp_path().parent_path(), dir);
  EXPECT_TRUE(std::filesystem::exists(file.temp_path()));
  file.commit();
  EXPECT_EQ(read_bytes(dir / "out.txt"), "new content");
  EXPECT_THAT(list_dir(dir), ElementsAre("out.txt"));
}

TEST(AtomicFile, AbandonedWriteRemovesTempAndKeepsOldFile) {
  auto dir = scratch_dir();
  write_file_atomic(dir / "out.txt", "old");
  {
    AtomicFile file(dir / "out.txt");
    file.write("partial");
  }
  EXPECT_EQ(read_bytes(dir / "out.txt"), "old");
  EXPECT_THAT(list_dir(dir), ElementsAre("out.txt"));
  {
    AtomicFile file(dir / "never.txt");
    file.write("partial");
  }
  EXPECT_THAT(list_dir(dir), ElementsAre("out.txt"));
}

TEST(AtomicFile, MissingDirectoryThrowsIoErrorWithPathAndReason) {
  auto dir = scratch_dir();
  expect_error<IoError>([&] { write_file_atomic(dir / "no" / "such" / "out.txt", "x"); },
                        {"out.txt", "No such file or directory"});
}

TEST(AtomicFile, TargetThatIsADirectoryFailsAtCommitAndCleansUp) {
  auto dir = scratch_dir();
  std::filesystem::create_directories(dir / "taken" / "child");
  expect_error<IoError>([&] { write_file_atomic(dir / "taken", "x"); }, {"taken", "rename"});
  EXPECT_THAT(list_dir(dir), ElementsAre("taken"));
}

TEST(PrepareOutputDir, CreatesParentsAndLeavesNoProbe) {
  auto dir = scratch_dir();
  prepare_output_dir(dir / "a" / "b");
  EXPECT_TRUE(std::filesystem::is_directory(dir / "a" / "b"));
  EXPECT_TRUE(list_dir(dir / "a" / "b").empty());
  prepare_output_dir(dir / "a" / "b");  // existing is fine
}

TEST(PrepareOutputDir, PathUnderARegularFileIsInputError) {
  auto dir = scratch_dir();
  write_file_atomic(dir / "file", "x");
  expect_error<InputError>([&] { prepare_output_dir(dir / "file" / "out"); },
                           {"output directory '", "file/out", "is not writable: "});
  expect_error<InputError>([&] { prepare_output_dir(dir / "file"); },
                           {"file", "is not writable: "});
}

TEST(PrepareOutputDir, ReadOnlyDirectoryIsInputError) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: permission bits do not stop root";
  auto dir = scratch_dir();
  std::filesystem::create_directories(dir / "ro");
  std::filesystem::permissions(
      dir / "ro", std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  expect_error<InputError>([&] { prepare_output_dir(dir / "ro"); },
                           {"is not writable: ", "Permission denied"});
  std::filesystem::permissions(dir / "ro", std::filesystem::perms::owner_all);
}

}  // namespace
}  // namespace lightsim
