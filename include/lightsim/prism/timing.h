// The controller: a cycle-level model of one query through the state machine
//   IDLE -> [WEIGHT_LOAD] -> DAC_SETUP -> OPTICAL_PROP -> INTEGRATE -> ADC_CONV -> TOPK
//        -> (next pass: WEIGHT_LOAD -> OPTICAL_PROP -> ... ) -> [MERGE] -> [RERANK] -> IDLE
// with every duration derived from the component parameters (docs/prism.md, "Controller"):
//   WEIGHT_LOAD   programming.ring_settling, when the bank is reloaded (time multiplexing:
//                 every pass; time-shared GQA banks: once per query)
//   DAC_SETUP     single-pole settling of the query DAC to 1/2 LSB: ln(2^(b+1)) / (2 pi f_dac)
//   OPTICAL_PROP  modulator 10-90% rise 0.35 / f_mod + (path length + d ring pitches) n_g / c
//                 + interposer hops x hop_length x n_g,hop / c
//   INTEGRATE     the TIA integration window
//   ADC_CONV      rows_per_adc / f_s
//   TOPK          bitonic merge tree over the pass's physical rows (stages x comparator delay)
//   MERGE         passes > 1 or chips > 1: merging the sorted top-k lists, plus the chips'
//                 electrical return (hops x link latency)
//   RERANK        k' candidates x mac_delay plus a top-k over the k'
// The states of one query run in sequence, so its latency is the sum of its states. Back-to-back
// queries overlap when `pipelined`: the next query enters as soon as every hardware unit
// (query DACs, bank + TIAs, ADCs, top-k/merge logic, re-rank unit) is free, so the interval is
// the busiest unit's time per query.
#pragma once

#include <string>
#include <vector>

#include "lightsim/core/json_fwd.h"
#include "lightsim/prism/accelerator.h"

namespace lightsim::prism {

enum class State {
  idle,
  weight_load,
  dac_setup,
  optical_prop,
  integrate,
  adc_conv,
  topk,
  merge,
  rerank
};
std::string to_string(State s);

struct Phase {
  State state = State::idle;
  int pass = 0;         // 0-based pass of time multiplexing (merge/rerank: the last pass)
  double start = 0;     // s from the query's arrival
  double duration = 0;  // s
};

// A bitonic top-k merge tree over `leaves` inputs (each a sorted list of `leaf_len`):
// every level merges pairs of sorted lists of length m (capped at k) with a bitonic merger of
// log2(2m) stages and m log2(2m) compare-and-swaps (Batcher 1968).
struct MergeTree {
  int stages = 0;          // compare stages on the critical path
  double comparisons = 0;  // compare-and-swaps in all
};
MergeTree merge_tree(long long leaves, int leaf_len, int k);

struct Timeline {
  std::vector<Phase> phases;  // one query, in order; IDLE is not listed
  double latency = 0;         // s, = sum of the phases' durations
  double interval = 0;        // s between back-to-back queries on one bank
  double qps = 0;             // queries per second per bank (1 / interval)
  int passes = 1, chips = 1, hops = 0;
  int rails = 1;              // integration windows per pass (2: balanced query encoding)
  double fanout_loss_db = 0;  // interposer: hops x hop loss + 10 log10(chips) split
  // One-pass durations (s) of each state, for the report.
  double weight_load = 0, dac_setup = 0, optical_prop = 0, integrate = 0, adc_conv = 0, topk = 0,
         merge = 0, rerank = 0;
  MergeTree pass_tree, merge_of_lists, rerank_tree;
  double duration_of(State s) const;  // summed over the phases
};

Timeline timeline(const AcceleratorSpec& a);

Json to_json(const Timeline& t);

}  // namespace lightsim::prism
