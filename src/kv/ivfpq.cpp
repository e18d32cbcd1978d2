// The FAISS IVF-PQ index (ivfpq.h).
#include "lightsim/kv/ivfpq.h"

#include <dlfcn.h>
#include <faiss/IndexFlat.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/impl/AuxIndexStructures.h>
#include <faiss/impl/FaissException.h>
#include <faiss/utils/distances.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <vector>

#include "lightsim/core/error.h"
#include "lightsim/core/progress.h"

namespace lightsim::kv {
namespace {

using FaissIdx = faiss::Index::idx_t;

// FAISS parallelizes internally with OpenMP; lightsim parallelizes over heads (parallel_for), so
// each index runs on the calling thread only: nested teams would oversubscribe the cores, and
// OpenMP's spinning barriers stall when the cores are shared (a 3 s unit test took 70 s at load
// 20). omp_set_num_threads changes the calling thread's ICV only; the guard restores it.
//
// FAISS's k-means and PQ training spend most of their time in the BLAS sgemm (perf, 2026-12-04:
// 61 % of the prism_design study). scripts/packages.txt installs OpenBLAS's serial build as
// libblas.so.3; a machine whose libblas.so.3 is OpenBLAS's pthread build would start its own
// team inside each sgemm, so the first guard also pins OpenBLAS to one thread when it is the
// BLAS loaded (openblas_set_num_threads, looked up at run time: netlib's BLAS has no such
// symbol, and then nothing is called). OpenBLAS's OpenMP build follows omp_set_num_threads.
void pin_openblas_to_one_thread() {
  static const bool pinned = [] {
    using SetThreads = void (*)(int);
    void* symbol = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    if (symbol != nullptr) reinterpret_cast<SetThreads>(symbol)(1);
    return symbol != nullptr;
  }();
  static_cast<void>(pinned);
}

class SingleThreadedOmp {
 public:
  SingleThreadedOmp() : saved_(omp_get_max_threads()) {
    pin_openblas_to_one_thread();
    omp_set_num_threads(1);
  }
  ~SingleThreadedOmp() { omp_set_num_threads(saved_); }
  SingleThreadedOmp(const SingleThreadedOmp&) = delete;
  SingleThreadedOmp& operator=(const SingleThreadedOmp&) = delete;

 private:
  int saved_;
};

// Counts FAISS's callback polls while an index trains and turns them into the plan's FLOP
// (linear in the polls within a stage: every poll of a stage ends an equal share of its work),
// advancing a progress task in MFLOP when one is given.
class TrainingMeter {
 public:
  TrainingMeter(const IvfPqTrainingPlan& plan, Progress* progress) : plan_(plan) {
    total_mflop_ =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(plan.flops() / 1e6)));
    if (progress != nullptr) task_.emplace(progress->start("faiss training (Mflop)", total_mflop_));
  }
  void poll() {
    ++polls_;
    if (!task_) return;
    const auto mflop =
        std::min(total_mflop_, static_cast<std::uint64_t>(flops_after(polls_) / 1e6));
    if (mflop > reported_) task_->advance(mflop - reported_);
    reported_ = std::max(reported_, mflop);
  }
  void finish() {
    if (!task_) return;
    if (total_mflop_ > reported_) task_->advance(total_mflop_ - reported_);
    task_->finish();
  }
  std::uint64_t polls() const { return polls_; }

 private:
  // FLOP done after `polls` polls: whole stages, then the share of the current one.
  double flops_after(std::uint64_t polls) const {
    double flops = 0;
    for (const IvfPqTrainingStage& st : plan_.stages) {
      if (polls >= st.polls) {
        flops += st.flops;
        polls -= st.polls;
        continue;
      }
      return flops + st.flops * static_cast<double>(polls) / static_cast<double>(st.polls);
    }
    return flops;
  }
  const IvfPqTrainingPlan& plan_;
  std::optional<ProgressTask> task_;
  std::uint64_t polls_ = 0, reported_ = 0, total_mflop_ = 1;
};

// FAISS's interrupt hook is one process-wide callback; it answers for the calling thread, whose
// stop flag a TrainingStopFlag sets and whose training meter (if any) counts the poll (each head
// trains on one thread).
thread_local const std::atomic<bool>* t_stop_flag = nullptr;
thread_local TrainingMeter* t_meter = nullptr;

struct StopFlagCallback final : faiss::InterruptCallback {
  bool want_interrupt() override {
    if (t_meter != nullptr) t_meter->poll();
    return t_stop_flag != nullptr && t_stop_flag->load(std::memory_order_relaxed);
  }
};

class TrainingStopFlag {
 public:
  explicit TrainingStopFlag(const std::atomic<bool>* flag) {
    static std::once_flag installed;
    std::call_once(installed,
                   [] { faiss::InterruptCallback::instance.reset(new StopFlagCallback()); });
    t_stop_flag = flag;
  }
  ~TrainingStopFlag() { t_stop_flag = nullptr; }
  TrainingStopFlag(const TrainingStopFlag&) = delete;
  TrainingStopFlag& operator=(const TrainingStopFlag&) = delete;
  bool stopped() const {
    return t_stop_flag != nullptr && t_stop_flag->load(std::memory_order_relaxed);
  }
};

// The meter of the calling thread's training while it lives.
class MeterScope {
 public:
  explicit MeterScope(TrainingMeter& meter) { t_meter = &meter; }
  ~MeterScope() { t_meter = nullptr; }
  MeterScope(const MeterScope&) = delete;
  MeterScope& operator=(const MeterScope&) = delete;
};

// Polls FAISS 1.7.3's distance computation makes over `rows` query rows: one per BLAS block
// (faiss/utils/distances.cpp, exhaustive_*_blas), none on the sequential path.
std::uint64_t distance_polls(std::size_t rows) {
  const auto threshold =
      static_cast<std::size_t>(std::max(0, faiss::distance_compute_blas_threshold));
  const auto block = static_cast<std::size_t>(std::max(1, faiss::distance_compute_blas_query_bs));
  return rows < threshold ? 0 : (rows + block - 1) / block;
}

// A k-means stage: `rows` training vectors (after FAISS's subsampling to k x
// max_points_per_centroid) into k centroids of `dims` dimensions.
IvfPqTrainingStage kmeans_stage(std::size_t n, std::size_t k, std::size_t dims,
                                const faiss::ClusteringParameters& cp) {
  const std::size_t rows =
      std::min(n, k * static_cast<std::size_t>(std::max(1, cp.max_points_per_centroid)));
  if (rows <= k) return {};  // FAISS copies the vectors: no iteration
  const auto iterations = static_cast<std::uint64_t>(std::max(1, cp.niter) * std::max(1, cp.nredo));
  return {iterations * (distance_polls(rows) + 2),
          static_cast<double>(iterations) * 2.0 * static_cast<double>(rows) *
              static_cast<double>(k) * static_cast<double>(dims)};
}

IvfPqTrainingPlan plan_of(const faiss::IndexIVFPQ& index, std::size_t n) {
  const auto dim = static_cast<std::size_t>(index.d);
  const std::size_t ksub = index.pq.ksub;
  IvfPqTrainingPlan plan;
  plan.stages.push_back(kmeans_stage(n, index.nlist, dim, index.cp));
  // Residuals of the PQ's subsample: one assignment to the nlist coarse centroids.
  const std::size_t residual_rows = std::min(
      n, ksub * static_cast<std::size_t>(std::max(1, index.pq.cp.max_points_per_centroid)));
  plan.stages.push_back({distance_polls(residual_rows), 2.0 * static_cast<double>(residual_rows) *
                                                            static_cast<double>(index.nlist) *
                                                            static_cast<double>(dim)});
  IvfPqTrainingStage pq = kmeans_stage(residual_rows, ksub, index.pq.dsub, index.pq.cp);
  pq.polls *= index.pq.M;
  pq.flops *= static_cast<double>(index.pq.M);
  plan.stages.push_back(pq);
  return plan;
}

}  // namespace

std::uint64_t IvfPqTrainingPlan::polls() const {
  std::uint64_t p = 0;
  for (const IvfPqTrainingStage& st : stages) p += st.polls;
  return p;
}

double IvfPqTrainingPlan::flops() const {
  double f = 0;
  for (const IvfPqTrainingStage& st : stages) f += st.flops;
  return f;
}

struct IvfPqIndex::Impl {
  Impl(std::size_t dim, const IvfPqParams& p)
      : quantizer(static_cast<FaissIdx>(dim)),
        index(&quantizer, static_cast<FaissIdx>(dim), p.nlist, p.pq_m, p.pq_nbits,
              faiss::METRIC_INNER_PRODUCT) {}
  faiss::IndexFlatIP quantizer;
  faiss::IndexIVFPQ index;
};

IvfPqIndex::IvfPqIndex(const float* vectors, std::size_t n, std::size_t dim, const IvfPqParams& p) {
  LIGHTSIM_CHECK_AS(InputError, p.pq_m > 0 && dim % p.pq_m == 0,
                    "faiss_ivfpq: pq_m = {} must divide the dimension {}", p.pq_m, dim);
  LIGHTSIM_CHECK_AS(InputError, p.pq_nbits >= 1 && p.pq_nbits <= 16,
                    "faiss_ivfpq: pq_nbits = {} must be in [1, 16]", p.pq_nbits);
  LIGHTSIM_CHECK_AS(InputError, p.nlist >= 1 && p.nlist <= n,
                    "faiss_ivfpq: nlist = {} must be in [1, {}] (the vectors indexed)", p.nlist, n);
  LIGHTSIM_CHECK_AS(InputError, (std::size_t{1} << p.pq_nbits) <= n,
                    "faiss_ivfpq: 2^pq_nbits = {} centroids need at least as many vectors ({})",
                    std::size_t{1} << p.pq_nbits, n);
  impl_ = std::make_unique<Impl>(dim, p);
  faiss::IndexIVFPQ& index = impl_->index;
  index.cp.seed = p.seed;
  index.pq.cp.seed = p.seed + 1;
  index.verbose = false;
  index.cp.min_points_per_centroid = p.coarse_min_points;
  index.pq.cp.min_points_per_centroid = p.pq_min_points;
  const SingleThreadedOmp one_thread;
  const TrainingStopFlag stop(p.cancel);
  const IvfPqTrainingPlan plan = plan_of(index, n);
  TrainingMeter meter(plan, p.progress);
  {
    const MeterScope metered(meter);
    try {
      index.train(static_cast<FaissIdx>(n), vectors);
    } catch (const faiss::FaissException&) {
      if (stop.stopped()) throw Interrupted("faiss_ivfpq training: interrupted");
      throw;
    }
  }
  training_polls_ = meter.polls();
  if (stop.stopped()) throw Interrupted("faiss_ivfpq training: interrupted");
  meter.finish();
  index.add(static_cast<FaissIdx>(n), vectors);
}

IvfPqTrainingPlan ivfpq_training_plan(std::size_t n, std::size_t dim, const IvfPqParams& params) {
  LIGHTSIM_CHECK_AS(InputError, params.pq_m > 0 && dim % params.pq_m == 0,
                    "faiss_ivfpq: pq_m = {} must divide the dimension {}", params.pq_m, dim);
  faiss::IndexFlatIP quantizer(static_cast<FaissIdx>(dim));
  faiss::IndexIVFPQ index(&quantizer, static_cast<FaissIdx>(dim), params.nlist, params.pq_m,
                          params.pq_nbits, faiss::METRIC_INNER_PRODUCT);
  index.cp.min_points_per_centroid = params.coarse_min_points;
  index.pq.cp.min_points_per_centroid = params.pq_min_points;
  return plan_of(index, n);
}

IvfPqIndex::~IvfPqIndex() = default;
IvfPqIndex::IvfPqIndex(IvfPqIndex&&) noexcept = default;
IvfPqIndex& IvfPqIndex::operator=(IvfPqIndex&&) noexcept = default;

void IvfPqIndex::search(const float* query, std::size_t k, std::size_t nprobe, float* distances,
                        std::int64_t* labels) const {
  const SingleThreadedOmp one_thread;
  faiss::SearchParametersIVF params;
  params.nprobe = nprobe;
  static_assert(sizeof(FaissIdx) == sizeof(std::int64_t));
  impl_->index.search(1, query, static_cast<FaissIdx>(k), distances,
                      reinterpret_cast<FaissIdx*>(labels), &params);
}

void IvfPqIndex::probe(const float* query, std::size_t nprobe, std::int64_t* lists) const {
  const SingleThreadedOmp one_thread;
  std::vector<float> distances(nprobe);
  impl_->quantizer.search(1, query, static_cast<FaissIdx>(nprobe), distances.data(),
                          reinterpret_cast<FaissIdx*>(lists));
}

std::size_t IvfPqIndex::list_size(std::size_t list) const {
  return impl_->index.invlists->list_size(list);
}
std::size_t IvfPqIndex::code_size() const {
  return impl_->index.code_size;
}
std::size_t IvfPqIndex::ksub() const {
  return impl_->index.pq.ksub;
}
std::size_t IvfPqIndex::nlist() const {
  return impl_->index.nlist;
}
std::size_t IvfPqIndex::dim() const {
  return static_cast<std::size_t>(impl_->index.d);
}

IvfPqTouch ivfpq_bytes_touched(const float* vectors, std::size_t n, std::size_t dim,
                               const float* queries, std::size_t nq, const IvfPqTouchOptions& o,
                               std::uint64_t seed) {
  LIGHTSIM_CHECK_AS(InputError, n >= 2 && nq >= 1,
                    "faiss: need at least 2 vectors and 1 query (got {} and {})", n, nq);
  IvfPqTouch t;
  const auto floor_log2 = static_cast<std::size_t>(std::floor(std::log2(static_cast<double>(n))));
  t.pq_nbits = std::min(o.pq_nbits, floor_log2);
  t.pq_m = o.pq_m;
  const auto auto_nlist = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  t.nlist = std::min(n, o.nlist > 0 ? o.nlist : auto_nlist);
  t.nprobe = std::min(t.nlist, o.nprobe);
  // No under-training warnings on stderr: n >= every k-means' centroids by construction.
  const IvfPqIndex index(vectors, n, dim,
                         {.nlist = t.nlist,
                          .pq_m = t.pq_m,
                          .pq_nbits = t.pq_nbits,
                          .seed = static_cast<int>(seed & 0x7fffffff),
                          .coarse_min_points = 1,
                          .pq_min_points = 1});
  std::vector<std::int64_t> lists(t.nprobe);
  double codes = 0;
  for (std::size_t q = 0; q < nq; ++q) {
    index.probe(queries + q * dim, t.nprobe, lists.data());
    for (const std::int64_t l : lists)
      if (l >= 0)
        codes += static_cast<double>(index.list_size(static_cast<std::size_t>(l))) *
                 static_cast<double>(index.code_size());
  }
  t.codes = codes / static_cast<double>(nq);
  t.centroids = static_cast<double>(t.nlist * dim) * sizeof(float);
  t.codebook = static_cast<double>(index.ksub() * dim) * sizeof(float);
  return t;
}

}  // namespace lightsim::kv
