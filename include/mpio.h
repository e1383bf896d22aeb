/*
 * mpio.h: MPI-IO constants of gmpi (MPICH ABI; values as in ROMIO).
 *
 * mpi.h includes this file, so programs need not; programs written for
 * ROMIO include it directly, which also works. The MPI_File_* prototypes
 * are generated with all the others into mpi_proto.h.
 */
#ifndef GMPI_MPIO_H
#define GMPI_MPIO_H

#include "mpi.h"

#ifndef MPIO_INCLUDE
#define MPIO_INCLUDE
#endif

#define ROMIO_VERSION 126

/* Nonblocking I/O returns ordinary requests. */
#define HAVE_MPI_GREQUEST 1
#define MPIO_Request MPI_Request
#define MPIO_USES_MPI_REQUEST
#define MPIO_REQUEST_DEFINED
#define MPIO_REQUEST_NULL ((MPIO_Request)0)
#define MPIO_Wait  MPI_Wait
#define MPIO_Test  MPI_Test
#define PMPIO_Wait PMPI_Wait
#define PMPIO_Test PMPI_Test

#define HAVE_MPI_INFO
#define HAVE_MPI_DARRAY_SUBARRAY

/* Access modes (bits, combined with |) */
#define MPI_MODE_CREATE          1
#define MPI_MODE_RDONLY          2
#define MPI_MODE_WRONLY          4
#define MPI_MODE_RDWR            8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN     32
#define MPI_MODE_EXCL            64
#define MPI_MODE_APPEND          128
#define MPI_MODE_SEQUENTIAL      256

#define MPI_DISPLACEMENT_CURRENT (-54278278)

/* Whence for MPI_File_seek */
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604

#define MPI_MAX_DATAREP_STRING 128

#endif /* GMPI_MPIO_H */
