#include "lightsim/core/data_dir.h"

#include <cstdlib>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "scratch_dir.h"

namespace lightsim {
namespace {

using ::lightsim::testing::expect_error;
using ::lightsim::testing::scratch_dir;
using ::testing::ElementsAre;

// Sets $LIGHTSIM_DATA for one test (each test runs in a process of its own under ctest).
class DataDir : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv(kDataEnvironmentVariable); }
};

TEST_F(DataDir, CandidatesAreTheInstallLayoutThenThePythonPackage) {
  EXPECT_THAT(data_dir_candidates("/opt/ls/bin/lightsim"),
              ElementsAre("/opt/ls/share/lightsim", "/opt/ls/bin/data"));
  EXPECT_THAT(data_dir_candidates("/site/lightsim/_core.so"),
              ElementsAre("/site/share/lightsim", "/site/lightsim/data"));
}

// The test program lives in build/bin: build/share/lightsim is the source tree.
TEST_F(DataDir, TheBuildTreeFindsTheSourceTreeWithoutTheVariable) {
  unsetenv(kDataEnvironmentVariable);
  EXPECT_EQ(data_dir(), std::filesystem::canonical(LIGHTSIM_SOURCE_DIR));
  EXPECT_EQ(data_configs_dir(), std::filesystem::canonical(LIGHTSIM_SOURCE_DIR) / "configs");
}

TEST_F(DataDir, TheVariableWinsAndIsResolved) {
  const auto dir = scratch_dir();
  std::filesystem::create_directories(dir / "data" / "configs");
  std::filesystem::create_directory_symlink(dir / "data", dir / "link");
  setenv(kDataEnvironmentVariable, (dir / "link").c_str(), 1);
  EXPECT_EQ(data_dir(), std::filesystem::canonical(dir / "data"));
  // Empty counts as unset.
  setenv(kDataEnvironmentVariable, "", 1);
  EXPECT_EQ(data_dir(), std::filesystem::canonical(LIGHTSIM_SOURCE_DIR));
}

TEST_F(DataDir, AVariableNamingNoDataFolderIsAnInputErrorNamingIt) {
  const auto dir = scratch_dir();
  setenv(kDataEnvironmentVariable, dir.c_str(), 1);
  expect_error<InputError>([] { (void)data_dir(); },
                           {"LIGHTSIM_DATA=", dir.string(), "configs", "is not a folder"});
  setenv(kDataEnvironmentVariable, "/no/such/folder", 1);
  expect_error<InputError>([] { (void)data_configs_dir(); }, {"LIGHTSIM_DATA=/no/such/folder"});
}

}  // namespace
}  // namespace lightsim
