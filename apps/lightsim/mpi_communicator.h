// The MPI communicator of `lightsim sweep` (docs/sweeps.md, "Running on a cluster").
#pragma once

#include <memory>

#include "lightsim/sweep/run.h"

namespace lightsim::cli {

// True when this process was started by an MPI launcher (mpirun/mpiexec, or srun with PMI/
// PMIx), read from the launcher's environment variables.
bool launched_by_mpi();

// Throws UsageError when this process is one of several tasks that a launcher started without
// a way to talk to each other, so that each would run the whole sweep into the same store:
// srun without PMI (`--mpi=none`: SLURM_STEP_NUM_TASKS > 1 and no PMI/PMIx variable), or mpirun
// with a build of lightsim without MPI. A run given a shard of its own
// (--shard, e.g. $SLURM_PROCID/$SLURM_NTASKS) is allowed.
void check_launcher_has_pmi(const sweep::Shard& shard);

// An MPI_COMM_WORLD communicator when this build has MPI and launched_by_mpi(), else a
// SingleProcess. MPI is initialized here (MPI_THREAD_FUNNELED: only the calling thread
// makes MPI calls) and finalized when the returned object is destroyed.
std::unique_ptr<sweep::Communicator> make_communicator();

}  // namespace lightsim::cli
