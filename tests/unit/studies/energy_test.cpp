// The energy study's models: its FAISS spec mapped to kv's bytes-touched model (tested in
// tests/unit/kv/ivfpq_test.cpp; the memory reads in tests/unit/fabric/memory_test.cpp), and
// Prism beyond the largest accelerator reported as infeasible.
#include "lightsim/studies/energy.h"

#include <string>
#include <vector>

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "lightsim/core/context.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/studies/design.h"
#include "lightsim/studies/study.h"
#include "shipped_configs.h"

namespace lightsim::studies {
namespace {

// The FAISS baseline's spec reaches kv's bytes-touched model unchanged.
TEST(EnergyFaiss, SpecMapsToTheModelsOptions) {
  EnergyFaissSpec spec;
  spec.nlist = 32;
  spec.nprobe = 4;
  const kv::IvfPqTouchOptions o = ivfpq_options(spec);
  EXPECT_EQ(o.nlist, 32u);
  EXPECT_EQ(o.pq_m, 16u);
  EXPECT_EQ(o.pq_nbits, 8u);
  EXPECT_EQ(o.nprobe, 4u);
}

TEST(EnergyPrism, BeyondTheLargestAcceleratorIsInfeasibleNotClamped) {
  const config::LoadOptions load = testing::shipped_configs();
  std::vector<std::pair<std::string, prism::AcceleratorSpec>> accels = {
      {"seed", prism::load_accelerator("seed", load)},
      {"scaled", prism::load_accelerator("scaled", load)}};
  const PrismAtContext small = prism_at(128, accels);
  ASSERT_TRUE(small.fits);
  EXPECT_EQ(small.accelerator, "seed");
  EXPECT_EQ(small.cost.timeline.passes, 1);
  const PrismAtContext mid = prism_at(4096, accels);  // > 256 rows: the scaled preset
  ASSERT_TRUE(mid.fits);
  EXPECT_EQ(mid.accelerator, "scaled");
  EXPECT_EQ(mid.cost.timeline.passes, 4);  // 4096 / 1024 physical rows
  EXPECT_GT(mid.cost.dynamic_energy, small.cost.dynamic_energy);
  const PrismAtContext full = prism_at(8192, accels);
  ASSERT_TRUE(full.fits);
  EXPECT_EQ(full.cost.timeline.passes, 8);
  const PrismAtContext beyond = prism_at(8193, accels);
  EXPECT_FALSE(beyond.fits);
  EXPECT_NE(beyond.reason.find("8193 blocks"), std::string::npos) << beyond.reason;
  EXPECT_NE(beyond.reason.find("scaled"), std::string::npos) << beyond.reason;
}

// The message of reading `study`'s shipped config at quick size with `assignments`, "" when
// it reads.
template <class Spec>
std::string spec_error(const std::string& study, std::vector<std::string> assignments) {
  config::LoadOptions load = testing::shipped_configs();
  load.assignments = std::move(assignments);
  const StudyInput in = make_input(
      study, std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/studies" / (study + ".yaml"),
      load, Size::quick);
  try {
    (void)config::read_spec<Spec>(in.document, in.load);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// The scorer options whose ranges depend on the workload's cache are spec rules (run before
// anything is generated), naming the spec key, the value and the range, as `kv select` names
// its flags (kv::check_faiss_ivfpq).
TEST(StudySpecRules, EnergyFaissOptionsAreCheckedAgainstTheWorkload) {
  EXPECT_EQ(spec_error<EnergyStudySpec>("energy", {}), "");
  const std::string pq_m = spec_error<EnergyStudySpec>("energy", {"faiss.pq_m=12"});
  EXPECT_NE(pq_m.find("faiss.pq_m: 12 does not divide this cache's head_dim 128"),
            std::string::npos)
      << pq_m;
  EXPECT_NE(pq_m.find("workload.head_dim"), std::string::npos) << pq_m;
  // quick: contexts 4096, 32768 and 131072 (all indexed): 32 block mean keys at 4096.
  const std::string nlist = spec_error<EnergyStudySpec>("energy", {"faiss.nlist=33"});
  EXPECT_NE(nlist.find("faiss.nlist: 33 is out of range [0, 32] for this cache"), std::string::npos)
      << nlist;
  EXPECT_EQ(spec_error<EnergyStudySpec>("energy", {"faiss.nlist=32", "faiss.nprobe=32"}), "");
  const std::string nprobe =
      spec_error<EnergyStudySpec>("energy", {"faiss.nlist=16", "faiss.nprobe=17"});
  EXPECT_NE(nprobe.find("faiss.nprobe: 17 is out of range [1, 16]"), std::string::npos) << nprobe;
}

TEST(StudySpecRules, PrismDesignOptionsAreCheckedAgainstTheWorkload) {
  EXPECT_EQ(spec_error<DesignStudySpec>("prism_design", {}), "");
  const std::string pq_m = spec_error<DesignStudySpec>("prism_design", {"baselines.faiss.pq_m=5"});
  EXPECT_NE(pq_m.find("baselines.faiss.pq_m: 5 does not divide this cache's head_dim 128"),
            std::string::npos)
      << pq_m;
  const std::string nlist =
      spec_error<DesignStudySpec>("prism_design", {"baselines.faiss.nlist=9000"});
  EXPECT_NE(nlist.find("baselines.faiss.nlist: 9000 is out of range [0, 8192]"), std::string::npos)
      << nlist;
  const std::string dim = spec_error<DesignStudySpec>("prism_design", {"design.space.dim=[256]"});
  EXPECT_NE(dim.find("space.dim: 256 is out of range [1, 128]"), std::string::npos) << dim;
  // 8192 tokens in blocks of 128: 64 blocks.
  const std::string k = spec_error<DesignStudySpec>("prism_design", {"design.space.top_k=[65]"});
  EXPECT_NE(k.find("space.top_k: 65 is out of range [1, 64]"), std::string::npos) << k;
}

}  // namespace
}  // namespace lightsim::studies
