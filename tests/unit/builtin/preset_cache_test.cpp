// The preset cache (lightsim/core/preset_cache.h) changes where documents come from, never
// what a read gives: every shipped config is checked with and without it, and the outcomes
// (the kind read, or the exception's type and message with its file:line:column) and the
// parsed documents (values and every location) must be identical. The second test shows the
// cache really is read instead of the disk, so the first compares two different paths.
#include "lightsim/core/preset_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <typeinfo>

#include "lightsim/builtin/register.h"
#include "lightsim/core/config.h"
#include "lightsim/core/registry.h"
#include "scratch_dir.h"
#include "shipped_configs.h"

namespace lightsim::config {
namespace {

// Every value, key, kind and location of a document, one line each.
void describe(const Node& node, std::string& out) {
  out += std::string(node.kind_name()) + " @" + node.location().str();
  if (node.is_scalar()) out += " '" + node.scalar() + "'";
  out += "\n";
  if (node.is_map())
    for (const auto& [key, value] : node.entries()) {
      out += "key " + key + " @" + node.key_location(key).str() + "\n";
      describe(value, out);
    }
  if (node.is_sequence())
    for (const Node& item : node.items()) describe(item, out);
}

std::string describe(const Node& node) {
  std::string out;
  describe(node, out);
  return out;
}

// What checking `file` gives: the kind read, or the exception's type and message.
std::string check_outcome(const Registry& registry, const std::filesystem::path& file,
                          const LoadOptions& load) {
  try {
    return "ok " + registry.check_file(file, load);
  } catch (const std::exception& e) {
    return std::string(typeid(e).name()) + ": " + e.what();
  }
}

std::string load_outcome(const std::filesystem::path& file, const LoadOptions& load) {
  try {
    return describe(load_document(file, load));
  } catch (const std::exception& e) {
    return std::string(typeid(e).name()) + ": " + e.what();
  }
}

TEST(PresetCache, EveryShippedConfigReadsTheSameWithAndWithoutIt) {
  Registry registry;
  register_builtin(registry);
  const LoadOptions plain = lightsim::testing::shipped_configs();
  LoadOptions cached = plain;
  cached.preset_cache = PresetCache::from_roots(plain.config_roots);
  ASSERT_GT(cached.preset_cache->size(), 100u);  // the shipped configs, parsed once

  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(plain.config_roots.front())) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json"))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::size_t checked_ok = 0;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    EXPECT_NE(cached.preset_cache->find(file), nullptr);  // each shipped file is cached
    const std::string without = check_outcome(registry, file, plain);
    EXPECT_EQ(check_outcome(registry, file, cached), without);
    EXPECT_EQ(load_outcome(file, cached), load_outcome(file, plain));
    if (without.starts_with("ok ")) ++checked_ok;
  }
  EXPECT_GT(checked_ok, 100u);  // most shipped configs are specs that check
}

TEST(PresetCache, IsReadInsteadOfTheDiskForTheExactPathOnly) {
  const auto root = lightsim::testing::scratch_dir() / "preset_cache";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "devices");
  const auto file = root / "devices" / "d.yaml";
  lightsim::testing::write_bytes(file, "a: 1\n");
  lightsim::testing::write_bytes(root / "devices" / "bad.yaml", "a: [\n");
  LoadOptions cached;
  cached.config_roots = {root};
  cached.preset_cache = PresetCache::from_roots(cached.config_roots);
  EXPECT_EQ(cached.preset_cache->size(), 1u);  // bad.yaml does not parse: not cached
  EXPECT_EQ(cached.preset_cache->find(root / "devices" / "bad.yaml"), nullptr);

  lightsim::testing::write_bytes(file, "a: 2\n");  // changed after the cache was filled
  EXPECT_EQ(load_document(file, cached).find("a")->scalar(), "1");         // from the cache
  EXPECT_EQ(load_document(file, LoadOptions{}).find("a")->scalar(), "2");  // from disk
  EXPECT_EQ(load_document(root / "devices" / "." / "d.yaml", cached).find("a")->scalar(), "2");
  EXPECT_THROW((void)load_document(root / "devices" / "bad.yaml", cached), ConfigError);
  // roots_only() (presets and references read without --set) keeps the cache.
  EXPECT_EQ(cached.roots_only().preset_cache, cached.preset_cache);
}

}  // namespace
}  // namespace lightsim::config
