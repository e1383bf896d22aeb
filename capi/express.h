/*
 * The express lane: blocking sends that C code completes without entering
 * Go. Entering Go from C costs more than the rest of a small send on
 * shared memory, so PMPI_Send (zz_pmpi.c) first offers the call to
 * gmpi_express_Send. That only translates arguments, as capi's Go side
 * does, and hands the frame to the shm device's C append
 * (devices/shm/express.c); whenever anything is unusual (an argument the
 * Go side would reject or treat specially, a communicator not registered
 * here, a peer not on shared memory, a full ring, queued protocol frames,
 * MPI_THREAD_MULTIPLE) it declines and the Go path does everything,
 * errors included. express.go keeps this table in step with the runtime.
 */
#ifndef GMPI_EXPRESS_H
#define GMPI_EXPRESS_H

#include <stdint.h>
#include "../devices/shm/express.h"

#define GMPI_EXPRESS_DECLINED (-1)
#define GMPI_EXPRESS_COMMS 64 /* slots, indexed by handle mod 64 */

/* An intracommunicator whose rank r is world rank r (MPI_COMM_WORLD and
 * its duplicates). */
struct gmpi_express_comm {
    int32_t  handle; /* 0: free slot (no communicator handle is 0) */
    uint32_t ctx;    /* point-to-point context id */
    int32_t  rank;
    int32_t  size;
};

struct gmpi_express_peer {
    struct gmpi_shm_tx *tx; /* NULL: not reached over shared memory */
    uint64_t eager;         /* largest eager message */
};

struct gmpi_express {
    int32_t on;     /* initialized, not finalized, below MPI_THREAD_MULTIPLE */
    int32_t outbox; /* the runtime's queued protocol frames (World.SetOutboxWord) */
    int32_t rank;
    int32_t nranks;
    uint8_t eager_kind; /* mpirt.FrameEager */
    struct gmpi_express_peer *peers; /* by world rank */
    struct gmpi_express_comm comms[GMPI_EXPRESS_COMMS];
    /* Predefined contiguous datatypes by the low byte of the handle. */
    int32_t  dtype[256];
    uint32_t dsize[256];
};

extern struct gmpi_express gmpi_express;

#endif
