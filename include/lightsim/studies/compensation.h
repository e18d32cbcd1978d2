// The compensation studies (../shared/SPEC.md sections 1.3 and 1.5; docs/studies.md
// "## enhancement", "## qat", "## balanced"):
//   enhancement  Monte-Carlo voting at 4-bit weights versus the number of votes M, with its
//                energy and latency, in conditions where the error is per-vote noise, static
//                (constant over the votes), or both; plus QAT vs PCA vs random projection on
//                held-out decode queries.
//   balanced     Recall@8 with balanced versus single-ended (drop-port) detection at equal
//                optical power, across laser powers from the configured one down to the
//                noise-limited regime.
// The seed's figures are read from configs/references/compensation_seed.yaml.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/units.h"
#include "lightsim/kv/generator.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/qat.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

// The seed's compensation figures; printed beside ours, never model inputs.
struct CompensationSeedReference {
  static constexpr std::string_view kind = "compensation_seed_reference";
  std::string source;
  int votes = 0;                     // Monte-Carlo runs per query
  int weight_bits = 0;               // bits of the voting figure
  double recall32_single = 0;        // Recall@32 before voting
  double recall32_voted = 0;         // Recall@32 after voting
  double balanced_recall8_gain = 0;  // Recall@8 balanced over single-ended, relative
  int balanced_k = 8;                // the k of that Recall@k
  static void describe(config::Schema<CompensationSeedReference>& s);
};

// QAT settings a study reads (qat.h QatOptions; the bits come from the accelerator).
struct QatStudySpec {
  static constexpr std::string_view kind = "qat_settings";
  int epochs = 60;
  std::int64_t batch = 8;
  double learning_rate = 0.05;   // relative to the RMS entry of P
  double temperature = 2.0;      // weight units
  bool train_with_noise = true;  // sigma from measure_score_noise on the accelerator
  static void describe(config::Schema<QatStudySpec>& s);
};

struct EnhancementStudySpec {
  static constexpr std::string_view kind = "enhancement_study";
  std::string description;
  prism::AcceleratorSpec accelerator;  // the bank; weight_bits is overridden by weight_bits
  kv::KvGeneratorSpec workload;        // decode queries: first half trains QAT, second half tests
  int weight_bits = 4;
  std::int64_t block_tokens = 128, sink_tokens = 4, recent_tokens = 512;
  std::int64_t top_k = 32;
  std::vector<std::int64_t> votes = {1, 2, 5, 10, 20, 50};
  // "noise" condition: the detector NEP raised until per-vote noise dominates (a stress
  // setting, not a device claim).
  PowerNoiseDensity stress_nep = PowerNoiseDensity::si(3e-11);
  // "static" condition: errors held over the votes (calibration residual and local drift).
  Length static_residual = Length::si(2e-12);
  Length static_drift = Length::si(10e-12);
  QatStudySpec qat;
  double tolerance = 0.05;  // |ours - seed| (Recall@32) within which a claim holds
  static void describe(config::Schema<EnhancementStudySpec>& s);
};

// Registers the study `enhancement` (its spec kind and its definition; runner.h).
void add_enhancement_study(Registry& registry);

struct BalancedStudySpec {
  static constexpr std::string_view kind = "balanced_study";
  std::string description;
  prism::AcceleratorSpec accelerator;  // detector.mode is set by the study (both modes)
  kv::KvGeneratorSpec workload;
  std::int64_t block_tokens = 128, sink_tokens = 4, recent_tokens = 512;
  std::int64_t top_k = 8;
  // Laser power per line relative to the accelerator's (the same for both modes: equal
  // optical power); the first entry is the claim's operating point.
  std::vector<double> power_scale = {1.0, 0.1, 0.01, 0.001};
  double tolerance = 0.1;  // relative deviation from the seed's gain within which it holds
  static void describe(config::Schema<BalancedStudySpec>& s);
};

// Registers the study `balanced` (its spec kind and its definition; runner.h).
void add_balanced_study(Registry& registry);

}  // namespace lightsim::studies
