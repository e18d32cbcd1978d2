// The request-level discrete-event simulation (docs/serving.md, "Scheduler").
//
// Events are arrivals, step ends and KV-transfer ends, processed in time order (ties: in the
// order they were scheduled), so a run is a pure function of its inputs. Each instance runs
// continuous batching with chunked prefill (Sarathi-Serve): a step carries one token of every
// decoding request plus prompt chunks of admitted requests up to the token budget, oldest
// first. A request is admitted (FCFS, no bypass) when the batch has a free slot and the
// instance's KV cache holds ceil((prompt + output) / block_tokens) more blocks; it keeps them
// until it finishes (no preemption). Disaggregated: prefill instances hold ceil(prompt /
// block) blocks until the KV has moved; a decode instance admits from its queue when it has
// room and then pulls the KV over the link of the prefill instance (DistServe's pull model;
// one transfer at a time per prefill instance: latency + bytes / bandwidth).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "lightsim/serve/host.h"
#include "lightsim/serve/step_model.h"
#include "lightsim/serve/workload.h"

namespace lightsim::serve {

struct SimPool {
  std::shared_ptr<const StepModel> steps;
  InstanceMemory memory;
  std::int64_t instances = 1;
  std::int64_t gpus_per_instance = 1;
};

struct SimConfig {
  bool disaggregated = false;
  SimPool colocated;  // colocated: the one pool
  SimPool prefill, decode;
  std::int64_t max_batch = 256;
  std::int64_t token_budget = 2048;
  std::int64_t block_tokens = 16;
  double kv_bandwidth = 0;  // B/s of one prefill instance's transfer link (may be +inf)
  double kv_latency = 0;    // s per transfer
  double slo_ttft = 1;      // s
  double slo_tpot = 0.05;   // s
  std::int64_t queue_series_bins = 40;
  // SIGINT/SIGTERM's stop flag (Context::cancel_flag(); null: never), polled every 4096
  // events: Interrupted. A million-request run simulates for tens of seconds.
  const std::atomic<bool>* cancel = nullptr;
  std::optional<HostSpec> host;  // host (CPU) time of each step (none: GPU time only)
};

// Latency percentiles of one metric over `count` requests (linear interpolation between
// order statistics; all 0 when count is 0).
struct Distribution {
  std::int64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;  // s
};
Distribution distribution(std::vector<double> values);

struct PoolUsage {
  std::int64_t instances = 0, gpus = 0;
  std::int64_t steps = 0;
  std::int64_t decode_steps = 0;  // steps with decode work
  double busy = 0;                // s of steps summed over instances
  double utilization = 0;         // busy / (instances x makespan)
  std::int64_t prefill_tokens = 0, decode_tokens = 0;
  double mean_decode_batch = 0;  // decode tokens / steps with decode work
};

// Little's law over the run: L = time-average requests in the system, lambda = completed /
// makespan, W = mean end-to-end latency; the same for the admission queue (L_q, W_q). A run
// that starts and ends empty satisfies L = lambda W exactly (both are the integral of N(t)
// divided by the makespan), so `relative_error` measures the bookkeeping, not statistics.
struct LittleCheck {
  double l = 0, lambda = 0, w = 0, relative_error = 0;
  double lq = 0, wq = 0, queue_relative_error = 0;
};

struct QueuePoint {
  double t = 0;          // s, start of the bin
  double queued = 0;     // time-mean requests waiting for admission
  double in_system = 0;  // time-mean requests arrived and not finished
};

struct RequestTimes {
  double arrival = 0, admitted = 0, first_token = 0, finished = 0;  // s
};

struct SimResult {
  std::int64_t requests = 0;   // offered
  std::int64_t completed = 0;  // finished (= requests - rejected)
  std::int64_t rejected = 0;   // could never be admitted: KV need above an instance's capacity
  double makespan = 0;         // s: last completion (0 without requests)
  double offered_rate = 0;     // 1/s: requests / last arrival time (0 when that is 0)
  Distribution ttft, tpot, e2e, queue_wait;
  std::int64_t slo_met = 0;
  double slo_attainment = 0;        // slo_met / completed
  double goodput = 0;               // 1/s: slo_met / last arrival time (makespan if that is 0)
  double throughput = 0;            // 1/s: completed / makespan
  double output_tokens_per_s = 0;   // 1/s
  double tokens_per_s_per_gpu = 0;  // 1/s: output tokens / makespan / GPUs
  std::int64_t gpus = 0;
  PoolUsage colocated, prefill, decode;
  double kv_transfer_time = 0;  // s, mean per transferred request
  double host_work = 0;         // s: host time of all steps, summed over instances
  double host_exposed = 0;      // s: step time the host adds beyond the GPU's, summed
  LittleCheck little;
  std::vector<QueuePoint> queue_series;
  std::vector<RequestTimes> times;  // per request in input order (rejected: all 0)
};

// Upper estimate of the bytes a simulation allocates per request (the request, its state and
// times, the event record, the latency lists): what a run checks against the memory budget.
inline constexpr std::uint64_t kSimulationBytesPerRequest = 384;

// `requests` sorted by arrival. Throws InternalError on a broken invariant only.
SimResult simulate(const std::vector<Request>& requests, const SimConfig& config);

}  // namespace lightsim::serve
