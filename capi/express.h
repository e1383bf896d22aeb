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
 * to this receive, so the two paths can alternate freely. A send of at
 * most GMPI_TCP_SMALL bytes to a tcp peer writes the device's eager frame
 * to the pair's socket itself (tcp_send, devices/tcp/express.go) once the
 * Go side connected it. A receive from a tcp peer (tcp_recv), under the
 * shm receive's conditions and while the device holds no frame read but
 * not handed over (tcp_inbox) and no part of one (the peer's tcp_rpend),
 * reads the socket itself, taking the pair's reading word: a whole eager
 * frame that is the receive's it takes; bytes it does not take go back
 * to the device (gmpi_express_tcp_unread), which parses them as its own
 * reader would. express.go keeps this table in step with the runtime.
 *
 * Peers in this process's vendor MPI job (vMPI, devices/vmpi) have a lane
 * of their own: a small message goes out as the vmpi device's frame with
 * the vendor's blocking send (vmpi_send_small), and a receive from such a
 * peer, or from MPI_ANY_SOURCE, tests the device's posted frame receive
 * (vmpi_frame_peek) and takes the frame when the matching engine would
 * have given it to this receive, under the same conditions as above
 * (nothing posted or unexpected; for MPI_ANY_SOURCE also nothing arriving
 * on shared memory or from the tcp goroutines meanwhile). A frame it
 * leaves stays for the device's Poll.
 */
#ifndef GMPI_EXPRESS_H
#define GMPI_EXPRESS_H

#include <stdint.h>
#include "../devices/shm/express.h"
#include "../devices/vmpi/shim.h"

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
    int32_t vrank1;         /* vendor rank + 1 of a vmpi peer; 0: not one */
    /* A tcp peer (devices/tcp/express.go): 1 + the descriptor of the
     * pair's socket once connected (0: none or lost), and the lock word
     * every writer of the connection holds. */
    int32_t tcp_fd1;
    uint32_t tcp_lock;
    /* A tcp peer whose socket the lane also reads (tcp_recv): the word
     * held by whoever reads the pair's stream, and 1 while the device
     * holds bytes of it (devices/tcp/express.go, ExpressReader). */
    uint32_t tcp_rlock;
    int32_t tcp_rpend;
};

/* The tcp device's frame (devices/tcp/wire.go): a header of
 * GMPI_TCP_HEADER bytes, then at most GMPI_TCP_SMALL bytes of payload
 * in one send. express.go checks the layout against the device's. */
#define GMPI_TCP_HEADER 56
#define GMPI_TCP_SMALL 1024
void gmpi_express_tcp_header(uint8_t *b, const struct gmpi_shm_hdr *h, uint32_t n);

/* One-sided lane: a window whose every target's memory is mapped in this
 * process (allocated and shared windows of one host). MPI_Put and MPI_Get
 * of contiguous predefined data inside the target's window, while an
 * access epoch to it is open and its lock taken (access), are a memcpy;
 * MPI_Win_flush in a passive target epoch (flush) is a memory barrier;
 * MPI_Accumulate with MPI_SUM or MPI_REPLACE on a few integer and
 * floating types takes the target's accumulate lock (declining when it
 * is held) and runs in place; MPI_Win_fence inside a fence epoch (no
 * MPI_MODE_NOSUCCEED) is the segment's barrier, which the Go side's
 * fence runs too.
 * capi's Go side rewrites access and flush after every call that enters
 * Go on the window (express.go, expressWin). */
#define GMPI_EXPRESS_WINS 16       /* slots, indexed by handle mod 16 */
#define GMPI_EXPRESS_WIN_RANKS 64 /* larger windows are not registered */

struct gmpi_express_win {
    int32_t handle; /* 0: free slot */
    int32_t n;
    uint8_t access[GMPI_EXPRESS_WIN_RANKS];
    uint8_t flush[GMPI_EXPRESS_WIN_RANKS];
    char *base[GMPI_EXPRESS_WIN_RANKS];
    uint64_t size[GMPI_EXPRESS_WIN_RANKS];
    uint64_t unit[GMPI_EXPRESS_WIN_RANKS];
    uint32_t *acc[GMPI_EXPRESS_WIN_RANKS];     /* the target's accumulate lock word */
    uint32_t *accwait[GMPI_EXPRESS_WIN_RANKS]; /* its sleepers */
    uint8_t fence;  /* a fence epoch is open, no other: MPI_Win_fence meets the others */
    uint32_t *bar;  /* the fence barrier: arrivals, generation, sleepers (rma.go) */
};

struct gmpi_express {
    int32_t on;     /* initialized, not finalized, below MPI_THREAD_MULTIPLE */
    int32_t rma_on; /* the one-sided lane: below MPI_THREAD_MULTIPLE */
    int32_t outbox; /* the runtime's queued protocol frames (World.SetOutboxWord) */
    int32_t queued; /* posted receives + unexpected messages (World.SetQueuedWord) */
    int32_t spin;   /* polls a receive makes before it leaves the wait to Go */
    int32_t yield;  /* oversubscribed host: give the CPU away between polls */
    int32_t nrx;
    struct gmpi_shm_rx **rxs; /* every ring we receive on */
    int32_t rank;
    uint8_t eager_kind; /* mpirt.FrameEager */
    uint64_t prefetch;  /* MPI_Isend: asks for the ring line this far past the tail (0: no) */
    uint64_t pipe;      /* MPI_Send on shared memory: publish in chunks of this many bytes (0: whole) */
    struct gmpi_express_peer *peers; /* by world rank */
    /* tcp_recv: on (GMPI_TCP_EXPRESS_RECV), the device's count of frames
     * read and not handed over (mirrored), the polls of sockets made here
     * (the device's drainer stands aside while they move), and how many
     * polls a receive makes before it leaves the wait to Go. */
    int32_t tcp_recv;
    int32_t tcp_inbox;
    uint32_t tcp_polls;
    int32_t tcp_spin;
    /* vMPI (devices/vmpi): the vendor job's world ranks by vendor rank
     * (-1: not a peer), and how many polls of the vendor a receive makes
     * before it leaves the wait to Go; nvworld 0: no vmpi peers. */
    int32_t nvworld;
    int32_t vspin;
    int32_t *vworld;
    struct gmpi_express_comm comms[GMPI_EXPRESS_COMMS];
    /* Predefined contiguous datatypes by the low byte of the handle. */
    int32_t  dtype[256];
    uint32_t dsize[256];
    struct gmpi_express_win wins[GMPI_EXPRESS_WINS];
};

extern struct gmpi_express gmpi_express;

/*
 * Nonblocking point-to-point on the lane (express_req.c): MPI_Isend of
 * what MPI_Send's lane would send (on shared memory), and MPI_Irecv from
 * a shared-memory peer while the matching engine is empty, get a request
 * of this table, with a handle of MPICH's indirect kind, which the
 * runtime never makes. MPI_Wait, MPI_Waitall, MPI_Test and MPI_Testall
 * of such requests (and MPI_REQUEST_NULL) complete them here; the posted
 * receives take frames from the rings under the matching engine's rule
 * (the earliest posted receive that matches the frame's envelope, and
 * only plain eager frames that fit). Anything else declines to Go, and
 * every Go entry first hands the posted receives, in posting order, to
 * the matching engine (express.go, expressHandover), so the engine never
 * sees a frame a receive posted here should have had; Go's request
 * functions resolve this table's handles (expressRequest), completed ones
 * as ordinary completed requests. A send carries a SendID of its own
 * range, so MPI_Cancel can still withdraw it at the receiver.
 */
#define GMPI_EXPRESS_REQS 1024
#define GMPI_EXPRESS_REQ_KIND 0xec000000u /* indirect kind, request type */
#define GMPI_EXPRESS_REQ_MASK 0xfc000000u

/* XR_COLL: a nonblocking collective of the shared-memory lane (cshm.h):
 * call send_id of communicator comm. */
enum { XR_FREE, XR_SENT, XR_RECVD, XR_POSTED, XR_GO, XR_COLL };

struct gmpi_express_req {
    int32_t state;    /* XR_* */
    int32_t comm;     /* communicator handle */
    int32_t peer;     /* destination, or source (comm rank = world rank) */
    int32_t tag;      /* sends: the tag; receives: the pattern, then the message's */
    uint32_t ctx;
    int32_t datatype; /* receives: as posted (handover) */
    int32_t count;
    int32_t pad;
    void *buf;
    struct gmpi_shm_rx *rx; /* receives: the source's ring */
    uint64_t len;     /* sends: bytes; receives: capacity, then the count */
    uint64_t send_id; /* sends */
};

struct gmpi_express_reqs {
    int32_t init;
    int32_t nfree;
    int32_t npost;  /* posted receives not yet matched */
    int32_t tests;  /* unsuccessful C tests since Go last made progress */
    uint64_t next_id;
    int32_t freel[GMPI_EXPRESS_REQS];
    int32_t post[GMPI_EXPRESS_REQS]; /* posted receives, in posting order */
    struct gmpi_express_req r[GMPI_EXPRESS_REQS];
};

extern struct gmpi_express_reqs gmpi_express_reqs;

#endif
