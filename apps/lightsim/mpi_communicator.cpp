// MPI_COMM_WORLD behind sweep::Communicator (apps/lightsim/mpi_communicator.h).
#include "mpi_communicator.h"

#include <cstdint>
#include <cstdlib>

#include "lightsim/core/error.h"

#ifdef LIGHTSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace lightsim::cli {

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(var) != nullptr) return true;
  return false;
}

namespace {

// The number in environment variable `var`, 0 when unset or not a number.
long env_count(const char* var) {
  const char* text = std::getenv(var);
  if (text == nullptr) return 0;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  return end != text && *end == '\0' ? n : 0;
}

}  // namespace

void check_launcher_has_pmi(const sweep::Shard& shard) {
  if (!shard.whole()) return;
  // Set by srun for the tasks of a job step (not in a batch script itself, whose
  // SLURM_NTASKS may be > 1 while one process runs).
  const long tasks = env_count("SLURM_STEP_NUM_TASKS");
  LIGHTSIM_CHECK_AS(UsageError, tasks <= 1 || launched_by_mpi(),
                    "sweep: this is one of {} tasks started by srun without PMI (no PMIX_RANK, "
                    "PMI_RANK or PMI_SIZE in the environment), so every task would run the whole "
                    "sweep into one store; start it with `srun --mpi=pmix` (or pmi2), or give each "
                    "task a shard: --shard $SLURM_PROCID/$SLURM_NTASKS",
                    tasks);
#ifndef LIGHTSIM_HAVE_MPI
  const long ranks = env_count("OMPI_COMM_WORLD_SIZE");
  LIGHTSIM_CHECK_AS(UsageError, ranks <= 1,
                    "sweep: started by mpirun as one of {} ranks, but this lightsim was built "
                    "without MPI (install libopenmpi-dev and rebuild), so every rank would run "
                    "the whole sweep; run one process, or give each rank a shard with --shard",
                    ranks);
#endif
}

#ifdef LIGHTSIM_HAVE_MPI
namespace {

void check(int code, const char* what) {
  LIGHTSIM_CHECK_AS(IoError, code == MPI_SUCCESS, "MPI {} failed (error {})", what, code);
}

class MpiCommunicator final : public sweep::Communicator {
 public:
  MpiCommunicator() {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "init");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "size");
    // The shared counter: one unsigned 64-bit integer in rank 0's window, in one passive-target
    // epoch for the whole run (MPI-4.0 sections 12.3.2, 12.3.4, 12.5.3). Under OpenMPI on one
    // node the window is shared memory (osc/sm) and an atomic; across nodes it is a network
    // atomic where the transport has one (osc/rdma, osc/ucx), else rank 0 serves it when it
    // next enters MPI (between its own chunks).
    const MPI_Aint bytes = rank_ == 0 ? sizeof(std::uint64_t) : 0;
    check(MPI_Win_allocate(bytes, sizeof(std::uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &counter_,
                           &window_),
          "window allocation");
    check(MPI_Win_lock_all(MPI_MODE_NOCHECK, window_), "window lock");
    if (rank_ == 0) reset_counter();
    check(MPI_Barrier(MPI_COMM_WORLD), "barrier");  // nobody draws before it is 0
  }
  ~MpiCommunicator() override {
    MPI_Win_unlock_all(window_);
    MPI_Win_free(&window_);
    MPI_Finalize();
  }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::string broadcast(const std::string& text) override {
    unsigned long long n = text.size();
    check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "broadcast");
    std::string out = rank_ == 0 ? text : std::string(n, '\0');
    check(MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD), "broadcast");
    return out;
  }

  std::vector<std::string> gather(const std::string& text) override {
    int n = static_cast<int>(text.size());
    std::vector<int> sizes(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    check(MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "gather");
    std::vector<int> offsets(sizes.size(), 0);
    std::size_t total = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(sizes[r]);
    }
    std::string all(total, '\0');
    check(MPI_Gatherv(text.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR,
                      0, MPI_COMM_WORLD),
          "gather");
    std::vector<std::string> parts;
    for (std::size_t r = 0; r < sizes.size(); ++r)
      parts.push_back(
          all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(sizes[r])));
    return parts;
  }

  std::size_t fetch_add(std::size_t n) override {
    const std::uint64_t add = n;
    std::uint64_t before = 0;
    check(MPI_Fetch_and_op(&add, &before, MPI_UINT64_T, 0, 0, MPI_SUM, window_), "fetch-and-add");
    check(MPI_Win_flush(0, window_), "window flush");
    return static_cast<std::size_t>(before);
  }

  void reset_counter() override {
    const std::uint64_t zero = 0;
    std::uint64_t before = 0;
    check(MPI_Fetch_and_op(&zero, &before, MPI_UINT64_T, 0, 0, MPI_REPLACE, window_),
          "counter reset");
    check(MPI_Win_flush(0, window_), "window flush");
  }

 private:
  int rank_ = 0, size_ = 1;
  std::uint64_t* counter_ = nullptr;  // rank 0's window (unused elsewhere)
  MPI_Win window_ = MPI_WIN_NULL;
};

}  // namespace
#endif

std::unique_ptr<sweep::Communicator> make_communicator() {
#ifdef LIGHTSIM_HAVE_MPI
  if (launched_by_mpi()) return std::make_unique<MpiCommunicator>();
#endif
  return std::make_unique<sweep::SingleProcess>();
}

}  // namespace lightsim::cli
