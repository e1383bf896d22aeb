//go:build !gmpi_ompi && !gmpi_abi

// Calls through the C function pointers of MPI_Register_datarep (declared
// in api_file.go): cgo cannot call a C function pointer directly. The
// fronts have their own in front_callbacks.inc.

#include "../include/mpi.h"

int gmpi_call_datarep_conv(void *fn, int large, void *userbuf, int datatype, long long count,
                           void *filebuf, long long position, void *extra_state)
{
    if (large)
        return ((MPI_Datarep_conversion_function_c *)fn)(userbuf, (MPI_Datatype)datatype, (MPI_Count)count,
                                                         filebuf, (MPI_Offset)position, extra_state);
    return ((MPI_Datarep_conversion_function *)fn)(userbuf, (MPI_Datatype)datatype, (int)count, filebuf,
                                                   (MPI_Offset)position, extra_state);
}

int gmpi_call_datarep_extent(void *fn, int datatype, void *extent, void *extra_state)
{
    return ((MPI_Datarep_extent_function *)fn)((MPI_Datatype)datatype, (MPI_Aint *)extent, extra_state);
}
