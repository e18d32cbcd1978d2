// The discrete-event serving simulation (simulate.h; docs/serving.md, "Scheduler").
#include "lightsim/serve/simulate.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <queue>

#include "lightsim/core/error.h"

namespace lightsim::serve {

Distribution distribution(std::vector<double> values) {
  Distribution d;
  d.count = static_cast<std::int64_t>(values.size());
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  d.mean = sum / static_cast<double>(values.size());
  // Linear interpolation between order statistics (Hyndman & Fan type 7, numpy's default).
  const auto quantile = [&](double q) {
    const double h = q * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
  };
  d.p50 = quantile(0.50);
  d.p90 = quantile(0.90);
  d.p99 = quantile(0.99);
  d.max = values.back();
  return d;
}

namespace {

enum class Role { colocated, prefill, decode };
enum class EventType { arrival, step_end, transfer_end };

struct Event {
  double t = 0;
  std::uint64_t seq = 0;
  EventType type = EventType::arrival;
  std::int64_t a = 0;  // request or instance
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

struct Chunk {
  std::int64_t request = 0, tokens = 0;
};

struct Instance {
  Role role = Role::colocated;
  const SimPool* pool = nullptr;
  std::int64_t kv_capacity = 0;  // blocks
  std::int64_t kv_used = 0;
  std::int64_t resident = 0;  // admitted and not finished (or not yet handed to decode)
  std::deque<std::int64_t> queue;
  std::deque<std::int64_t> prefilling;
  std::vector<std::int64_t> joining;  // enter the decode set at the next step start
  // Decoding requests: (index of the decode step that gives the last token, request).
  std::priority_queue<std::pair<std::int64_t, std::int64_t>,
                      std::vector<std::pair<std::int64_t, std::int64_t>>, std::greater<>>
      decoding;
  double decode_context = 0;  // sum over decoding requests of their cached tokens
  std::int64_t decode_steps = 0;
  bool busy = false;
  std::vector<Chunk> chunks;  // the running step's prefill chunks
  std::int64_t step_decode = 0;
  double link_free = 0;  // prefill pool: when its transfer link is free
  PoolUsage* usage = nullptr;
};

struct RequestState {
  std::int64_t prefilled = 0;
  std::int64_t instance = -1;         // colocated / prefill instance
  std::int64_t decode_instance = -1;  // disaggregated
  double queued_since = 0;
  double queue_wait = 0;  // s summed over the admission queues it waited in
  bool admitted = false;
  bool rejected = false;
};

std::int64_t blocks(std::int64_t tokens, std::int64_t block) {
  return (tokens + block - 1) / block;
}

class Simulation {
 public:
  Simulation(const std::vector<Request>& requests, const SimConfig& c)
      : req_(requests), c_(c), state_(requests.size()) {
    r_.requests = static_cast<std::int64_t>(requests.size());
    r_.times.resize(requests.size());
    if (c.disaggregated) {
      add_pool(Role::prefill, c.prefill, r_.prefill);
      add_pool(Role::decode, c.decode, r_.decode);
    } else {
      add_pool(Role::colocated, c.colocated, r_.colocated);
    }
    for (std::size_t i = 0; i < requests.size(); ++i)
      push(requests[i].arrival, EventType::arrival, static_cast<std::int64_t>(i));
    record(0);
  }

  SimResult run() {
    std::uint64_t handled = 0;
    while (!events_.empty()) {
      if (c_.cancel != nullptr && ++handled % 4096 == 0 &&
          c_.cancel->load(std::memory_order_relaxed)) [[unlikely]]
        LIGHTSIM_THROW(Interrupted, "serving simulation (at {} s of simulated time): interrupted",
                       now_);
      const Event e = events_.top();
      events_.pop();
      now_ = e.t;
      switch (e.type) {
        case EventType::arrival:
          arrive(e.a);
          break;
        case EventType::step_end:
          end_step(e.a);
          break;
        case EventType::transfer_end:
          end_transfer(e.a);
          break;
      }
    }
    LIGHTSIM_CHECK(in_system_ == 0 && queued_ == 0,
                   "serving simulation ended with {} requests in the system", in_system_);
    return finish();
  }

 private:
  void add_pool(Role role, const SimPool& pool, PoolUsage& usage) {
    const double block_bytes =
        pool.memory.kv_bytes_per_token * static_cast<double>(c_.block_tokens);
    const double cap = block_bytes > 0 ? std::floor(pool.memory.kv_capacity / block_bytes) : 0;
    usage.instances = pool.instances;
    usage.gpus = pool.instances * pool.gpus_per_instance;
    r_.gpus += usage.gpus;
    auto& first = role == Role::decode ? decode_first_ : front_first_;
    first = static_cast<std::int64_t>(inst_.size());
    for (std::int64_t i = 0; i < pool.instances; ++i) {
      Instance in;
      in.role = role;
      in.pool = &pool;
      in.kv_capacity = static_cast<std::int64_t>(
          std::min(cap, static_cast<double>(std::numeric_limits<std::int64_t>::max() / 4)));
      in.usage = &usage;
      inst_.push_back(std::move(in));
    }
    (role == Role::decode ? decode_count_ : front_count_) = pool.instances;
  }

  void push(double t, EventType type, std::int64_t a) {
    events_.push(Event{.t = t, .seq = seq_++, .type = type, .a = a});
  }

  // Counts of requests in the system and in admission queues change only here.
  void record(double t) {
    changes_.push_back({t, static_cast<double>(queued_), static_cast<double>(in_system_)});
  }

  std::int64_t need(const Instance& in, std::int64_t r) const {
    const Request& q = req_[static_cast<std::size_t>(r)];
    return blocks(in.role == Role::prefill ? q.prompt : q.prompt + q.output, c_.block_tokens);
  }

  // Join the shortest queue: fewest queued + resident requests, lowest index first.
  std::int64_t shortest(std::int64_t first, std::int64_t count) const {
    std::int64_t best = first;
    std::size_t best_load = std::numeric_limits<std::size_t>::max();
    for (std::int64_t i = first; i < first + count; ++i) {
      const Instance& in = inst_[static_cast<std::size_t>(i)];
      const std::size_t load = in.queue.size() + static_cast<std::size_t>(in.resident);
      if (load < best_load) best_load = load, best = i;
    }
    return best;
  }

  void enqueue(std::int64_t i, std::int64_t r) {
    RequestState& s = state_[static_cast<std::size_t>(r)];
    s.queued_since = now_;
    inst_[static_cast<std::size_t>(i)].queue.push_back(r);
    ++queued_;
    record(now_);
    admit(i);
  }

  void arrive(std::int64_t r) {
    const std::int64_t i = shortest(front_first_, front_count_);
    const bool too_big =
        need(inst_[static_cast<std::size_t>(i)], r) >
            inst_[static_cast<std::size_t>(i)].kv_capacity ||
        (c_.disaggregated && need(inst_[static_cast<std::size_t>(decode_first_)], r) >
                                 inst_[static_cast<std::size_t>(decode_first_)].kv_capacity);
    if (too_big) {
      ++r_.rejected;
      state_[static_cast<std::size_t>(r)].rejected = true;
      return;
    }
    r_.times[static_cast<std::size_t>(r)].arrival = now_;
    state_[static_cast<std::size_t>(r)].instance = i;
    ++in_system_;
    enqueue(i, r);
  }

  // FCFS admission while a batch slot and the KV blocks are free.
  void admit(std::int64_t i) {
    Instance& in = inst_[static_cast<std::size_t>(i)];
    bool changed = false;
    while (!in.queue.empty()) {
      const std::int64_t r = in.queue.front();
      const std::int64_t n = need(in, r);
      if (in.resident >= c_.max_batch || in.kv_used + n > in.kv_capacity) break;
      in.queue.pop_front();
      in.kv_used += n;
      ++in.resident;
      --queued_;
      changed = true;
      RequestState& s = state_[static_cast<std::size_t>(r)];
      s.queue_wait += now_ - s.queued_since;
      if (!s.admitted) r_.times[static_cast<std::size_t>(r)].admitted = now_;
      s.admitted = true;
      if (in.role == Role::decode)
        start_transfer(r);
      else
        in.prefilling.push_back(r);
    }
    if (changed) record(now_);
    start_step(i);
  }

  void start_transfer(std::int64_t r) {
    const Request& q = req_[static_cast<std::size_t>(r)];
    Instance& src = inst_[static_cast<std::size_t>(state_[static_cast<std::size_t>(r)].instance)];
    const double bytes = static_cast<double>(q.prompt) * src.pool->memory.kv_bytes_per_token;
    const double start = std::max(now_, src.link_free);
    const double move = bytes / c_.kv_bandwidth;  // 0 for an infinite bandwidth
    src.link_free = start + move;
    const double done = start + move + c_.kv_latency;
    transfer_sum_ += done - now_;
    ++transfers_;
    push(done, EventType::transfer_end, r);
  }

  void end_transfer(std::int64_t r) {
    RequestState& s = state_[static_cast<std::size_t>(r)];
    Instance& src = inst_[static_cast<std::size_t>(s.instance)];
    src.kv_used -= need(src, r);
    --src.resident;
    inst_[static_cast<std::size_t>(s.decode_instance)].joining.push_back(r);
    admit(s.instance);
    start_step(s.decode_instance);
  }

  void start_step(std::int64_t i) {
    Instance& in = inst_[static_cast<std::size_t>(i)];
    if (in.busy) return;
    for (const std::int64_t r : in.joining) {
      const Request& q = req_[static_cast<std::size_t>(r)];
      in.decoding.emplace(in.decode_steps + q.output - 2, r);
      in.decode_context += static_cast<double>(q.prompt + 1);
    }
    in.joining.clear();
    const auto d = static_cast<std::int64_t>(in.decoding.size());
    in.chunks.clear();
    std::int64_t tokens = 0;
    double prior = 0;
    if (in.role != Role::decode) {
      std::int64_t budget = c_.token_budget - d;
      for (auto it = in.prefilling.begin(); it != in.prefilling.end() && budget > 0; ++it) {
        const Request& q = req_[static_cast<std::size_t>(*it)];
        const std::int64_t done = state_[static_cast<std::size_t>(*it)].prefilled;
        const std::int64_t take = std::min(budget, q.prompt - done);
        in.chunks.push_back({*it, take});
        tokens += take;
        prior += static_cast<double>(take) * static_cast<double>(done);
        budget -= take;
      }
    }
    if (d == 0 && tokens == 0) return;
    double t = 0;
    if (tokens > 0) t += in.pool->steps->prefill(tokens, prior / static_cast<double>(tokens));
    if (d > 0) t += in.pool->steps->decode(d, in.decode_context / static_cast<double>(d) + 1.0);
    LIGHTSIM_CHECK(t > 0 && std::isfinite(t), "step time {} s is not positive and finite", t);
    if (c_.host) {
      const double host =
          host_time(*c_.host, d + static_cast<std::int64_t>(in.chunks.size()), tokens);
      const double step = step_duration(*c_.host, t, host);
      r_.host_work += host;
      r_.host_exposed += step - t;
      t = step;
    }
    in.step_decode = d;
    in.busy = true;
    in.usage->busy += t;
    ++in.usage->steps;
    in.usage->prefill_tokens += tokens;
    in.usage->decode_tokens += d;
    if (d > 0) ++in.usage->decode_steps;
    push(now_ + t, EventType::step_end, i);
  }

  void finish_request(Instance& in, std::int64_t r) {
    in.kv_used -= need(in, r);
    --in.resident;
    r_.times[static_cast<std::size_t>(r)].finished = now_;
    --in_system_;
    ++r_.completed;
    record(now_);
  }

  void end_step(std::int64_t i) {
    Instance& in = inst_[static_cast<std::size_t>(i)];
    in.busy = false;
    for (const Chunk& ch : in.chunks) {
      const std::int64_t r = ch.request;
      RequestState& s = state_[static_cast<std::size_t>(r)];
      const Request& q = req_[static_cast<std::size_t>(r)];
      s.prefilled += ch.tokens;
      if (s.prefilled < q.prompt) continue;
      in.prefilling.erase(std::find(in.prefilling.begin(), in.prefilling.end(), r));
      r_.times[static_cast<std::size_t>(r)].first_token = now_;
      if (q.output == 1) {
        finish_request(in, r);
      } else if (in.role == Role::colocated) {
        in.joining.push_back(r);
      } else {
        s.decode_instance = shortest(decode_first_, decode_count_);
        enqueue(s.decode_instance, r);
      }
    }
    if (in.step_decode > 0) {
      const std::int64_t k = in.decode_steps++;
      in.decode_context += static_cast<double>(in.step_decode);
      while (!in.decoding.empty() && in.decoding.top().first <= k) {
        const std::int64_t r = in.decoding.top().second;
        in.decoding.pop();
        const Request& q = req_[static_cast<std::size_t>(r)];
        in.decode_context -= static_cast<double>(q.prompt + q.output);
        finish_request(in, r);
      }
      if (in.decoding.empty()) in.decode_context = 0;  // no drift from rounding
    }
    admit(i);
    start_step(i);
  }

  SimResult finish() {
    std::vector<double> ttft, tpot, e2e, wait;
    double makespan = 0;
    std::int64_t tokens = 0;
    for (std::size_t i = 0; i < req_.size(); ++i) {
      const RequestTimes& t = r_.times[i];
      if (state_[i].rejected) continue;
      const Request& q = req_[i];
      makespan = std::max(makespan, t.finished);
      ttft.push_back(t.first_token - t.arrival);
      e2e.push_back(t.finished - t.arrival);
      wait.push_back(state_[i].queue_wait);
      tokens += q.output;
      bool met = ttft.back() <= c_.slo_ttft;
      if (q.output > 1) {
        tpot.push_back((t.finished - t.first_token) / static_cast<double>(q.output - 1));
        met = met && tpot.back() <= c_.slo_tpot;
      }
      if (met) ++r_.slo_met;
    }
    r_.makespan = makespan;
    const double last_arrival = req_.empty() ? 0.0 : req_.back().arrival;
    r_.offered_rate = last_arrival > 0 ? static_cast<double>(req_.size()) / last_arrival : 0;
    double wait_sum = 0, e2e_sum = 0;
    for (double w : wait) wait_sum += w;
    for (double w : e2e) e2e_sum += w;
    r_.ttft = distribution(std::move(ttft));
    r_.tpot = distribution(std::move(tpot));
    r_.e2e = distribution(e2e);
    r_.queue_wait = distribution(wait);
    const auto per_s = [&](double x) { return makespan > 0 ? x / makespan : 0.0; };
    r_.slo_attainment =
        r_.completed > 0 ? static_cast<double>(r_.slo_met) / static_cast<double>(r_.completed) : 0;
    // Goodput over the arrival window (the offered rate x attainment), not over the makespan,
    // whose drain after the last arrival would lower it with the run's length.
    r_.goodput = last_arrival > 0 ? static_cast<double>(r_.slo_met) / last_arrival
                                  : per_s(static_cast<double>(r_.slo_met));
    r_.throughput = per_s(static_cast<double>(r_.completed));
    r_.output_tokens_per_s = per_s(static_cast<double>(tokens));
    r_.tokens_per_s_per_gpu =
        r_.gpus > 0 ? r_.output_tokens_per_s / static_cast<double>(r_.gpus) : 0;
    for (PoolUsage* u : {&r_.colocated, &r_.prefill, &r_.decode}) {
      u->utilization = makespan > 0 && u->instances > 0
                           ? u->busy / (static_cast<double>(u->instances) * makespan)
                           : 0;
      const std::int64_t ds = u->decode_steps;
      u->mean_decode_batch =
          ds > 0 ? static_cast<double>(u->decode_tokens) / static_cast<double>(ds) : 0;
    }
    r_.kv_transfer_time = transfers_ > 0 ? transfer_sum_ / static_cast<double>(transfers_) : 0;
    little(wait_sum, e2e_sum);
    series(makespan);
    return std::move(r_);
  }

  // L and L_q from the recorded counts (the integral of N(t)), W and W_q from the requests.
  void little(double wait_sum, double e2e_sum) {
    double area = 0, qarea = 0;
    for (std::size_t k = 1; k < changes_.size(); ++k) {
      const double dt = changes_[k].t - changes_[k - 1].t;
      area += changes_[k - 1].in_system * dt;
      qarea += changes_[k - 1].queued * dt;
    }
    LittleCheck& l = r_.little;
    if (r_.makespan <= 0 || r_.completed == 0) return;
    const double n = static_cast<double>(r_.completed);
    l.l = area / r_.makespan;
    l.lq = qarea / r_.makespan;
    l.lambda = n / r_.makespan;
    l.w = e2e_sum / n;
    l.wq = wait_sum / n;
    const auto rel = [](double a, double b) {
      return std::max(a, b) > 0 ? std::abs(a - b) / std::max(a, b) : 0.0;
    };
    l.relative_error = rel(l.l, l.lambda * l.w);
    l.queue_relative_error = rel(l.lq, l.lambda * l.wq);
  }

  void series(double makespan) {
    const std::int64_t bins = c_.queue_series_bins;
    if (makespan <= 0 || bins <= 0) return;
    const double w = makespan / static_cast<double>(bins);
    r_.queue_series.resize(static_cast<std::size_t>(bins));
    for (std::int64_t b = 0; b < bins; ++b)
      r_.queue_series[static_cast<std::size_t>(b)].t = w * static_cast<double>(b);
    for (std::size_t k = 0; k + 1 < changes_.size(); ++k) {
      double t0 = changes_[k].t;
      const double t1 = changes_[k + 1].t;
      while (t0 < t1) {
        const auto b = std::min(bins - 1, static_cast<std::int64_t>(t0 / w));
        const double edge = std::min(t1, w * static_cast<double>(b + 1));
        const double dt = (b == bins - 1 ? t1 : edge) - t0;
        QueuePoint& p = r_.queue_series[static_cast<std::size_t>(b)];
        p.queued += changes_[k].queued * dt / w;
        p.in_system += changes_[k].in_system * dt / w;
        t0 += dt;
        if (dt <= 0) break;
      }
    }
  }

  struct Change {
    double t, queued, in_system;
  };

  const std::vector<Request>& req_;
  const SimConfig& c_;
  std::vector<RequestState> state_;
  std::vector<Instance> inst_;
  std::int64_t front_first_ = 0, front_count_ = 0, decode_first_ = 0, decode_count_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  double now_ = 0;
  std::int64_t in_system_ = 0, queued_ = 0;
  std::vector<Change> changes_;
  double transfer_sum_ = 0;
  std::int64_t transfers_ = 0;
  SimResult r_;
};

}  // namespace

SimResult simulate(const std::vector<Request>& requests, const SimConfig& config) {
  for (std::size_t i = 1; i < requests.size(); ++i)
    LIGHTSIM_CHECK(requests[i].arrival >= requests[i - 1].arrival,
                   "requests are not sorted by arrival at index {}", i);
  const auto check_pool = [&](const SimPool& p) {
    LIGHTSIM_CHECK(p.steps != nullptr && p.instances >= 1, "serving pool without instances");
  };
  if (config.disaggregated) {
    check_pool(config.prefill);
    check_pool(config.decode);
  } else {
    check_pool(config.colocated);
  }
  return Simulation(requests, config).run();
}

}  // namespace lightsim::serve
