/*
 * The collective express lane: small blocking collectives on a
 * communicator served by coll/shm, run in C on the communicator's shared
 * segment without entering Go (entering Go from C costs more than a small
 * collective through shared memory). coll/shm's Go code and this lane
 * share the segment and each rank's protocol state (the private block in
 * the segment: step counter, small-ring allocation, cached counters of the
 * other ranks), and run the same protocol, so calls may alternate between
 * them freely. The lane declines (before it changes anything) whatever is
 * not simple: a communicator not registered, an operation coll/shm does
 * not take, MPI_IN_PLACE, a datatype that is not predefined and
 * contiguous, a reduction this file has no kernel for, data that does not
 * fit one round of the small ring, a bad argument (the Go path reports
 * it). When it has to wait longer than a short spin it calls back into Go
 * (gmpi_cshm_wait), which waits as coll/shm does (event-driven, with
 * point-to-point progress). coll/shm/express.go describes the layout.
 */
#ifndef GMPI_CSHM_H
#define GMPI_CSHM_H

#include <stdint.h>

#define GMPI_CSHM_COMMS 64 /* slots, indexed by handle mod 64 */

struct gmpi_cshm_comm {
    int32_t handle; /* 0: free slot */
    int32_t rank, size;
    uint32_t ops; /* bit mpirt.CollOp: coll/shm takes the operation */
    int32_t yield; /* oversubscribed: give the CPU away between polls */
    volatile int32_t busy; /* nonblocking operations are queued on the segment: decline */
    uint8_t *base; /* the segment */
    int64_t ctl_bytes, bell_off, priv_off, priv_bytes, seen_off, data_off, data_bytes;
    int64_t small_slot, small_slots;
};

/* The nonblocking call the lane started on the communicator of the same
 * slot of comms and has not completed (at most one per communicator:
 * MPI_Iallreduce, cshm.c). seq and done count the slot's calls (they
 * never go back, whatever communicator takes the slot): the call seq is
 * complete once done >= seq. The starting thread writes the rest before
 * seq; whoever completes the call (Wait/Test here, the module's Go code,
 * the watcher thread) holds claim meanwhile. */
struct gmpi_cshm_nb {
    volatile uint64_t seq, done;
    volatile uint32_t claim;
    int32_t comm, count, datatype, op, first;
    uint64_t s1;
    void *recvbuf;
};

struct gmpi_cshm {
    int32_t on;
    int32_t spin; /* polls before a wait is left to Go */
    int32_t async; /* background progress (GMPI_ASYNC_PROGRESS): the watcher completes old calls */
    volatile uint32_t watch; /* the watcher looks at nb (0: it sleeps on this word) */
    struct gmpi_cshm_comm comms[GMPI_CSHM_COMMS];
    struct gmpi_cshm_nb nb[GMPI_CSHM_COMMS];
};

extern struct gmpi_cshm gmpi_cshm;

/* The operation numbers of mpirt.CollOp (runtime/collargs.go). */
enum {
    GMPI_COLL_BARRIER = 0,
    GMPI_COLL_BCAST = 1,
    GMPI_COLL_GATHER = 2,
    GMPI_COLL_SCATTER = 4,
    GMPI_COLL_ALLGATHER = 6,
    GMPI_COLL_ALLTOALL = 8,
    GMPI_COLL_REDUCE = 11,
    GMPI_COLL_ALLREDUCE = 12,
    GMPI_COLL_REDUCE_SCATTER_BLOCK = 14,
    GMPI_COLL_SCAN = 15,
};

/* The lane's nonblocking calls (cshm.c): a request of express.h's table
 * in state XR_COLL names call seq (send_id) of communicator comm. */
int gmpi_cshm_Iallreduce(const void *sendbuf, void *recvbuf, int count, int datatype, int op, int comm,
                         uint64_t *seq);
/* gmpi_cshm_nb_finish completes call seq of comm if every rank published
 * its operand: 1 when it is complete, 0 when not yet, -1 when it never
 * will be (the communicator is gone). */
int gmpi_cshm_nb_finish(int comm, uint64_t seq);
/* gmpi_cshm_nb_wait waits until call seq of comm is complete, as the
 * blocking collectives wait: 1, or -1 as gmpi_cshm_nb_finish. */
int gmpi_cshm_nb_wait(int comm, uint64_t seq);
/* gmpi_cshm_nb_pending is the call of comm that is not complete (0: none). */
uint64_t gmpi_cshm_nb_pending(int comm);

#endif
