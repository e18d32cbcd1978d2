// The MPI communicator of `lightsim sweep` (docs/sweeps.md, "Running on a cluster").
#pragma once

#include <memory>

#include "lightsim/sweep/run.h"

namespace lightsim::cli {

// True when this process was started by an MPI launcher (mpirun/mpiexec, or srun with PMI/
// PMIx), read from the launcher's environment variables.
bool launched_by_mpi();

// An MPI_COMM_WORLD communicator when this build has MPI and launched_by_mpi(), else a
// SingleProcess. MPI is initialized here (MPI_THREAD_FUNNELED: only the calling thread
// makes MPI calls) and finalized when the returned object is destroyed.
std::unique_ptr<sweep::Communicator> make_communicator();

}  // namespace lightsim::cli
