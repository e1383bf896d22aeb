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

#endif
