// The Prism accelerator as one machine (../shared/SPEC.md sections 1.2, 1.3, 1.7): a photonic
// weight bank (a photonics::DeviceSpec, nested or by preset; never duplicated here) plus what
// turns it into a KV block selector: weight and query quantization, time multiplexing of
// logical rows over physical rows, multi-chip fan-out over an interposer, the programming
// policy, the digital top-k interface and the electronics that set energy, latency and area.
// Presets live in configs/accelerators/ (`preset: seed`). docs/prism.md gives the equations.
#pragma once

#include <string>
#include <string_view>

#include "lightsim/core/config.h"
#include "lightsim/core/units.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {

// How GQA is mapped onto banks: one bank per KV head (each head's signatures stay programmed)
// or one bank time-shared by every KV head (reprogrammed when the head changes).
enum class BankSharing { per_kv_head, time_shared };

// Level count of the digital weight quantizer (programming.h, quantize_weight):
// zero_centred: 2^b - 1 levels round(w s) / s, s = 2^(b-1) - 1 (zero is a level; the seed's QAT
// rule); all_codes: all 2^b levels, -1 + 2 k / (2^b - 1), k = 0 .. 2^b - 1 (no zero level).
enum class WeightLevels { zero_centred, all_codes };

// Signatures -> ring weights, and what reprogramming costs.
struct ProgrammingSpec {
  static constexpr std::string_view kind = "programming";
  int weight_bits = 5;  // digital weight quantization (weight_levels)
  WeightLevels weight_levels = WeightLevels::zero_centred;
  BankSharing banks = BankSharing::per_kv_head;
  int kv_heads = 8;        // KV heads served (one bank each, or sharing one bank)
  int block_tokens = 128;  // tokens per KV block: a block's signature is final after these
  Capacitance ring_capacitance = Capacitance::si(20e-15);  // Pockels electrode + driver wiring
  Time ring_settling = Time::si(1e-9);                     // weight DAC + electrode settling
  static void describe(config::Schema<ProgrammingSpec>& s);
};

// The digital interface after the ADCs: top-k and the optional exact re-rank of k' > k.
struct SelectionSpec {
  static constexpr std::string_view kind = "selection";
  int top_k = 32;
  int rerank_k = 0;  // 0 = no re-rank; else the top k' (> k) are re-scored digitally, exactly
  int votes = 1;     // Monte-Carlo votes per query (voting.h); 1 = a single evaluation
  Time comparator_delay = Time::si(40e-12);              // one compare-and-swap stage
  Energy comparator_energy = Energy::si(50e-15);         // one compare-and-swap
  Energy mac_energy = Energy::si(1e-12);                 // one multiply-accumulate of the re-rank
  EnergyPerByte sram_energy = EnergyPerByte::si(1e-12);  // reading exact signatures
  double signature_bytes = 2;                            // bytes per stored signature element
  Time mac_delay = Time::si(1e-9);  // re-rank latency per candidate row (d MACs in parallel)
  static void describe(config::Schema<SelectionSpec>& s);
};

// How the query reaches the rings (programming.h, encode_query / encode_query_balanced):
// intensity: x_j = (1 + u_j) / 2 in [0, 1], u_j = q_j / max|q|, one integration window per
// pass, the offset sum_j w_j / 2 removed digitally (from the requested weights, so weight errors
// enter through it too); balanced: the complementary drives (1 + u_j) / 2 and (1 - u_j) / 2 (the
// two outputs of a balanced MZM) in two integration windows of the same rows, whose difference
// is sum_j w_j u_j: signed, no offset, twice the windows, symbols and conversions per pass.
enum class QueryEncoding { intensity, balanced };

// Electronics around the bank (energy and timing sources; docs/prism.md "Cost model").
struct ElectronicsSpec {
  static constexpr std::string_view kind = "electronics";
  QueryEncoding query_encoding = QueryEncoding::intensity;
  int query_bits = 8;                          // modulator driver DAC resolution
  Energy query_dac_step = Energy::si(14e-15);  // DAC energy per conversion step: E = fom 2^b
  Frequency query_dac_bandwidth = Frequency::si(10e9);
  Energy modulator_energy = Energy::si(100e-15);  // per symbol per modulator
  Frequency modulator_bandwidth = Frequency::si(20e9);
  Energy weight_dac_step = Energy::si(14e-15);  // per conversion step of a weight DAC
  Power tia_power = Power::si(0.6e-3);          // per TIA (one per physical row)
  Energy adc_step = Energy::si(5.8e-15);        // Walden figure of merit, J per step
  Frequency adc_sample_rate = Frequency::si(1e9);
  int rows_per_adc = 1;                // ADC sharing: conversions per ADC per pass
  Voltage pd_bias = Voltage::si(1.0);  // photodiode reverse bias
  bool laser_gated = true;             // laser on only while a pass needs light (else static)
  bool pipelined = true;               // next query's DAC setup overlaps this one's ADC and top-k
  static void describe(config::Schema<ElectronicsSpec>& s);
};

// Several chips over a silicon-photonic interposer: the modulated comb fans out to `chips`
// chips; each hop loses `hop_loss`; each chip returns its own top-k for a digital merge.
enum class FanoutTopology { chain, tree };

struct InterposerSpec {
  static constexpr std::string_view kind = "interposer";
  int chips = 1;
  FanoutTopology topology = FanoutTopology::tree;
  Decibel hop_loss = Decibel::si(3.0);
  Length hop_length = Length::si(10e-3);  // optical path per hop on the interposer
  double group_index = 1.5;               // of the interposer waveguide / fiber
  Time link_latency = Time::si(2e-9);     // electrical return of a chip's top-k, per hop
  static void describe(config::Schema<InterposerSpec>& s);
};

struct AreaSpec {
  static constexpr std::string_view kind = "area";
  Length ring_pitch = Length::si(60e-6);   // centre-to-centre spacing of rings on a row
  Area dac_area = Area::si(0.01e-6);       // per weight-DAC channel (seed: 0.01 mm^2)
  Area tia_area = Area::si(0.005e-6);      // per TIA
  Area adc_area = Area::si(0.01e-6);       // per ADC
  Area modulator_area = Area::si(0.5e-6);  // per query modulator
  Length waveguide_pitch = Length::si(5e-6);
  // Die feasibility and yield (die.h): one die per chip against the scanner's field, and the
  // random-defect yield at this defect density (per cm^2) and clustering (negative binomial).
  Area reticle_limit = Area::si(858e-6);  // 26 mm x 33 mm exposure field
  double defect_density = 0.1;            // defects per cm^2
  double defect_clustering = 2.0;         // negative-binomial alpha
  static void describe(config::Schema<AreaSpec>& s);
};

struct AcceleratorSpec {
  static constexpr std::string_view kind = "accelerator";
  static constexpr std::string_view preset_dir = "accelerators";

  std::string description;
  photonics::DeviceSpec device;  // the bank; device.bank.rows = physical rows per chip
  int logical_rows = 0;          // blocks scored per query (0 = physical rows x chips)
  ProgrammingSpec programming;
  SelectionSpec selection;
  ElectronicsSpec electronics;
  InterposerSpec interposer;
  AreaSpec area;
  // The operating impairment state the Prism scorer draws per bank (photonics ImpairmentSpec).
  photonics::ImpairmentSpec impairments;
  ThermalSpec thermal;          // package, TEC, sensors, supply, clock (thermal.h)
  CalibrationSpec calibration;  // closed-loop bias lock (calibration.h)

  static void describe(config::Schema<AcceleratorSpec>& s);
};

// Derived sizes.
int physical_rows(const AcceleratorSpec& a);  // per chip
int scored_rows(const AcceleratorSpec& a);    // logical rows (blocks) per query
// Passes of time multiplexing: ceil(logical / (physical x chips)).
int passes(const AcceleratorSpec& a);
// Integration windows per pass: 2 for the balanced query encoding (its two complementary
// rails), else 1.
int rails(const AcceleratorSpec& a);

// Loads `name_or_file`: a YAML file, or NAME for <config root>/accelerators/NAME.yaml.
AcceleratorSpec load_accelerator(const std::string& name_or_file,
                                 const config::LoadOptions& options);

std::string to_string(BankSharing b);
std::string to_string(WeightLevels l);
std::string to_string(QueryEncoding e);
std::string to_string(FanoutTopology t);

}  // namespace lightsim::prism
