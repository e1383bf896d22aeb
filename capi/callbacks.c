//go:build !gmpi_ompi && !gmpi_abi

// Calls through C function pointers that the user handed to MPI (attribute
// copy/delete callbacks, error handlers). cgo cannot call a C function
// pointer directly, so the Go side calls these shims (declared in
// callbacks.go).

#include "../include/mpi.h"

int gmpi_call_copy_fn(void *fn, int oldobj, int keyval, void *extra_state,
                      void *attribute_val_in, void *attribute_val_out, int *flag)
{
    return ((MPI_Comm_copy_attr_function *)fn)((MPI_Comm)oldobj, keyval, extra_state,
                                               attribute_val_in, attribute_val_out, flag);
}

int gmpi_call_delete_fn(void *fn, int obj, int keyval, void *attribute_val, void *extra_state)
{
    return ((MPI_Comm_delete_attr_function *)fn)((MPI_Comm)obj, keyval, attribute_val, extra_state);
}

void gmpi_call_comm_errhandler(void *fn, int *comm, int *code)
{
    ((MPI_Comm_errhandler_function *)fn)((MPI_Comm *)comm, code);
}

void gmpi_call_file_errhandler(void *fn, void **file, int *code)
{
    ((MPI_File_errhandler_function *)fn)((MPI_File *)file, code);
}

// Generalized request callbacks (MPI_Grequest_start, MPIX_Grequest_start).
int gmpi_call_greq_query(void *fn, void *extra_state, void *status)
{
    return ((MPI_Grequest_query_function *)fn)(extra_state, (MPI_Status *)status);
}

int gmpi_call_greq_free(void *fn, void *extra_state)
{
    return ((MPI_Grequest_free_function *)fn)(extra_state);
}

int gmpi_call_greq_cancel(void *fn, void *extra_state, int complete)
{
    return ((MPI_Grequest_cancel_function *)fn)(extra_state, complete);
}

int gmpi_call_greq_poll(void *fn, void *extra_state, void *status)
{
    return ((MPIX_Grequest_poll_function *)fn)(extra_state, (MPI_Status *)status);
}

int gmpi_call_greq_wait(void *fn, void *extra_state, double timeout, void *status)
{
    void *states[1] = {extra_state};
    return ((MPIX_Grequest_wait_function *)fn)(1, states, timeout, (MPI_Status *)status);
}
