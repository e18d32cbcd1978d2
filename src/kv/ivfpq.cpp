// The FAISS IVF-PQ index (ivfpq.h).
#include "lightsim/kv/ivfpq.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/impl/AuxIndexStructures.h>
#include <faiss/impl/FaissException.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <vector>

#include "lightsim/core/error.h"

namespace lightsim::kv {
namespace {

using FaissIdx = faiss::Index::idx_t;

// FAISS parallelizes internally with OpenMP; lightsim parallelizes over heads (parallel_for), so
// each index runs on the calling thread only: nested teams would oversubscribe the cores, and
// OpenMP's spinning barriers stall when the cores are shared (a 3 s unit test took 70 s at load
// 20). omp_set_num_threads changes the calling thread's ICV only; the guard restores it.
class SingleThreadedOmp {
 public:
  SingleThreadedOmp() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleThreadedOmp() { omp_set_num_threads(saved_); }
  SingleThreadedOmp(const SingleThreadedOmp&) = delete;
  SingleThreadedOmp& operator=(const SingleThreadedOmp&) = delete;

 private:
  int saved_;
};

// FAISS's interrupt hook is one process-wide callback; it answers for the calling thread, whose
// stop flag a TrainingStopFlag sets (each head trains on one thread).
thread_local const std::atomic<bool>* t_stop_flag = nullptr;

struct StopFlagCallback final : faiss::InterruptCallback {
  bool want_interrupt() override {
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

}  // namespace

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
  try {
    index.train(static_cast<FaissIdx>(n), vectors);
  } catch (const faiss::FaissException&) {
    if (stop.stopped()) throw Interrupted("faiss_ivfpq training: interrupted");
    throw;
  }
  if (stop.stopped()) throw Interrupted("faiss_ivfpq training: interrupted");
  index.add(static_cast<FaissIdx>(n), vectors);
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
