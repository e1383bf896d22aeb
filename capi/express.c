/* The express lane's entry points; see express.h. */
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include "../include/mpi.h"
#include "express.h"

struct gmpi_express gmpi_express;

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* args translates the arguments common to both directions as capi's Go
 * side does: the registered communicator, and the bytes of count elements
 * at buf towards or from peer rank (not this process). NULL: decline. */
static const struct gmpi_express_comm *args(const struct gmpi_express *x, const void *buf, int count,
                                            MPI_Datatype datatype, int rank, MPI_Comm comm, uint64_t *bytes)
{
    const struct gmpi_express_comm *c = &x->comms[(uint32_t)comm % GMPI_EXPRESS_COMMS];
    uint32_t t = (uint32_t)datatype & 0xff;
    /* A negative rank (MPI_PROC_NULL, MPI_ANY_SOURCE) or count: Go. */
    if (c->handle != comm || (uint32_t)rank >= (uint32_t)c->size || count < 0 || x->dtype[t] != datatype ||
        rank == x->rank)
        return NULL;
    *bytes = (uint64_t)count * x->dsize[t];
    if (*bytes != 0 && (buf == NULL || buf == MPI_IN_PLACE))
        return NULL;
    return c;
}

/* send is MPI_Send's and MPI_Rsend's express path (a ready send is a
 * standard send on the wire). */
static int send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    struct gmpi_express *x = &gmpi_express;
    uint64_t n;
    if (!x->on || __atomic_load_n(&x->outbox, __ATOMIC_RELAXED) != 0 || tag < 0)
        return GMPI_EXPRESS_DECLINED;
    const struct gmpi_express_comm *c = args(x, buf, count, datatype, dest, comm, &n);
    if (c == NULL || x->peers[dest].tx == NULL || n > x->peers[dest].eager)
        return GMPI_EXPRESS_DECLINED;
    struct gmpi_shm_hdr h = {
        .kind = x->eager_kind, .context = c->ctx, .source = c->rank, .tag = tag, .len = n,
    };
    return gmpi_shm_send(x->peers[dest].tx, &h, buf, n) == 0 ? MPI_SUCCESS : GMPI_EXPRESS_DECLINED;
}

/* others_pending reports whether a ring other than skip holds a frame. */
static int others_pending(const struct gmpi_express *x, const struct gmpi_shm_rx *skip)
{
    for (int i = 0; i < x->nrx; i++)
        if (x->rxs[i] != skip && gmpi_shm_pending(x->rxs[i]))
            return 1;
    return 0;
}

int gmpi_express_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    struct gmpi_express *x = &gmpi_express;
    uint64_t cap;
    if (!x->on || x->queued != 0 || __atomic_load_n(&x->outbox, __ATOMIC_RELAXED) != 0 ||
        (tag < 0 && tag != MPI_ANY_TAG))
        return GMPI_EXPRESS_DECLINED;
    const struct gmpi_express_comm *c = args(x, buf, count, datatype, source, comm, &cap);
    if (c == NULL || x->peers[source].rx == NULL)
        return GMPI_EXPRESS_DECLINED;
    struct gmpi_shm_rx *r = x->peers[source].rx;
    const uint8_t *payload;
    uint64_t n;
    const struct gmpi_shm_hdr *h = gmpi_shm_peek(r, &payload, &n);
    for (int i = 0; h == NULL; i++) {
        /* Wait only while nothing else arrives: a frame from another
         * peer may be what some pending operation needs (Go's progress). */
        if (i >= x->spin || others_pending(x, r))
            return GMPI_EXPRESS_DECLINED;
        /* On an oversubscribed host the sender may be waiting for
         * this core: let it run (as the Go path's wait does), rather
         * than give up at once and pay for the Go path's wait. */
        if (x->yield)
            sched_yield();
        else
            relax();
        h = gmpi_shm_peek(r, &payload, &n);
    }
    /* What the matching engine would do with this frame: the receive is
     * the only one posted and nothing is unexpected, so the next frame
     * from source is its message if it matches (and fits). */
    if (h->kind != x->eager_kind || h->flags != 0 || h->context != c->ctx || h->source != source ||
        (tag != MPI_ANY_TAG && h->tag != tag) || h->len != n || n > cap)
        return GMPI_EXPRESS_DECLINED;
    int htag = h->tag;
    if (n)
        memcpy(buf, payload, n);
    gmpi_shm_consume(r, n);
    if (status != MPI_STATUS_IGNORE) {
        status->count_lo = (int)(uint32_t)n;
        status->count_hi_and_cancelled = (int)(n >> 32) << 1;
        status->MPI_SOURCE = source;
        status->MPI_TAG = htag;
        /* MPI_ERROR is left alone, as the Go path does (single completion). */
    }
    return MPI_SUCCESS;
}

/* The Go path for the receive of an MPI_Sendrecv whose send went here. */
extern int gmpi_express_sendrecv_tail(void *buf, int count, int datatype, int source, int tag, int comm, void *status);

/* MPI_Sendrecv: its send goes here when it can, so is done at once
 * (eager), then its receive as MPI_Recv would (here or in Go). The
 * receive's arguments are checked first as far as the Go path would
 * reject them, so that a call that fails sends nothing. */
int gmpi_express_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                          MPI_Comm comm, MPI_Status *status)
{
    struct gmpi_express *x = &gmpi_express;
    const struct gmpi_express_comm *c = &x->comms[(uint32_t)comm % GMPI_EXPRESS_COMMS];
    uint32_t t = (uint32_t)recvtype & 0xff;
    /* The receive side: a rank of comm (any), MPI_ANY_SOURCE or
     * MPI_PROC_NULL; a tag or MPI_ANY_TAG; a predefined type. */
    if (!x->on || c->handle != comm || recvcount < 0 || x->dtype[t] != recvtype ||
        (source != MPI_ANY_SOURCE && source != MPI_PROC_NULL && (uint32_t)source >= (uint32_t)c->size) ||
        (recvtag < 0 && recvtag != MPI_ANY_TAG) ||
        (recvcount != 0 && (recvbuf == NULL || recvbuf == MPI_IN_PLACE)))
        return GMPI_EXPRESS_DECLINED;
    if (send(sendbuf, sendcount, sendtype, dest, sendtag, comm) != MPI_SUCCESS)
        return GMPI_EXPRESS_DECLINED; /* nothing was sent */
    int rc = gmpi_express_Recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
    if (rc != GMPI_EXPRESS_DECLINED)
        return rc;
    return gmpi_express_sendrecv_tail(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
}

int gmpi_express_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm);
}

int gmpi_express_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm);
}
