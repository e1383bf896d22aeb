//go:build gmpi_ompi

// The hand-written part of the Open MPI front: the calls from the runtime
// into user code (front_callbacks.inc, shared by the fronts), the
// predefined attribute callbacks Open MPI's header names as library
// functions, and the variadic MPI_Pcontrol.

#include "front_ompi.h"

#include "front_callbacks.inc"
#include "front_fstatus.inc"

// --- the predefined attribute callbacks ------------------------------------

static int null_copy(void *attribute_val_out, int *flag)
{
    (void)attribute_val_out;
    *flag = 0;
    return MPI_SUCCESS;
}

static int dup_copy(void *attribute_val_in, void *attribute_val_out, int *flag)
{
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

#define NULL_DELETE(name, T)                                                              \
    int name(T o, int k, void *v, void *e)                                                \
    {                                                                                     \
        (void)o, (void)k, (void)v, (void)e;                                               \
        return MPI_SUCCESS;                                                               \
    }
#define NULL_COPY(name, T)                                                                \
    int name(T o, int k, void *e, void *in, void *out, int *flag)                         \
    {                                                                                     \
        (void)o, (void)k, (void)e, (void)in;                                              \
        return null_copy(out, flag);                                                      \
    }
#define DUP(name, T)                                                                      \
    int name(T o, int k, void *e, void *in, void *out, int *flag)                         \
    {                                                                                     \
        (void)o, (void)k, (void)e;                                                        \
        return dup_copy(in, out, flag);                                                   \
    }
NULL_DELETE(OMPI_C_MPI_TYPE_NULL_DELETE_FN, MPI_Datatype)
NULL_COPY(OMPI_C_MPI_TYPE_NULL_COPY_FN, MPI_Datatype)
DUP(OMPI_C_MPI_TYPE_DUP_FN, MPI_Datatype)
NULL_DELETE(OMPI_C_MPI_COMM_NULL_DELETE_FN, MPI_Comm)
NULL_COPY(OMPI_C_MPI_COMM_NULL_COPY_FN, MPI_Comm)
DUP(OMPI_C_MPI_COMM_DUP_FN, MPI_Comm)
NULL_DELETE(OMPI_C_MPI_NULL_DELETE_FN, MPI_Comm)
NULL_COPY(OMPI_C_MPI_NULL_COPY_FN, MPI_Comm)
DUP(OMPI_C_MPI_DUP_FN, MPI_Comm)
NULL_DELETE(OMPI_C_MPI_WIN_NULL_DELETE_FN, MPI_Win)
NULL_COPY(OMPI_C_MPI_WIN_NULL_COPY_FN, MPI_Win)
DUP(OMPI_C_MPI_WIN_DUP_FN, MPI_Win)

// --- MPI_Pcontrol ------------------------------------------------------------

extern int gmpi_inner_Pcontrol(const int level, ...);

#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    return fr_err_out(gmpi_inner_Pcontrol(level));
}
