// The `impairments` study (../shared/SPEC.md 1.4, seed table 3.1; docs/studies.md): Recall@k,
// mass recall and needle hits of the Prism scorer versus weight bits, ring drift, WDM
// crosstalk, detector NEP and splitter excess loss, each alone (everything else ideal) and
// combined (everything else at a nominal point), with and without compensation,
// against two truths: the ideal noiseless signature's top-k (projected space: hardware loss
// only, the seed's measure) and full-dimension attention (end-to-end loss).
//
// Compensation axis: `none`, `calibration` (closed-loop lock of the drift), `qat` (the
// projection trained through the quantizer and noise of the point, per (layer, KV head), on
// decode steps that are never evaluated) and `voting` (M Monte-Carlo evaluations per query),
// and '+'-joined combinations such as `calibration+qat+voting` (docs/studies.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/npy.h"
#include "lightsim/core/units.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/cache.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/projection.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/qat.h"
#include "lightsim/studies/compensation.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

// Values of each axis swept (each alone and on top of the combined point).
struct ImpairmentAxesSpec {
  static constexpr std::string_view kind = "impairment_axes";
  std::vector<std::int64_t> bits = {4, 5, 6, 7, 8};
  std::vector<Length> drift = {Length::si(10e-12), Length::si(20e-12), Length::si(40e-12),
                               Length::si(60e-12), Length::si(100e-12)};
  std::vector<Decibel> crosstalk = {Decibel::si(-15), Decibel::si(-20), Decibel::si(-25),
                                    Decibel::si(-30)};
  std::vector<PowerNoiseDensity> nep = {PowerNoiseDensity::si(1e-12), PowerNoiseDensity::si(5e-12),
                                        PowerNoiseDensity::si(10e-12),
                                        PowerNoiseDensity::si(20e-12)};
  std::vector<Decibel> splitter_excess = {Decibel::si(0.1), Decibel::si(0.2), Decibel::si(0.3)};
  static void describe(config::Schema<ImpairmentAxesSpec>& s);
};

// One value per axis: the combined operating point.
struct ImpairmentPointSpec {
  static constexpr std::string_view kind = "impairment_point";
  std::int64_t bits = 4;
  Length drift = Length::si(40e-12);
  Decibel crosstalk = Decibel::si(-20);
  PowerNoiseDensity nep = PowerNoiseDensity::si(5e-12);
  Decibel splitter_excess = Decibel::si(0.2);
  static void describe(config::Schema<ImpairmentPointSpec>& s);
};

struct ImpairmentsStudySpec {
  static constexpr std::string_view kind = "impairments_study";
  kv::KvGeneratorSpec workload;        // the synthetic cache (usually `preset: qwen2.5-7b`)
  prism::AcceleratorSpec accelerator;  // the machine (its impairments are replaced per point)
  std::int64_t block_tokens = 128;
  std::vector<std::int64_t> ks = {8, 32};
  std::string projection = "pca";  // kv_projection fitted once per head, shared by all points
  std::int64_t ideal_bits = 16;    // weight and query resolution of an "ideal" point
  ImpairmentAxesSpec axes;
  ImpairmentPointSpec combined;
  // Compensations ("none" or '+'-joined parts of calibration, qat, voting). Each runs at the
  // ideal-plus-one-axis points it acts on and at the combined nominal point; the combined
  // scenario's swept axes run those also in combined_axes_compensation.
  std::vector<std::string> compensation = {"none", "calibration"};
  std::vector<std::string> combined_axes_compensation = {"none", "calibration"};
  std::int64_t votes = 10;            // M of `voting` (priced M x energy and latency)
  std::int64_t qat_train_steps = 16;  // decode steps generated after `workload.steps` for QAT
  QatStudySpec qat;                   // QAT settings (the bits and noise come from the point)
  double tolerance = 0.05;            // |ours - seed| (recall) within which a claim holds
  double negligible_drop = 0.02;      // relative Recall@32 drop called negligible
  static void describe(config::Schema<ImpairmentsStudySpec>& s);
};

// The seed's table 3.1 (configs/references/impairments_seed.yaml); printed, never an input.
struct ImpairmentsSeedReference {
  static constexpr std::string_view kind = "impairments_seed_reference";
  std::string source;
  double recall32_8bit = 0, recall32_4bit = 0;
  Length drift_low = Length::si(10e-12);
  double recall32_drift_low = 0;
  Length drift_high = Length::si(40e-12);
  double recall32_drift_high = 0;
  double crosstalk_relative_drop = 0;
  Decibel nep_snr = Decibel::si(30);
  static void describe(config::Schema<ImpairmentsSeedReference>& s);
};

// Which impairments a point turns on (unset = ideal).
struct ImpairmentKnobs {
  std::optional<int> bits;                     // weight bits = DAC bits, DAC codes + errors on
  std::optional<Length> drift;                 // per-ring drift sigma through the ring response
  std::optional<Decibel> crosstalk;            // nearest-neighbour isolation of the WDM grid
  std::optional<PowerNoiseDensity> nep;        // detector NEP (noise on)
  std::optional<Decibel> splitter_excess;      // per 1x2 stage (noise on)
  std::optional<Length> calibration_residual;  // lock residual replacing the drift
};

// One value of the compensation axis: which compensations it applies.
struct Compensation {
  bool calibration = false;  // drift replaced by the closed-loop lock's residual
  bool qat = false;          // the QAT projection of the point's (bits, noise) state
  bool voting = false;       // selection.votes = M
  bool operator==(const Compensation&) const = default;
};
// "none" or '+'-joined distinct parts ("calibration+qat"); nullopt for anything else.
std::optional<Compensation> parse_compensation(std::string_view name);

// Whether every part of `c` acts on a point with `knobs`: calibration needs drift, qat
// quantized weights (bits), voting per-query detection noise (nep or splitter_excess).
// "none" acts everywhere.
bool compensation_acts(const Compensation& c, const ImpairmentKnobs& knobs);

// `base` with every impairment off and weights/queries at `ideal_bits`, then the knobs:
//   bits b: programming.weight_bits = device.dac.bits = b, DAC quantization and errors on
//     (the accelerator's INL/DNL/gain error with its calibration ROM), query bits as `base`;
//   drift: impairments.drift_local_sigma;
//   crosstalk X: impairments.crosstalk on, grid spacing = spacing_for_isolation(FWHM, X)
//     (Lorentzian tail of a neighbour, docs/photonics.md); the full crosstalk over all FSR
//     orders is what the kernel applies, so a comb wider than an FSR aliases honestly;
//   nep / splitter_excess: detection noise on with every term of the device (shot, thermal,
//     TIA, NEP, RIN, ADC), the value replacing the device's;
//   calibration_residual: the lock's residual (drift then 0).
prism::AcceleratorSpec impaired_accelerator(const prism::AcceleratorSpec& base,
                                            const ImpairmentKnobs& knobs, int ideal_bits);

// Closed-loop calibration of drift: each ring of a rows x d bank starts N(0, sigma) off its
// target and is locked by prism::calibrate_bank; the residual rms is over every ring, a ring
// that fails to lock (offset beyond the tuner's range) counting with its raw offset.
struct DriftCalibration {
  double residual_rms = 0;  // metres
  int rings = 0, failed = 0;
};
DriftCalibration calibrate_drift(const prism::AcceleratorSpec& accelerator, Length sigma, int rows,
                                 std::uint64_t seed);

// QAT of the impairments study. The workload is generated with workload.steps +
// qat_train_steps decode steps; the query streams are sequential per head, so the first
// workload.steps are the same queries as without QAT, and only those are evaluated.
struct QatTrainingSplit {
  kv::KvCache eval;                   // steps [0, eval_steps); keys and values moved in
  std::vector<prism::QatData> train;  // [layer * kv_heads + kv_head]: steps [eval_steps, steps)
};
// Splits `full` (eval_steps < its steps) as above; the QAT data use the block layout `blocks`.
QatTrainingSplit split_qat_training(kv::KvCache&& full, std::size_t eval_steps,
                                    const kv::BlockOptions& blocks, Context& ctx);

// QAT projections of every head ([layers, kv_heads, d, D]), each trained from its slice of
// `init` on its QatData with `options` (prism::train_qat; noise streams from ctx.seed() and
// the head). Heads in parallel; identical for any thread count.
NpyArray train_qat_projections(const std::vector<prism::QatData>& train, const NpyArray& init,
                               const prism::QatOptions& options, Context& ctx);

report::StudyResult run_impairments_study(const StudyInput& in, Context& ctx);
// Registers the study `impairments` (its spec kind and its definition; runner.h).
void add_impairments_study(Registry& registry);

}  // namespace lightsim::studies
