// Programming the bank: block signatures -> scaled, quantized weights -> ring detunings (the
// photonics WeightProgrammer inverts the ring's balanced response and picks DAC codes), and
// what reprogramming costs (docs/prism.md, "Programming").
#pragma once

#include <span>
#include <vector>

#include "lightsim/prism/accelerator.h"

namespace lightsim::prism {

// w clipped to [-1, 1], then quantized to `bits` at the level count of `levels`:
// zero_centred (2^bits - 1 levels): round(w s) / s, s = 2^(bits-1) - 1 (the seed's QAT rule,
// ../shared/SPEC.md section 1.5); all_codes (2^bits levels): -1 + 2 k / (2^bits - 1) with
// k = round((w + 1) (2^bits - 1) / 2).
double quantize_weight(double w, int bits, WeightLevels levels = WeightLevels::zero_centred);

// The weights of one bank, [rows, d] row-major, in [-range, range]: w = range * q(sig / m) with
// m = max |sig| over the bank (one scale per bank keeps the ranking) and q = quantize_weight.
struct BankWeights {
  int rows = 0, d = 0;
  std::vector<float> weights;   // [rows, d]
  std::vector<double> row_sum;  // [rows]: sum_j w, known to the controller (digital offset)
  double scale = 0.0;           // weight per signature unit (range / m)
};
BankWeights map_signatures(std::span<const float> signatures, int d, double range, int bits,
                           WeightLevels levels = WeightLevels::zero_centred);

// Query encoding for intensity modulation (inputs in [0, 1]): x_j = (1 + q_j / max|q|) / 2,
// quantized to `bits` over [0, 1]. Then sum_j w_j x_j = (w . q / max|q| + sum_j w_j) / 2, and
// the controller removes sum_j w_j / 2 digitally. Returns max|q| (0 for a zero query).
double encode_query(std::span<const float> q, int bits, std::span<float> x);
// Balanced (signed) encoding: u_j = q_j / max|q| quantized to `bits` over [-1, 1] (the drive
// DAC's 2^bits codes, as encode_query's), then the complementary rails x_plus = (1 + u) / 2 and
// x_minus = (1 - u) / 2, so sum_j w_j (x_plus - x_minus) = sum_j w_j u_j. Returns max|q|.
double encode_query_balanced(std::span<const float> q, int bits, std::span<float> x_plus,
                             std::span<float> x_minus);

// Reprogramming per query (one query = one KV head's scoring on its bank).
struct ProgrammingCost {
  double switch_energy = 0;        // J per ring switch: weight-DAC conversion + driver charge
  double dac_energy = 0;           // J: the conversion part, weight_dac_step 2^bits
  double drive_energy = 0;         // J: the driver part, (2/3) C V_max^2 (Pockels; 0 for heaters)
  double settle_time = 0;          // s per bank load (all rings load in parallel)
  double completion_switches = 0;  // per query: d rings per completed block / block_tokens
  double reload_switches = 0;      // per query: whole-bank loads (time sharing, passes)
  double loads_per_query = 0;      // bank loads inside the query's latency
  double energy_per_query() const {
    return switch_energy * (completion_switches + reload_switches);
  }
};
ProgrammingCost programming_cost(const AcceleratorSpec& a);
// The same accelerator with the other GQA bank mapping (to show what the choice costs).
ProgrammingCost programming_cost(const AcceleratorSpec& a, BankSharing banks);
// Banks (of physical rows x chips) needed: kv_heads for per_kv_head, 1 for time_shared.
int banks_needed(const AcceleratorSpec& a);

}  // namespace lightsim::prism
