#ifndef GMPI_FRONT_KINDS_H
#define GMPI_FRONT_KINDS_H

// The kinds of handles, for fr_h_out (some inner null handles share a
// value: MPI_REQUEST_NULL and MPI_MESSAGE_NULL are both 0x2c000000).
enum {
    FR_COMM, FR_DATATYPE, FR_GROUP, FR_OP, FR_REQUEST, FR_ERRHANDLER, FR_INFO,
    FR_WIN, FR_SESSION, FR_MESSAGE, FR_GREQ_CLASS, FR_FILE, FR_KINDS
};

#endif
