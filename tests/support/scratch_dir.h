// Test helper: a fresh, empty scratch directory per test under LIGHTSIM_TEST_TMPDIR.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace lightsim::testing {

// <LIGHTSIM_TEST_TMPDIR>/<suite>.<test>, emptied on creation.
inline std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::path(LIGHTSIM_TEST_TMPDIR) /
                              (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::vector<std::string> list_dir(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline void write_bytes(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs `action`, expects it to throw `E` whose message contains every one of `parts`.
template <typename E, typename F>
void expect_error(F&& action, std::initializer_list<std::string_view> parts) {
  try {
    action();
    ADD_FAILURE() << "no exception thrown";
  } catch (const E& e) {
    std::string what = e.what();
    for (std::string_view part : parts) {
      EXPECT_NE(what.find(part), std::string::npos) << "missing '" << part << "' in: " << what;
    }
  }
}

}  // namespace lightsim::testing
