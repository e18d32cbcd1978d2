// The impairments study's compensation axis: parsing its values, where each acts, QAT on
// held-out decode steps (the projection changes and recalls more attention mass at 4 bits than
// its PCA start, by a margin), voting with M = 1 equal to no compensation bit for bit, and the
// config check naming a bad value.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "lightsim/core/context.h"
#include "lightsim/core/error.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer_specs.h"
#include "lightsim/prism/scorer.h"
#include "lightsim/studies/impairments.h"
#include "shipped_configs.h"

namespace lightsim::studies {
namespace {

std::filesystem::path study_config() {
  return std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/studies/impairments.yaml";
}

TEST(Compensation, ParsesNamesAndCombinations) {
  EXPECT_EQ(parse_compensation("none"), Compensation{});
  const auto all = parse_compensation("calibration+qat+voting");
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->calibration && all->qat && all->voting);
  const auto qv = parse_compensation("voting+qat");
  ASSERT_TRUE(qv);
  EXPECT_TRUE(qv->qat && qv->voting && !qv->calibration);
  for (const char* bad : {"", "magic", "qat+qat", "none+qat", "qat+", "+qat", "QAT"})
    EXPECT_FALSE(parse_compensation(bad)) << bad;
}

TEST(Compensation, ActsWhereItsImpairmentIs) {
  ImpairmentKnobs drift, bits, nep, all;
  drift.drift = Length::si(10e-12);
  bits.bits = 4;
  nep.nep = PowerNoiseDensity::si(5e-12);
  all = drift;
  all.bits = 4;
  all.splitter_excess = Decibel::si(0.2);
  const Compensation cal = *parse_compensation("calibration"), qat = *parse_compensation("qat"),
                     vote = *parse_compensation("voting"),
                     every = *parse_compensation("calibration+qat+voting");
  EXPECT_TRUE(compensation_acts(Compensation{}, ImpairmentKnobs{}));
  EXPECT_TRUE(compensation_acts(cal, drift) && !compensation_acts(cal, bits));
  EXPECT_TRUE(compensation_acts(qat, bits) && !compensation_acts(qat, drift));
  EXPECT_TRUE(compensation_acts(vote, nep) && !compensation_acts(vote, bits));
  EXPECT_TRUE(compensation_acts(every, all) && !compensation_acts(every, drift));
}

TEST(Compensation, ConfigCheckNamesAnUnknownValue) {
  config::LoadOptions load = testing::shipped_configs();
  load.assignments = {"compensation=[none, magic]"};
  const StudyInput in = make_input("impairments", study_config(), load, Size::quick);
  try {
    (void)config::read_spec<ImpairmentsStudySpec>(in.document, in.load);
    FAIL() << "an unknown compensation was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("compensation[1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("magic"), std::string::npos) << e.what();
  }
  load.assignments = {"combined_axes_compensation=[qat]", "compensation=[none]"};
  const StudyInput in2 = make_input("impairments", study_config(), load, Size::quick);
  EXPECT_THROW((void)config::read_spec<ImpairmentsStudySpec>(in2.document, in2.load), ConfigError);
}

// QAT on a held-out split at 4-bit weights (no noise, as on the study's "bits alone" axis):
// the trained projection differs from its PCA start and recalls more attention mass on decode
// steps it never saw, through the Prism scorer.
TEST(Compensation, QatChangesTheProjectionAndImprovesMassRecallAtFourBits) {
  kv::KvGeneratorSpec w;
  w.model = "impairments-qat-test";
  w.model_layers = 1;
  w.kv_heads = 2;
  w.q_heads = 4;
  w.tokens = 8192;
  w.steps = 32;  // 16 evaluated + 16 training
  w.dtype = "float32";
  Context ctx(ContextOptions{.seed = 3, .threads = 2});
  kv::EvalOptions ro;
  ro.ks = {8};
  ro.output_error = false;
  QatTrainingSplit split = split_qat_training(kv::generate_kv_cache(w, ctx), 16, ro.blocks, ctx);
  ASSERT_EQ(split.eval.geometry().steps, 16u);
  ASSERT_EQ(split.train.size(), 2u);
  EXPECT_EQ(split.train[0].steps.front(), 16u);
  const auto pca = std::make_shared<const NpyArray>(
      kv::fit_head_projections(split.eval, kv::standard_projection("pca"), 32, ctx));

  ImpairmentKnobs four;
  four.bits = 4;
  const prism::AcceleratorSpec base =
      prism::load_accelerator("seed_fit", testing::shipped_configs());
  const prism::AcceleratorSpec a = impaired_accelerator(base, four, 16);
  prism::QatOptions o = prism::qat_options_for(a);
  EXPECT_EQ(o.weight_bits, 4);
  const auto qat =
      std::make_shared<const NpyArray>(train_qat_projections(split.train, *pca, o, ctx));
  ASSERT_EQ(qat->shape, pca->shape);
  double change = 0;
  for (std::size_t i = 0; i < qat->values.size(); ++i)
    change += std::abs(qat->values[i] - pca->values[i]);
  EXPECT_GT(change / static_cast<double>(qat->values.size()), 1e-3);

  std::vector<kv::ScorerSetup> setups;
  for (const auto& p : {pca, qat})
    setups.push_back({"prism", prism::prism_scorer(a, kv::learned_projection(p))});
  const kv::EvalReport rep = kv::evaluate(split.eval, setups, ro, ctx);
  const double m_pca = rep.scorers[0].per_k[0].mass_recall.mean,
               m_qat = rep.scorers[1].per_k[0].mass_recall.mean;
  EXPECT_GT(m_qat, m_pca + 0.05) << "PCA " << m_pca << ", QAT " << m_qat;
}

// Voting with M = 1 is a single evaluation: every metric of every voting row equals the
// uncompensated row of the same point exactly, and the price is one query's.
TEST(Compensation, VotingWithOneVoteEqualsNoneBitForBit) {
  config::LoadOptions load = testing::shipped_configs();
  load.assignments = {"compensation=[none, voting]", "combined_axes_compensation=[none]",
                      "votes=1"};
  const StudyInput in = make_input("impairments", study_config(), load, Size::quick);
  Context ctx(ContextOptions{.seed = 0, .threads = 2});
  const report::StudyResult r = run_impairments_study(in, ctx);
  const Table* t = nullptr;
  for (const report::NamedTable& x : r.tables)
    if (x.name == "points") t = &x.table;
  ASSERT_NE(t, nullptr);
  auto col = [&](const std::string& name) {
    for (std::size_t i = 0; i < t->column_count(); ++i)
      if (t->columns()[i].name == name) return i;
    ADD_FAILURE() << "no column " << name;
    return std::size_t{0};
  };
  const std::size_t comp = col("compensation");
  std::size_t compared = 0;
  for (const auto& v : t->rows()) {
    if (v[comp] != Cell{std::string("voting")}) continue;
    for (const auto& n : t->rows()) {
      if (n[comp] != Cell{std::string("none")}) continue;
      bool same_point = true;
      for (const char* key : {"scenario", "axis", "value", "k"})
        same_point = same_point && n[col(key)] == v[col(key)];
      if (!same_point) continue;
      for (const char* key : {"recall_projected", "recall_full", "mass_recall", "needle_hit",
                              "needle_hit_union", "fetched_fraction", "energy_nj", "latency_ns"})
        EXPECT_TRUE(n[col(key)] == v[col(key)]) << key;
      ++compared;
    }
  }
  EXPECT_GE(compared, 8u);  // nep and splitter alone, the combined nominal point and drift axis
}

}  // namespace
}  // namespace lightsim::studies
