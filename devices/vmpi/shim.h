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

/* The frame receive: one receive for the device's frame tag from any
 * source is posted in the vendor at all times, into buf (cap bytes). Go's
 * Poll and capi's express lane (below MPI_THREAD_MULTIPLE, one thread at
 * a time) share it through these calls, so a frame one of them tested
 * but left alone is the other's next.
 *
 * vmpi_frame_start posts it. vmpi_frame_next first reposts it when
 * consumed is set (the caller is done with the previous frame), then
 * reports in *flag whether a frame is there: one tested complete now, or
 * one left by vmpi_frame_peek; *src is its vendor rank and *count its
 * bytes, and the frame is the caller's until it passes consumed (or calls
 * vmpi_frame_repost). vmpi_frame_stop withdraws the receive. They return
 * the vendor's error code. */
int vmpi_frame_start(void *buf, int cap);
int vmpi_frame_next(int consumed, int *flag, int *src, int *count);
int vmpi_frame_repost(void);
int vmpi_frame_stop(void);

/* vmpi_frame_peek: the next frame, if one is there, without taking it:
 * its bytes, vendor source and length; NULL (nothing, or *rc set when
 * the vendor failed: the Go path then reports it). A frame peeked stays
 * for vmpi_frame_next unless vmpi_frame_take takes it (and reposts). */
const uint8_t *vmpi_frame_peek(int *src, int *count, int *rc);
int vmpi_frame_take(void);

/* vmpi_send_small sends one frame with an inline payload of n bytes (at
 * most VMPI_SMALL) with the vendor's blocking send, built on the stack
 * from hdr (mpirt.Header, 48 bytes) and payload: the vendor sends
 * messages this small eagerly, so it returns once the vendor holds the
 * bytes (as the isend and tests of a larger frame would). The frame tag
 * is the device's (1). */
enum { VMPI_PREFIX = 16, VMPI_HEADER = 48, VMPI_SMALL = 1024 };
int vmpi_send_small(int dest, const void *hdr, const void *payload, int n);
/* vmpi_send_small_tag is vmpi_send_small with btag in the prefix's last
 * word: a CTS whose receiver posted the message's body as a vendor
 * receive with that tag (0: none; devices/vmpi, the direct body). */
int vmpi_send_small_tag(int dest, const void *hdr, const void *payload, int n, int btag);
/* The same with the header's fields as arguments (Go's Send: no pointer
 * to a header escapes). */
int vmpi_send_small_fields(int dest, uint64_t kfct, uint64_t srctag, uint64_t len, uint64_t send_id,
	uint64_t recv_id, uint64_t offset, const void *payload, int n, int btag);
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
