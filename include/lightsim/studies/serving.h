// The `serving` study (docs/studies.md "serving"): one or more models served on copper NVL72 racks
// and on the photonic pod under chat and long-context traffic with SLOs: goodput per GPU, per kW
// and per dollar against load for each pool split of a small stated set, the best split of each
// fabric (issue 21 part 5a), and the goodput ratio photonic / copper against context length
// and load (part 5b). Every run is a `serve run` of the study's base scenario (serve/run.h)
// with the arm's fabric, cost model and split and the traffic's lengths and rate.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/config_ref.h"
#include "lightsim/fabric/topology.h"
#include "lightsim/serve/cost.h"
#include "lightsim/serve/scenario.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

// One disaggregated pool split: prefill and decode instances, their sizes and plans.
struct ServingSplitSpec {
  static constexpr std::string_view kind = "serving_split";
  std::string name{};
  std::int64_t prefill_instances = 1;
  std::int64_t prefill_gpus_per_instance = 1;
  std::string prefill_plan = "TP=1";
  std::int64_t decode_instances = 1;
  std::int64_t decode_gpus_per_instance = 1;
  std::string decode_plan{};
  std::int64_t max_batch = 256;  // requests resident per instance (scheduler.max_batch)
  static void describe(config::Schema<ServingSplitSpec>& s);
};

// A search over pool splits of a fixed GPU budget (issue 21 part 5a, "the best pool split"):
// for each decode pool size n of `decode_gpus`, one decode instance of n GPUs with the plan
// "DPA=n,EP=n" (attention data-parallel, experts over all n) and max_batch
// batch_per_decode_gpu x n, and (total_gpus - n) / prefill_gpus_per_instance prefill instances
// of prefill_plan. Each candidate is named "P<prefill GPUs>+D<n>" and runs at every load like
// a stated split; the study's `splits` table marks the best per arm and traffic.
//
// With search_plans (issue 21 part 5a, "the best pool split and plans on each"), the plans are
// searched too (serve/pool_plans.h): the prefill plan of prefill_gpus_per_instance GPUs with
// the lowest latency for one plan_prompt-token prompt (prefill_plan ignored), and the decode
// plan of n GPUs with the most tokens/s per GPU at plan_context keys under the scenario's TPOT
// target, its batch the instance's max_batch (batch_per_decode_gpu ignored). The candidates
// are named "P<prefill GPUs>+D<n> searched".
struct ServingSplitSearchSpec {
  static constexpr std::string_view kind = "serving_split_search";
  std::int64_t total_gpus = 0;  // GPUs of both pools together
  std::int64_t prefill_gpus_per_instance = 8;
  std::string prefill_plan = "EP=8";
  std::vector<std::int64_t> decode_gpus{};  // decode pool sizes tried (empty: no search)
  std::int64_t batch_per_decode_gpu = 128;  // requests resident per decode GPU
  bool search_plans = false;                // plans from the plan searches, not the family
  std::int64_t plan_prompt = 2048;          // tokens: prompt the prefill plan is chosen for
  std::int64_t plan_context = 4096;         // keys: context the decode plan is chosen at
  static void describe(config::Schema<ServingSplitSearchSpec>& s);
};

// The splits of a search, in the order of decode_gpus, with the family plans (DPA=n,EP=n and
// prefill_plan) whether or not search_plans is set: the names and pool sizes are these.
std::vector<ServingSplitSpec> searched_splits(const ServingSplitSearchSpec& s);

// One fabric under test: the pools' fabric, the tier the KV crosses, its cost model and the
// splits tried on it (stated, then searched).
struct ServingArmSpec {
  static constexpr std::string_view kind = "serving_arm";
  std::string name{};
  config::Ref<fabric::FabricSpec> fabric = "seed_copper_1152";
  std::int64_t kv_tier = 0;
  config::Ref<serve::CostModelSpec> cost_model = "copper_nvl72";
  std::vector<ServingSplitSpec> splits{};
  ServingSplitSearchSpec split_search{};
  static void describe(config::Schema<ServingArmSpec>& s);
};

// One traffic shape: its lengths and the offered loads (requests/s per GPU).
struct ServingTrafficSpec {
  static constexpr std::string_view kind = "serving_traffic";
  std::string name{};
  serve::LengthSpec prompt{};
  serve::LengthSpec output{};
  std::vector<double> loads{};  // 1/s per GPU
  static void describe(config::Schema<ServingTrafficSpec>& s);
};

struct ServingStudySpec {
  static constexpr std::string_view kind = "serving_study";
  // Model, number formats, SLOs, scheduler, arrival process and request count of every run.
  config::Ref<serve::ScenarioSpec> scenario = "deepseek_v3_pod";
  // Models served, each on every arm, traffic and split (configs/models/ names or config.json
  // paths; the scenario's model swapped); empty: the scenario's model only. A split whose
  // pools do not set up for a model (a plan that does not fit it: ConfigError from
  // serve::prepare) is not run for it; the `splits` table states why.
  std::vector<std::string> models{};
  std::vector<ServingArmSpec> arms{};  // the first is the baseline of the ratios
  std::vector<ServingTrafficSpec> traffics{};
  // Part b: fixed prompt lengths (tokens) at `context_loads` (prompt tokens/s per GPU, so the
  // request rate falls as the context grows), outputs of `context_output`, every split of
  // every arm.
  std::vector<std::int64_t> contexts{};
  std::vector<double> context_loads{};
  serve::LengthSpec context_output{};
  std::int64_t requests = 0;     // requests per run; 0: the scenario's
  std::int64_t cdf_points = 20;  // quantiles of the latency CDFs
  // Part a's best load and split: among the points whose SLO attainment is at least this, the
  // highest goodput per GPU (any point when none is). Goodput here is offered rate x
  // attainment, which still grows past saturation; DistServe's goodput is the highest rate
  // holding a target attainment (Zhong et al., OSDI 2024: 90 %). 0: no floor.
  double attainment_floor = 0;
  static void describe(config::Schema<ServingStudySpec>& s);
};

// Registers the study `serving` (its spec kind and its definition; runner.h).
void add_serving_study(Registry& registry);

}  // namespace lightsim::studies
