/* The vmpi device's C side: a vendor MPI library loaded with dlopen,
 * isolated from gmpi's own MPI_* symbols, and called through function
 * pointers. Every vendor handle crosses into Go as a uint64_t: MPICH's
 * 32-bit integer handles zero-extended, Open MPI's pointers as they are. */
#ifndef GMPI_VMPI_SHIM_H
#define GMPI_VMPI_SHIM_H

#include <stdint.h>

enum { VMPI_ABI_NONE = 0, VMPI_ABI_MPICH = 1, VMPI_ABI_OMPI = 2 };

/* vmpi_open loads the library at path and resolves every entry point the
 * device needs. It returns the ABI found, or VMPI_ABI_NONE with a message
 * in err (n bytes). */
int vmpi_open(const char *path, char *err, int n);

/* vmpi_init calls the vendor's MPI_Init_thread (asking for required),
 * duplicates its MPI_COMM_WORLD and reports the thread level provided and
 * this process's rank and size there. */
int vmpi_init(int required, int *provided, int *rank, int *size);

int vmpi_isend(const void *buf, int n, int dest, int tag, uint64_t *req);
int vmpi_irecv(void *buf, int n, int src, int tag, uint64_t *req);
/* vmpi_test: on completion *flag is 1 and *src, *tag, *count (bytes)
 * describe a completed receive (unused for a send). */
int vmpi_test(uint64_t *req, int *flag, int *src, int *tag, int *count);
int vmpi_wait(uint64_t *req, int *src, int *tag, int *count);
int vmpi_recv(void *buf, int n, int src, int tag, int *count);
int vmpi_cancel(uint64_t *req);
int vmpi_finalize(void);
/* vmpi_setenv sets (value != NULL) or removes an environment variable in
 * the C environment the vendor library reads. */
int vmpi_setenv(const char *name, const char *value);
/* vmpi_error_string is the vendor's text for an error code. */
void vmpi_error_string(int code, char *buf, int n);

/* Collectives over a vendor communicator of some of the vendor job's
 * processes (the vendor-collective handoff). vmpi_coll_open reports
 * whether the library has every entry point they need. vmpi_comm_create
 * makes the communicator of the n vendor ranks (collective over those
 * processes only: MPI_Comm_create_group). Datatypes and operations are
 * named by their MPICH handle values (gmpi's own); one the vendor has no
 * counterpart for fails with VMPI_UNKNOWN before anything is sent. The
 * calls are nonblocking: complete them with vmpi_test. */
enum { VMPI_UNKNOWN = -12345 };
int vmpi_coll_open(void);
int vmpi_comm_create(int n, const int *vranks, int tag, uint64_t *comm);
int vmpi_comm_release(uint64_t *comm);
int vmpi_ibarrier(uint64_t comm, uint64_t *req);
int vmpi_ibcast(void *buf, int n, int root, uint64_t comm, uint64_t *req);
/* root < 0: allreduce. */
int vmpi_ireduce(const void *sbuf, void *rbuf, int count, int dtype, int op, int root, uint64_t comm, uint64_t *req);
/* vmpi_known reports whether the vendor has dtype and op. */
int vmpi_known(int dtype, int op);

#endif
