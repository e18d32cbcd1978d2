// One FAISS IndexIVFPQ (inner product) over n vectors of dimension D: the one place lightsim
// builds a FAISS index (Jegou et al., "Product quantization for nearest neighbor search",
// TPAMI 2011; FAISS, Johnson et al. 2019). Used by the faiss_ivfpq scorer (over a head's token
// keys) and by the bytes-touched model of the energy study's ANN baseline (over block mean
// keys). Built and searched on the calling thread only (one OpenMP thread), with fixed
// k-means seeds: deterministic.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace lightsim {
class Progress;
}

namespace lightsim::kv {

struct IvfPqParams {
  std::size_t nlist = 1;     // inverted lists (coarse centroids), <= vectors
  std::size_t pq_m = 16;     // PQ sub-quantizers (must divide the dimension)
  std::size_t pq_nbits = 8;  // bits per sub-quantizer code; 2^pq_nbits <= vectors
  int seed = 1;              // k-means seed of the coarse quantizer; the PQ's is seed + 1
  // Training points per centroid below which FAISS warns on stderr (FAISS defaults 39).
  int coarse_min_points = 39, pq_min_points = 39;
  // Stop flag polled by FAISS's k-means once per iteration (faiss::InterruptCallback) while
  // the index trains; when set, the constructor throws Interrupted. Null: never.
  const std::atomic<bool>* cancel = nullptr;
  // When set, training is reported as a task of `progress` labelled "faiss training (Mflop)":
  // its units are the MFLOP of the k-means distance products (ivfpq_training_plan), advanced
  // from the same callback's polls. Null: no task.
  Progress* progress = nullptr;
};

// What IndexIVFPQ::train does, as FAISS 1.7.3 (Debian's libfaiss-dev) runs it, seen from its
// InterruptCallback: a k-means (faiss::Clustering) of the coarse quantizer (nlist centroids
// over min(n, nlist x max_points_per_centroid) vectors, cp.niter x cp.nredo iterations), the
// assignment of the PQ's training vectors (min(n, 2^pq_nbits x max_points_per_centroid), the
// PQ's subsample) to compute residuals, then one k-means per PQ sub-quantizer (2^pq_nbits
// centroids in dim / pq_m dimensions, pq.cp.niter x nredo iterations). FAISS polls the callback
// once per BLAS block of a distance computation (distance_compute_blas_query_bs = 4096 rows,
// above distance_compute_blas_threshold rows), plus twice per k-means iteration; a k-means of
// as many vectors as centroids copies them (no iteration). Each stage's FLOP are its distance
// products, 2 x rows x centroids x dimensions per pass (the sgemm that dominates k-means).
struct IvfPqTrainingStage {
  std::uint64_t polls = 0;  // callback polls of the stage
  double flops = 0;         // FLOP of its distance products
};
struct IvfPqTrainingPlan {
  std::vector<IvfPqTrainingStage> stages;  // coarse k-means, residual assignment, PQ k-means
  std::uint64_t polls() const;
  double flops() const;
};
IvfPqTrainingPlan ivfpq_training_plan(std::size_t n, std::size_t dim, const IvfPqParams& params);

class IvfPqIndex {
 public:
  // Trains the index on `vectors` ([n, dim], row-major) and adds them. Throws InputError for
  // parameters the vectors cannot support (pq_m not dividing dim, too few vectors).
  IvfPqIndex(const float* vectors, std::size_t n, std::size_t dim, const IvfPqParams& params);
  ~IvfPqIndex();
  IvfPqIndex(IvfPqIndex&&) noexcept;
  IvfPqIndex& operator=(IvfPqIndex&&) noexcept;

  // The top `k` vectors by estimated inner product with `query`, scanning `nprobe` lists:
  // distances[i] (descending) and labels[i] (-1 when fewer than k were found).
  void search(const float* query, std::size_t k, std::size_t nprobe, float* distances,
              std::int64_t* labels) const;
  // The `nprobe` lists the coarse quantizer picks for `query` (-1 when fewer lists).
  void probe(const float* query, std::size_t nprobe, std::int64_t* lists) const;
  std::size_t list_size(std::size_t list) const;  // vectors in inverted list `list`
  std::size_t code_size() const;                  // bytes per PQ code
  std::size_t ksub() const;                       // 2^pq_nbits centroids per sub-quantizer
  std::size_t nlist() const;
  std::size_t dim() const;
  // Callback polls FAISS made while this index trained (ivfpq_training_plan predicts them).
  std::uint64_t training_polls() const { return training_polls_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::uint64_t training_polls_ = 0;
};

// Bytes an IVF-PQ search touches per query (the energy study's ANN baseline, docs/studies.md
// "energy"): the probed lists' codes (list sizes from the index x code_size), the coarse
// centroids (nlist x dim x 4 B, all scored) and the PQ codebook read to build the distance
// tables (2^nbits x dim x 4 B).
struct IvfPqTouch {
  double codes = 0, centroids = 0, codebook = 0;  // B per query
  double bytes() const { return codes + centroids + codebook; }
  std::size_t nlist = 0, nprobe = 0, pq_m = 0, pq_nbits = 0;  // as built
};

// The parameters as requested; nlist 0 = ceil(sqrt(vectors)) (the FAISS guideline), nlist and
// nprobe clipped to the vectors and lists, pq_nbits lowered to floor(log2(vectors)).
struct IvfPqTouchOptions {
  std::size_t nlist = 0, pq_m = 16, pq_nbits = 8, nprobe = 8;
};

// IvfPqTouch of an index over `vectors` ([n, dim]) averaged over `queries` ([nq, dim]); the
// k-means seed is `seed` & 0x7fffffff. n >= 2 and nq >= 1, else InputError.
IvfPqTouch ivfpq_bytes_touched(const float* vectors, std::size_t n, std::size_t dim,
                               const float* queries, std::size_t nq,
                               const IvfPqTouchOptions& options, std::uint64_t seed);

}  // namespace lightsim::kv
