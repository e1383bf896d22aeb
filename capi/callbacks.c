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
