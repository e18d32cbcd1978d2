// Signature mapping and reprogramming cost (programming.h).
#include "lightsim/prism/programming.h"

#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"

namespace lightsim::prism {

double quantize_weight(double w, int bits, WeightLevels levels) {
  const double c = std::clamp(w, -1.0, 1.0);
  if (levels == WeightLevels::all_codes) {
    const double top = std::ldexp(1.0, bits) - 1.0;  // 2^bits levels: codes 0 .. top
    return 2.0 * std::round(0.5 * (c + 1.0) * top) / top - 1.0;
  }
  const double s = std::ldexp(1.0, bits - 1) - 1.0;
  return std::round(c * s) / s;
}

BankWeights map_signatures(std::span<const float> signatures, int d, double range, int bits,
                           WeightLevels levels) {
  LIGHTSIM_CHECK(d > 0 && signatures.size() % static_cast<std::size_t>(d) == 0,
                 "signatures must be [rows, d]");
  BankWeights b;
  b.d = d;
  b.rows = static_cast<int>(signatures.size() / static_cast<std::size_t>(d));
  float m = 0.0f;
  for (float v : signatures) m = std::max(m, std::abs(v));
  b.scale = m > 0.0f ? range / m : 0.0;
  b.weights.resize(signatures.size());
  b.row_sum.assign(static_cast<std::size_t>(b.rows), 0.0);
  for (std::size_t i = 0; i < signatures.size(); ++i) {
    const double w = m > 0.0f ? range * quantize_weight(signatures[i] / m, bits, levels) : 0.0;
    b.weights[i] = static_cast<float>(w);
    b.row_sum[i / static_cast<std::size_t>(d)] += static_cast<float>(w);
  }
  return b;
}

double encode_query(std::span<const float> q, int bits, std::span<float> x) {
  LIGHTSIM_CHECK(q.size() == x.size(), "query and encoding differ in length");
  float m = 0.0f;
  for (float v : q) m = std::max(m, std::abs(v));
  const double levels = std::ldexp(1.0, bits) - 1.0;
  for (std::size_t j = 0; j < q.size(); ++j) {
    const double u = m > 0.0f ? 0.5 * (1.0 + q[j] / m) : 0.5;
    x[j] = static_cast<float>(std::round(u * levels) / levels);
  }
  return m;
}

double encode_query_balanced(std::span<const float> q, int bits, std::span<float> x_plus,
                             std::span<float> x_minus) {
  LIGHTSIM_CHECK(q.size() == x_plus.size() && q.size() == x_minus.size(),
                 "query and encoding differ in length");
  const double m = encode_query(q, bits, x_plus);
  for (std::size_t j = 0; j < q.size(); ++j) x_minus[j] = 1.0f - x_plus[j];
  return m;
}

int banks_needed(const AcceleratorSpec& a) {
  return a.programming.banks == BankSharing::per_kv_head ? a.programming.kv_heads : 1;
}

ProgrammingCost programming_cost(const AcceleratorSpec& a, BankSharing banks) {
  const auto& dev = a.device;
  ProgrammingCost c;
  c.dac_energy = a.electronics.weight_dac_step.si() * std::ldexp(1.0, dev.dac.bits);
  // A driver from a supply at V_max charging C by dV draws C V_max |dV|; for uniformly spread
  // codes on [-V_max, V_max], E|dV| = 2 V_max / 3. Heaters are resistive: their power is
  // static tuning power (cost.h), not a switching charge.
  if (dev.tuning.mechanism == photonics::TuningMechanism::pockels) {
    const double v = dev.tuning.max_voltage.si();
    c.drive_energy = 2.0 / 3.0 * a.programming.ring_capacitance.si() * v * v;
  }
  c.switch_energy = c.dac_energy + c.drive_energy;
  c.settle_time = a.programming.ring_settling.si();
  const double rings =
      static_cast<double>(physical_rows(a)) * dev.grid.channels * a.interposer.chips;
  const int m = passes(a);
  if (m > 1) {
    c.loads_per_query = m;  // every pass loads the next physical rows' signatures
  } else if (banks == BankSharing::time_shared && a.programming.kv_heads > 1) {
    c.loads_per_query = 1;  // consecutive queries come from different KV heads
  }
  c.reload_switches = c.loads_per_query * rings;
  // A completed block writes one new row (d rings) once every block_tokens decode steps; a
  // bank that is fully reloaded for every query gets it for free.
  if (c.loads_per_query == 0)
    c.completion_switches = static_cast<double>(dev.grid.channels) / a.programming.block_tokens;
  return c;
}

ProgrammingCost programming_cost(const AcceleratorSpec& a) {
  return programming_cost(a, a.programming.banks);
}

}  // namespace lightsim::prism
