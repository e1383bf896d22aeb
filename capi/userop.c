//go:build !gmpi_ompi && !gmpi_abi

// Calls through the C function pointers of user reduction operations
// (MPI_Op_create, MPI_Op_create_c). cgo cannot call a C function pointer
// directly, so capi/api_op.go calls these shims. The buffers arrive as
// integers: they may be Go memory the runtime keeps alive for the call.

#include <stdint.h>
#include "../include/mpi.h"

void gmpi_call_user_op(void *fn, uintptr_t in, uintptr_t inout, int len, int dt)
{
    MPI_Datatype t = (MPI_Datatype)dt;
    ((MPI_User_function *)fn)((void *)in, (void *)inout, &len, &t);
}

void gmpi_call_user_op_c(void *fn, uintptr_t in, uintptr_t inout, long len, int dt)
{
    MPI_Count n = len;
    MPI_Datatype t = (MPI_Datatype)dt;
    ((MPI_User_function_c *)fn)((void *)in, (void *)inout, &n, &t);
}
