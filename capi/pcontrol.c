// MPI_Pcontrol is variadic, so it cannot go through a Go export and is
// written here by hand (the generator skips it because this file defines
// PMPI_Pcontrol).
//
// The standard leaves the meaning of every level to the profiling library
// and says that an implementation without profiling control ignores the
// call; gmpi has none, so every level is accepted and nothing happens. A
// profiler that interposes MPI_Pcontrol sees the call as usual.

#include "zz_inner.h"
#include "../include/mpi.h"

#ifndef GMPI_FRONT
#pragma weak MPI_Pcontrol = PMPI_Pcontrol
#endif
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
