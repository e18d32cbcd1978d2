// Spec descriptions of the accelerator and its sub-specs (see accelerator.h).
#include "lightsim/prism/accelerator.h"

#include "lightsim/core/config_files.h"

#include <filesystem>

#include <fmt/format.h>

#include "lightsim/core/error.h"

namespace lightsim::prism {

void ProgrammingSpec::describe(config::Schema<ProgrammingSpec>& s) {
  s.help("How block signatures become ring weights and what reprogramming costs.");
  s.field("weight_bits", &ProgrammingSpec::weight_bits,
          "digital weight quantization before the DAC, at the level count of weight_levels")
      .range(2, 24);
  s.enumeration(
      "weight_levels", &ProgrammingSpec::weight_levels,
      {{"zero_centred", WeightLevels::zero_centred}, {"all_codes", WeightLevels::all_codes}},
      "level count of the weight quantizer: zero_centred = 2^bits - 1 levels "
      "round(w s) / s, s = 2^(bits-1) - 1 (zero is a level; the seed's QAT rule, so "
      "2 bits give 3 levels); all_codes = all 2^bits levels -1 + 2 k / (2^bits - 1) "
      "(no zero level)");
  s.enumeration(
      "banks", &ProgrammingSpec::banks,
      {{"per_kv_head", BankSharing::per_kv_head}, {"time_shared", BankSharing::time_shared}},
      "GQA mapping: one bank per KV head, or one bank reprogrammed for each KV head");
  s.field("kv_heads", &ProgrammingSpec::kv_heads, "KV heads the accelerator serves per layer")
      .range(1, 1024);
  s.field("block_tokens", &ProgrammingSpec::block_tokens,
          "tokens per KV block; a completed block programs one row (d rings)")
      .range(1, 1 << 20);
  s.field("ring_capacitance", &ProgrammingSpec::ring_capacitance,
          "electrode plus wiring capacitance a weight driver charges per switch (C V^2)")
      .min("0 F");
  s.field("ring_settling", &ProgrammingSpec::ring_settling,
          "time for a weight DAC and ring electrode to settle after a new code")
      .min("0 s");
}

void SelectionSpec::describe(config::Schema<SelectionSpec>& s) {
  s.help("Digital interface: top-k over the ADC outputs and the optional exact re-rank.");
  s.field("top_k", &SelectionSpec::top_k, "blocks selected per query (k)").range(1, 1 << 20);
  s.field("rerank_k", &SelectionSpec::rerank_k,
          "0 = none; else the top k' > k by the optical score are re-scored digitally with "
          "exact signatures and the best k kept")
      .range(0, 1 << 20);
  s.field("votes", &SelectionSpec::votes,
          "Monte-Carlo votes per query: the query is scored this many times with fresh "
          "detector noise and blocks are ranked by how often they reach the top k "
          "(1 = a single evaluation; each vote costs one more query pass)")
      .range(1, 4096);
  s.field("comparator_delay", &SelectionSpec::comparator_delay,
          "delay of one compare-and-swap stage of the top-k merge tree")
      .positive();
  s.field("comparator_energy", &SelectionSpec::comparator_energy,
          "energy of one compare-and-swap (ADC-width words)")
      .min("0 J");
  s.field("mac_energy", &SelectionSpec::mac_energy, "energy per multiply-accumulate of the re-rank")
      .min("0 J");
  s.field("sram_energy", &SelectionSpec::sram_energy,
          "energy per byte read of the exact signatures for the re-rank")
      .min("0 J/B");
  s.field("signature_bytes", &SelectionSpec::signature_bytes, "bytes per stored signature element")
      .range(0.125, 16.0);
  s.field("mac_delay", &SelectionSpec::mac_delay,
          "re-rank time per candidate (its d MACs in parallel)")
      .min("0 s");
  s.rule([](const SelectionSpec& v) -> std::optional<std::string> {
    if (v.rerank_k != 0 && v.rerank_k <= v.top_k)
      return fmt::format("rerank_k ({}) must be 0 or larger than top_k ({})", v.rerank_k, v.top_k);
    return std::nullopt;
  });
}

void ElectronicsSpec::describe(config::Schema<ElectronicsSpec>& s) {
  s.help("Converters, drivers and amplifiers around the bank: energy and timing parameters.");
  s.enumeration("query_encoding", &ElectronicsSpec::query_encoding,
                {{"intensity", QueryEncoding::intensity}, {"balanced", QueryEncoding::balanced}},
                "query encoding: intensity = (1 + u) / 2 in [0, 1] with the offset removed "
                "digitally; balanced = the complementary drives (1 + u) / 2 and (1 - u) / 2 of a "
                "balanced MZM in two integration windows, their difference the signed sum_j "
                "w_j u_j (twice the windows, modulator symbols, detector and ADC conversions)");
  s.field("query_bits", &ElectronicsSpec::query_bits,
          "resolution of the DAC driving each query modulator")
      .range(1, 24);
  s.field("query_dac_step", &ElectronicsSpec::query_dac_step,
          "query DAC energy per conversion step, E = step 2^bits (8 b 14 GS/s 50 mW DAC: "
          "3.57 pJ / 256 = 14 fJ)")
      .min("0 J");
  s.field("query_dac_bandwidth", &ElectronicsSpec::query_dac_bandwidth,
          "query DAC small-signal bandwidth; settling to 1/2 LSB takes ln(2^(b+1)) / (2 pi f)")
      .positive();
  s.field("modulator_energy", &ElectronicsSpec::modulator_energy,
          "drive energy per symbol of one query modulator")
      .min("0 J");
  s.field("modulator_bandwidth", &ElectronicsSpec::modulator_bandwidth,
          "modulator electro-optic bandwidth; 10-90% rise time 0.35 / f")
      .positive();
  s.field("weight_dac_step", &ElectronicsSpec::weight_dac_step,
          "weight DAC energy per conversion step, E = step 2^bits")
      .min("0 J");
  s.field("tia_power", &ElectronicsSpec::tia_power,
          "power of one TIA while it integrates (~3 mW at 5 GHz scaled to 1 GHz)")
      .min("0 W");
  s.field("adc_step", &ElectronicsSpec::adc_step,
          "ADC Walden figure of merit, energy per conversion step: E = step 2^bits (8 b "
          "10 GS/s 14.8 mW: 1.48 pJ / 256 = 5.8 fJ)")
      .min("0 J");
  s.field("adc_sample_rate", &ElectronicsSpec::adc_sample_rate, "conversions per second per ADC")
      .positive();
  s.field("rows_per_adc", &ElectronicsSpec::rows_per_adc,
          "rows sharing one ADC (conversions in series per pass)")
      .range(1, 1 << 20);
  s.field("pd_bias", &ElectronicsSpec::pd_bias, "photodiode reverse bias").min("0 V");
  s.field("laser_gated", &ElectronicsSpec::laser_gated,
          "true: the laser is on only while a pass needs light; false: it is static power");
  s.field("pipelined", &ElectronicsSpec::pipelined,
          "true: back-to-back queries overlap where the stages use different hardware");
}

void InterposerSpec::describe(config::Schema<InterposerSpec>& s) {
  s.help("Multi-chip fan-out of the modulated comb over a silicon-photonic interposer.");
  s.field("chips", &InterposerSpec::chips, "chips sharing one query").range(1, 4096);
  s.enumeration("topology", &InterposerSpec::topology,
                {{"chain", FanoutTopology::chain}, {"tree", FanoutTopology::tree}},
                "fan-out: chain (chips - 1 hops to the last) or binary tree (ceil log2 chips)");
  s.field("hop_loss", &InterposerSpec::hop_loss, "insertion loss per hop (seed: 3 dB)")
      .range("0 dB", "60 dB");
  s.field("hop_length", &InterposerSpec::hop_length, "optical path length per hop").min("0 m");
  s.field("group_index", &InterposerSpec::group_index, "group index along the hop")
      .range(1.0, 10.0);
  s.field("link_latency", &InterposerSpec::link_latency,
          "electrical latency per hop returning a chip's top-k for the merge")
      .min("0 s");
}

void AreaSpec::describe(config::Schema<AreaSpec>& s) {
  s.help("Area of each component; the chip area is derived from the counts.");
  s.field("ring_pitch", &AreaSpec::ring_pitch, "centre-to-centre spacing of rings (square cell)")
      .positive();
  s.field("dac_area", &AreaSpec::dac_area, "per weight-DAC channel (seed: 0.01 mm^2)").min("0 m^2");
  s.field("tia_area", &AreaSpec::tia_area, "per TIA").min("0 m^2");
  s.field("adc_area", &AreaSpec::adc_area, "per ADC").min("0 m^2");
  s.field("modulator_area", &AreaSpec::modulator_area, "per query modulator").min("0 m^2");
  s.field("waveguide_pitch", &AreaSpec::waveguide_pitch, "width taken by one routed waveguide")
      .positive();
  s.field("reticle_limit", &AreaSpec::reticle_limit,
          "largest die one exposure field prints: 26 mm x 33 mm = 858 mm^2 on 193i/EUV "
          "step-and-scan tools; a larger die per chip is infeasible without stitching")
      .positive();
  s.field("defect_density", &AreaSpec::defect_density,
          "random defects per cm^2 for the yield model (0.1: TSMC N5 at volume ramp, "
          "AnandTech 2020; a photonics process is likely worse)")
      .range(0.0, 100.0);
  s.field("defect_clustering", &AreaSpec::defect_clustering,
          "negative-binomial clustering parameter alpha (0.5-2 for mature processes; large "
          "alpha tends to the Poisson yield)")
      .range(0.01, 1e6);
}

void AcceleratorSpec::describe(config::Schema<AcceleratorSpec>& s) {
  s.help(
      "The Prism accelerator: a photonic weight bank (device) with programming, top-k "
      "selection, electronics, multi-chip fan-out and area.");
  s.field("description", &AcceleratorSpec::description,
          "what this accelerator is and where its numbers come from");
  s.field("device", &AcceleratorSpec::device,
          "the weight bank (photonics device; `preset: NAME` reads configs/devices/NAME.yaml); "
          "bank.rows = physical rows per chip");
  s.field("logical_rows", &AcceleratorSpec::logical_rows,
          "blocks scored per query; more than physical rows x chips means time multiplexing "
          "(0 = physical rows x chips)")
      .range(0, 1 << 24);
  s.field("programming", &AcceleratorSpec::programming, "signatures to weights, reprogramming");
  s.field("selection", &AcceleratorSpec::selection, "top-k and re-rank");
  s.field("electronics", &AcceleratorSpec::electronics, "converters, drivers, amplifiers");
  s.field("interposer", &AcceleratorSpec::interposer, "multi-chip fan-out");
  s.field("area", &AcceleratorSpec::area, "component areas");
  s.field("impairments", &AcceleratorSpec::impairments,
          "impairments the Prism scorer draws for each bank (one Monte-Carlo state per KV head)");
  s.field("thermal", &AcceleratorSpec::thermal,
          "package, two-stage TEC, temperature sensors, supply noise and clock (docs/thermal.md)");
  s.field("calibration", &AcceleratorSpec::calibration,
          "closed-loop bias calibration of every ring (docs/thermal.md)");
  s.rule([](const AcceleratorSpec& a) -> std::optional<std::string> {
    if (a.selection.top_k > scored_rows(a))
      return fmt::format("selection.top_k ({}) exceeds the logical rows ({})", a.selection.top_k,
                         scored_rows(a));
    if (a.selection.rerank_k > scored_rows(a))
      return fmt::format("selection.rerank_k ({}) exceeds the logical rows ({})",
                         a.selection.rerank_k, scored_rows(a));
    return std::nullopt;
  });
}

int physical_rows(const AcceleratorSpec& a) {
  return a.device.bank.rows;
}

int scored_rows(const AcceleratorSpec& a) {
  return a.logical_rows > 0 ? a.logical_rows : physical_rows(a) * a.interposer.chips;
}

int passes(const AcceleratorSpec& a) {
  const int per_pass = physical_rows(a) * a.interposer.chips;
  return (scored_rows(a) + per_pass - 1) / per_pass;
}

int rails(const AcceleratorSpec& a) {
  return a.electronics.query_encoding == QueryEncoding::balanced ? 2 : 1;
}

AcceleratorSpec load_accelerator(const std::string& name_or_file,
                                 const config::LoadOptions& options) {
  return config::load_spec<AcceleratorSpec>(
      config::find_named(name_or_file, AcceleratorSpec::preset_dir, options, "accelerator"),
      options);
}

std::string to_string(BankSharing b) {
  return b == BankSharing::per_kv_head ? "per_kv_head" : "time_shared";
}

std::string to_string(WeightLevels l) {
  return l == WeightLevels::zero_centred ? "zero_centred" : "all_codes";
}

std::string to_string(QueryEncoding e) {
  return e == QueryEncoding::intensity ? "intensity" : "balanced";
}

std::string to_string(FanoutTopology t) {
  return t == FanoutTopology::chain ? "chain" : "tree";
}

}  // namespace lightsim::prism
