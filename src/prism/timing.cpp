// The controller's state timeline (timing.h).
#include "lightsim/prism/timing.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lightsim/core/json.h"
#include "lightsim/prism/programming.h"

namespace lightsim::prism {
namespace {

constexpr double kSpeedOfLight = 299792458.0;  // m/s

int ceil_log2(long long n) {
  int l = 0;
  while ((1LL << l) < n) ++l;
  return l;
}

}  // namespace

std::string to_string(State s) {
  switch (s) {
    case State::idle:
      return "IDLE";
    case State::weight_load:
      return "WEIGHT_LOAD";
    case State::dac_setup:
      return "DAC_SETUP";
    case State::optical_prop:
      return "OPTICAL_PROP";
    case State::integrate:
      return "INTEGRATE";
    case State::adc_conv:
      return "ADC_CONV";
    case State::topk:
      return "TOPK";
    case State::merge:
      return "MERGE";
    case State::rerank:
      return "RERANK";
  }
  return "?";
}

MergeTree merge_tree(long long leaves, int leaf_len, int k) {
  MergeTree t;
  long long n = leaves;
  double m = std::min(leaf_len, k);
  while (n > 1) {
    const long long pairs = n / 2;
    const int stages = ceil_log2(static_cast<long long>(2 * m));
    t.stages += stages;
    t.comparisons += static_cast<double>(pairs) * m * stages;
    n = (n + 1) / 2;
    m = std::min<double>(2 * m, k);
  }
  return t;
}

double Timeline::duration_of(State s) const {
  double sum = 0;
  for (const Phase& p : phases)
    if (p.state == s) sum += p.duration;
  return sum;
}

Timeline timeline(const AcceleratorSpec& a) {
  const auto& dev = a.device;
  const auto& el = a.electronics;
  Timeline t;
  t.passes = passes(a);
  t.rails = rails(a);
  t.chips = a.interposer.chips;
  if (t.chips > 1)
    t.hops = a.interposer.topology == FanoutTopology::chain ? t.chips - 1 : ceil_log2(t.chips);
  t.fanout_loss_db =
      t.chips > 1 ? t.hops * a.interposer.hop_loss.si() + 10.0 * std::log10(t.chips) : 0.0;

  const ProgrammingCost prog = programming_cost(a);
  t.weight_load = prog.loads_per_query > 0 ? prog.settle_time : 0.0;
  t.dac_setup = std::log(std::ldexp(1.0, el.query_bits + 1)) /
                (2.0 * std::numbers::pi * el.query_dac_bandwidth.si());
  const double on_chip =
      (dev.path.waveguide_length.si() + dev.grid.channels * a.area.ring_pitch.si()) * dev.ring.n_g /
      kSpeedOfLight;
  const double interposer =
      t.hops * a.interposer.hop_length.si() * a.interposer.group_index / kSpeedOfLight;
  t.optical_prop = 0.35 / el.modulator_bandwidth.si() + on_chip + interposer;
  t.integrate = dev.tia.integration_window.si();
  t.adc_conv = el.rows_per_adc / el.adc_sample_rate.si();
  const int k = a.selection.top_k, kk = std::max(k, a.selection.rerank_k);
  t.pass_tree = merge_tree(physical_rows(a), 1, kk);
  const double cmp = a.selection.comparator_delay.si();
  t.topk = t.pass_tree.stages * cmp;
  const long long lists = static_cast<long long>(t.passes) * t.chips;
  t.merge_of_lists = merge_tree(lists, kk, kk);
  if (lists > 1) t.merge = t.merge_of_lists.stages * cmp + t.hops * a.interposer.link_latency.si();
  if (a.selection.rerank_k > 0) {
    t.rerank_tree = merge_tree(a.selection.rerank_k, 1, k);
    t.rerank = a.selection.rerank_k * a.selection.mac_delay.si() + t.rerank_tree.stages * cmp;
  }

  double clock = 0;
  auto add = [&](State s, int pass, double d) {
    if (d <= 0 && s != State::integrate) return;
    t.phases.push_back({s, pass, clock, d});
    clock += d;
  };
  for (int p = 0; p < t.passes; ++p) {
    add(State::weight_load, p, t.weight_load);
    if (p == 0) add(State::dac_setup, p, t.dac_setup);  // the query stays on the modulators
    add(State::optical_prop, p, t.optical_prop);
    for (int r = 0; r < t.rails; ++r) {  // balanced encoding: one window per rail
      add(State::integrate, p, t.integrate);
      add(State::adc_conv, p, t.adc_conv);
    }
    add(State::topk, p, t.topk);
  }
  add(State::merge, t.passes - 1, t.merge);
  add(State::rerank, t.passes - 1, t.rerank);
  for (const Phase& p : t.phases) t.latency += p.duration;

  if (el.pipelined) {
    // Busy time per query of each hardware unit; the bank holds its rows from the load to the
    // end of integration.
    const double bank = t.duration_of(State::weight_load) + t.duration_of(State::optical_prop) +
                        t.duration_of(State::integrate);
    const double units[] = {t.duration_of(State::dac_setup), bank, t.duration_of(State::adc_conv),
                            t.duration_of(State::topk) + t.duration_of(State::merge),
                            t.duration_of(State::rerank)};
    t.interval = *std::max_element(std::begin(units), std::end(units));
  } else {
    t.interval = t.latency;
  }
  t.qps = 1.0 / t.interval;
  return t;
}

Json to_json(const Timeline& t) {
  Json phases = Json::array();
  for (const Phase& p : t.phases)
    phases.push_back({{"state", to_string(p.state)},
                      {"pass", p.pass},
                      {"start_s", p.start},
                      {"duration_s", p.duration}});
  Json per_state = Json::object();
  for (State s : {State::weight_load, State::dac_setup, State::optical_prop, State::integrate,
                  State::adc_conv, State::topk, State::merge, State::rerank})
    per_state[to_string(s)] = t.duration_of(s);
  return {{"latency_s", t.latency},
          {"interval_s", t.interval},
          {"queries_per_second", t.qps},
          {"passes", t.passes},
          {"chips", t.chips},
          {"interposer_hops", t.hops},
          {"fanout_loss_db", t.fanout_loss_db},
          {"state_totals_s", per_state},
          {"topk_tree", {{"stages", t.pass_tree.stages}, {"comparisons", t.pass_tree.comparisons}}},
          {"phases", phases}};
}

}  // namespace lightsim::prism
