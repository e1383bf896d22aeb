/*
 * The express lane: blocking sends and receives of small messages that C
 * code completes without entering Go. Entering Go from C costs more than
 * the rest of a small message on shared memory, so PMPI_Send, PMPI_Rsend
 * and PMPI_Recv (zz_pmpi.c) first offer the call to gmpi_express_X. That
 * only translates arguments, as capi's Go side does, and uses the shm
 * device's C ring operations (devices/shm/express.c). Whenever anything is
 * unusual it declines and the Go path does everything, errors included:
 * an argument the Go side would reject or treat specially, a communicator
 * not registered here, a peer not on shared memory, a full ring, queued
 * protocol frames, MPI_THREAD_MULTIPLE; and for a receive, anything posted
 * or unexpected in the matching engine, a wildcard source, a frame that is
 * not a plain eager message matching the receive, or one that does not
 * fit, or nothing arriving within a short spin (yielding the CPU between
 * polls on an oversubscribed host; the Go path then waits, spinning and
 * sleeping, and makes progress on everything else). A
 * receive takes a frame here only when the Go path would have matched it
 * to this receive, so the two paths can alternate freely. express.go
 * keeps this table in step with the runtime.
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
    struct gmpi_shm_rx *rx; /* the ring from this peer */
    uint64_t eager;         /* largest eager message */
};

struct gmpi_express {
    int32_t on;     /* initialized, not finalized, below MPI_THREAD_MULTIPLE */
    int32_t outbox; /* the runtime's queued protocol frames (World.SetOutboxWord) */
    int32_t queued; /* posted receives + unexpected messages (World.SetQueuedWord) */
    int32_t spin;   /* polls a receive makes before it leaves the wait to Go */
    int32_t yield;  /* oversubscribed host: give the CPU away between polls */
    int32_t nrx;
    struct gmpi_shm_rx **rxs; /* every ring we receive on */
    int32_t rank;
    uint8_t eager_kind; /* mpirt.FrameEager */
    struct gmpi_express_peer *peers; /* by world rank */
    struct gmpi_express_comm comms[GMPI_EXPRESS_COMMS];
    /* Predefined contiguous datatypes by the low byte of the handle. */
    int32_t  dtype[256];
    uint32_t dsize[256];
};

extern struct gmpi_express gmpi_express;

#endif
