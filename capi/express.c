/* The express lane's entry points; see express.h. */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "../include/mpi.h"
#include "express.h"
#include "cshm.h"

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
static const struct gmpi_express_comm *comm_args(const struct gmpi_express *x, const void *buf, int count,
                                                 MPI_Datatype datatype, MPI_Comm comm, uint64_t *bytes)
{
    const struct gmpi_express_comm *c = &x->comms[(uint32_t)comm % GMPI_EXPRESS_COMMS];
    uint32_t t = (uint32_t)datatype & 0xff;
    if (c->handle != comm || count < 0 || x->dtype[t] != datatype)
        return NULL;
    *bytes = (uint64_t)count * x->dsize[t];
    if (*bytes != 0 && (buf == NULL || buf == MPI_IN_PLACE))
        return NULL;
    return c;
}

static const struct gmpi_express_comm *args(const struct gmpi_express *x, const void *buf, int count,
                                            MPI_Datatype datatype, int rank, MPI_Comm comm, uint64_t *bytes)
{
    const struct gmpi_express_comm *c = comm_args(x, buf, count, datatype, comm, bytes);
    /* A negative rank (MPI_PROC_NULL, MPI_ANY_SOURCE) or count: Go. */
    if (c == NULL || (uint32_t)rank >= (uint32_t)c->size || rank == x->rank)
        return NULL;
    return c;
}

static inline void put32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v, b[1] = (uint8_t)(v >> 8), b[2] = (uint8_t)(v >> 16), b[3] = (uint8_t)(v >> 24);
}

/* tcp_header writes the tcp device's frame header of h (devices/tcp/wire.go:
 * little-endian whatever the host; SendID, RecvID and Offset 0, as the Go
 * path's eager send has them). */
void gmpi_express_tcp_header(uint8_t *b, const struct gmpi_shm_hdr *h, uint32_t n)
{
    memset(b, 0, GMPI_TCP_HEADER);
    b[0] = h->kind;
    b[1] = h->flags;
    put32(b + 4, h->context);
    put32(b + 8, (uint32_t)h->source);
    put32(b + 12, (uint32_t)h->tag);
    put32(b + 16, (uint32_t)h->len);
    put32(b + 20, (uint32_t)(h->len >> 32));
    put32(b + 48, n);
    memcpy(b + 52, "GTCF", 4);
}

/* The Go path's end of a frame that tcp_send wrote only in part
 * (express_tail.go); 0: done. */
extern int gmpi_express_tcp_finish(int dest, void *rest, int n);

/* tcp_send writes the eager frame h with n bytes at buf to tcp peer dest
 * (devices/tcp/express.go) with one send(2), as the device's Go write
 * does. It declines when another writer holds the connection or the
 * socket has no room; a frame written in part is finished by the Go
 * side, which waits for room as the Go path does. */
static int tcp_send(struct gmpi_express_peer *p, int dest, const struct gmpi_shm_hdr *h, const void *buf,
                    uint64_t n)
{
    uint32_t unlocked = 0;
    if (!__atomic_compare_exchange_n(&p->tcp_lock, &unlocked, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return GMPI_EXPRESS_DECLINED;
    int fd = __atomic_load_n(&p->tcp_fd1, __ATOMIC_ACQUIRE) - 1;
    int rc = GMPI_EXPRESS_DECLINED;
    if (fd >= 0) {
        uint8_t f[GMPI_TCP_HEADER + GMPI_TCP_SMALL];
        gmpi_express_tcp_header(f, h, (uint32_t)n);
        if (n)
            memcpy(f + GMPI_TCP_HEADER, buf, n);
        size_t len = GMPI_TCP_HEADER + n;
        ssize_t k;
        do
            k = send(fd, f, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        while (k < 0 && errno == EINTR);
        /* Nothing written (no room, or an error the Go path reports):
         * decline. */
        if (k == (ssize_t)len)
            rc = MPI_SUCCESS;
        else if (k > 0)
            rc = gmpi_express_tcp_finish(dest, f + k, (int)(len - (size_t)k)) == 0 ? MPI_SUCCESS
                                                                                 : GMPI_EXPRESS_DECLINED;
    }
    __atomic_store_n(&p->tcp_lock, 0, __ATOMIC_RELEASE);
    return rc;
}

static int others_pending(const struct gmpi_express *x, const struct gmpi_shm_rx *skip);

static inline uint32_t get32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The device's parse of bytes that tcp_recv read from source's stream
 * and does not take (express_tail.go), while it holds the reading word. */
extern void gmpi_express_tcp_unread(int source, void *b, int n);

/* tcp_frame is what the matching engine would do with the first frame
 * of the k bytes at f, read from tcp peer source, for the receive (into
 * cap bytes): a plain eager frame of its envelope that fits is its
 * message (nothing is posted or unexpected, and a pair's frames come in
 * order): its payload's size when it is all there, TCP_PART when only
 * its beginning is; anything else, TCP_GO. */
enum { TCP_GO = -1, TCP_PART = -2 };

static int64_t tcp_frame(const struct gmpi_express *x, const struct gmpi_express_comm *c, const uint8_t *f,
                         size_t k, uint64_t cap, int source, int tag)
{
    if (k < GMPI_TCP_HEADER)
        return TCP_PART;
    uint32_t n = get32(f + 48);
    uint64_t len = (uint64_t)get32(f + 16) | (uint64_t)get32(f + 20) << 32;
    int32_t htag = (int32_t)get32(f + 12);
    if (f[0] != x->eager_kind || f[1] != 0 || f[2] != 0 || f[3] != 0 || get32(f + 4) != c->ctx ||
        (int32_t)get32(f + 8) != source || (tag != MPI_ANY_TAG && htag != tag) || len != n || n > cap ||
        n > GMPI_TCP_SMALL || memcmp(f + 52, "GTCF", 4) != 0)
        return TCP_GO;
    /* RecvID and Offset name a rendezvous; an eager frame has none. */
    for (int i = 32; i < 48; i++)
        if (f[i] != 0)
            return TCP_GO;
    return GMPI_TCP_HEADER + (size_t)n <= k ? (int64_t)n : TCP_PART;
}

/* tcp_deliver copies the payload of the frame at f (n bytes) to buf and
 * writes the status as the Go path does. */
static void tcp_deliver(const uint8_t *f, uint64_t n, void *buf, int source, MPI_Status *status)
{
    if (n)
        memcpy(buf, f + GMPI_TCP_HEADER, n);
    if (status != MPI_STATUS_IGNORE) {
        status->count_lo = (int)(uint32_t)n;
        status->count_hi_and_cancelled = 0;
        status->MPI_SOURCE = source;
        status->MPI_TAG = (int32_t)get32(f + 12);
    }
}

/* tcp_read is one poll of the pair's stream while tcp_recv holds its
 * reading word: TCP_PART when nothing (or not all of the frame) is there
 * yet, TCP_GO to leave the receive to Go, MPI_SUCCESS when taken.
 *
 * A receive of at most GMPI_TCP_SMALL bytes reads at most one frame of its
 * size with one recv(2): what it read and does not take (part of the next
 * frame, a frame not its own) goes back to the device. A larger one peeks
 * first and reads exactly its frame, so that a long frame, which is the
 * Go path's, is never read here. */
static int tcp_read(const struct gmpi_express *x, const struct gmpi_express_comm *c, int fd, void *buf,
                    uint64_t cap, int source, int tag, MPI_Status *status)
{
    uint8_t f[GMPI_TCP_HEADER + GMPI_TCP_SMALL];
    const int peek = cap > GMPI_TCP_SMALL;
    size_t want = GMPI_TCP_HEADER + (peek ? GMPI_TCP_SMALL : cap);
    ssize_t k;
    do
        k = recv(fd, f, want, MSG_DONTWAIT | (peek ? MSG_PEEK : 0));
    while (k < 0 && errno == EINTR);
    if (k < 0)
        /* An error other than an empty socket is the device's reader's
         * to see and report. */
        return errno == EAGAIN || errno == EWOULDBLOCK ? TCP_PART : TCP_GO;
    if (k == 0)
        return TCP_GO; /* the end of the stream: the device's reader reports it */
    int64_t n = tcp_frame(x, c, f, (size_t)k, cap, source, tag);
    if (peek) {
        if (n < 0)
            return (int)n;
        /* Its bytes are there and only this thread reads: the read
         * takes them all. */
        size_t m = GMPI_TCP_HEADER + (size_t)n;
        uint8_t g[GMPI_TCP_HEADER + GMPI_TCP_SMALL];
        ssize_t r;
        do
            r = recv(fd, g, m, MSG_DONTWAIT);
        while (r < 0 && errno == EINTR);
        if (r != (ssize_t)m) {
            if (r > 0)
                gmpi_express_tcp_unread(source, g, (int)r);
            return TCP_GO;
        }
        tcp_deliver(g, (uint64_t)n, buf, source, status);
        return MPI_SUCCESS;
    }
    if (n < 0) {
        gmpi_express_tcp_unread(source, f, (int)k);
        return TCP_GO;
    }
    tcp_deliver(f, (uint64_t)n, buf, source, status);
    if ((size_t)k > GMPI_TCP_HEADER + (size_t)n)
        gmpi_express_tcp_unread(source, f + GMPI_TCP_HEADER + n, (int)((size_t)k - GMPI_TCP_HEADER - (size_t)n));
    return MPI_SUCCESS;
}

/* tcp_recv is the receive from tcp peer p (source) into buf (cap bytes):
 * while nothing is queued anywhere, it polls the pair's stream (tcp_read)
 * holding its reading word, which the device's readers take too, when
 * the device holds no part of the stream. Nothing arriving within
 * tcp_spin polls, or something arriving elsewhere: Go. */
static int tcp_recv(struct gmpi_express *x, const struct gmpi_express_comm *c, struct gmpi_express_peer *p,
                    void *buf, uint64_t cap, int source, int tag, MPI_Status *status)
{
    for (int i = 0;; i++) {
        if (!__atomic_load_n(&x->on, __ATOMIC_RELAXED) || __atomic_load_n(&x->outbox, __ATOMIC_RELAXED) != 0 ||
            __atomic_load_n(&x->queued, __ATOMIC_RELAXED) != 0 ||
            __atomic_load_n(&x->tcp_inbox, __ATOMIC_ACQUIRE) != 0)
            return GMPI_EXPRESS_DECLINED;
        __atomic_add_fetch(&x->tcp_polls, 1, __ATOMIC_RELAXED);
        uint32_t unlocked = 0;
        if (__atomic_compare_exchange_n(&p->tcp_rlock, &unlocked, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            int fd = __atomic_load_n(&p->tcp_fd1, __ATOMIC_ACQUIRE) - 1;
            int rc = TCP_GO;
            /* The device's words again: a reader may have queued a frame,
             * or kept part of one, before it gave the word back. */
            if (fd >= 0 && __atomic_load_n(&p->tcp_rpend, __ATOMIC_RELAXED) == 0 &&
                __atomic_load_n(&x->tcp_inbox, __ATOMIC_RELAXED) == 0)
                rc = tcp_read(x, c, fd, buf, cap, source, tag, status);
            __atomic_store_n(&p->tcp_rlock, 0, __ATOMIC_RELEASE);
            if (rc == MPI_SUCCESS)
                return MPI_SUCCESS;
            if (rc == TCP_GO)
                return GMPI_EXPRESS_DECLINED;
        }
        if (i >= x->tcp_spin || others_pending(x, NULL))
            return GMPI_EXPRESS_DECLINED;
        if (x->yield)
            sched_yield();
        else
            relax();
    }
}

/* lane_send is MPI_Send's and MPI_Rsend's express path (a ready send is a
 * standard send on the wire). */
static int lane_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    struct gmpi_express *x = &gmpi_express;
    uint64_t n;
    if (!x->on || __atomic_load_n(&x->outbox, __ATOMIC_RELAXED) != 0 || tag < 0)
        return GMPI_EXPRESS_DECLINED;
    const struct gmpi_express_comm *c = args(x, buf, count, datatype, dest, comm, &n);
    if (c == NULL || n > x->peers[dest].eager)
        return GMPI_EXPRESS_DECLINED;
    struct gmpi_shm_hdr h = {
        .kind = x->eager_kind, .context = c->ctx, .source = c->rank, .tag = tag, .len = n,
    };
    /* A blocking send's receiver is most likely waiting in a blocking
     * receive, which copies a pipelined frame out as it comes. */
    if (x->peers[dest].tx != NULL)
        return gmpi_shm_send_pipe(x->peers[dest].tx, &h, buf, n, x->pipe) == 0 ? MPI_SUCCESS
                                                                                : GMPI_EXPRESS_DECLINED;
    /* A vmpi peer: the vmpi device's frame, as its Go Send makes it (a
     * failure is left to the Go path, which reports it). */
    if (x->peers[dest].vrank1 != 0 && n <= VMPI_SMALL)
        return vmpi_send_small(x->peers[dest].vrank1 - 1, &h, buf, (int)n) == 0 ? MPI_SUCCESS
                                                                               : GMPI_EXPRESS_DECLINED;
    if (n <= GMPI_TCP_SMALL && __atomic_load_n(&x->peers[dest].tcp_fd1, __ATOMIC_ACQUIRE) != 0)
        return tcp_send(&x->peers[dest], dest, &h, buf, n);
    return GMPI_EXPRESS_DECLINED;
}

/* others_pending reports whether a ring other than skip holds a frame. */
static int others_pending(const struct gmpi_express *x, const struct gmpi_shm_rx *skip)
{
    for (int i = 0; i < x->nrx; i++)
        if (x->rxs[i] != skip && gmpi_shm_pending(x->rxs[i]))
            return 1;
    return 0;
}

/* vmpi_express_recv is the receive from a vmpi peer (or, source
 * MPI_ANY_SOURCE, from anyone while only vmpi peers deliver: the count of
 * queued messages stays q0, nothing is pending on shared memory) into buf
 * (cap bytes). */
static int vmpi_express_recv(struct gmpi_express *x, const struct gmpi_express_comm *c, void *buf, uint64_t cap, int source,
                             int tag, int32_t q0, MPI_Status *status)
{
    const int any = source == MPI_ANY_SOURCE;
    for (int i = 0;; i++) {
        int vsrc, cnt, rc;
        const uint8_t *f = vmpi_frame_peek(&vsrc, &cnt, &rc);
        if (f != NULL) {
            /* What the matching engine would do with this frame: nothing
             * is posted or unexpected (nor arrived meanwhile, for
             * MPI_ANY_SOURCE), and a pair's frames come in order, so it is
             * this receive's message if it matches (and fits). Anything
             * else (another peer's, another kind, a body to follow) is
             * the device's Poll's. */
            uint64_t plen;
            uint32_t inl;
            const int hdr = VMPI_PREFIX + VMPI_HEADER;
            if (cnt < hdr || vsrc < 0 || vsrc >= x->nvworld)
                return GMPI_EXPRESS_DECLINED;
            memcpy(&plen, f, 8);
            memcpy(&inl, f + 8, 4);
            const struct gmpi_shm_hdr *h = (const struct gmpi_shm_hdr *)(f + VMPI_PREFIX);
            int w = x->vworld[vsrc];
            if (w < 0 || inl != 1 || plen != (uint64_t)(cnt - hdr) || h->kind != x->eager_kind || h->flags != 0 ||
                h->context != c->ctx || h->source != w || (!any && w != source) ||
                (tag != MPI_ANY_TAG && h->tag != tag) || h->len != plen || plen > cap)
                return GMPI_EXPRESS_DECLINED;
            int htag = h->tag;
            if (plen)
                memcpy(buf, f + hdr, plen);
            /* The frame is taken; a failed repost is the device's Poll's
             * to report (vmpi_frame_next returns it). */
            vmpi_frame_take();
            if (status != MPI_STATUS_IGNORE) {
                status->count_lo = (int)(uint32_t)plen;
                status->count_hi_and_cancelled = (int)(plen >> 32) << 1;
                status->MPI_SOURCE = w;
                status->MPI_TAG = htag;
            }
            return MPI_SUCCESS;
        }
        if (rc != 0 || i >= x->vspin || !__atomic_load_n(&x->on, __ATOMIC_RELAXED) ||
            __atomic_load_n(&x->outbox, __ATOMIC_RELAXED) != 0 || others_pending(x, NULL) ||
            (any && __atomic_load_n(&x->queued, __ATOMIC_RELAXED) != q0))
            return GMPI_EXPRESS_DECLINED;
        if (x->yield)
            sched_yield();
        else
            relax();
    }
}

/* The matching engine's answer for a receive from a vmpi peer while it is
 * not empty (express_tail.go). */
extern int gmpi_express_vmpi_clear(uint32_t ctx, int source, int tag);

int gmpi_express_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    struct gmpi_express *x = &gmpi_express;
    uint64_t cap;
    /* Receives posted on the lane (express_req.c) come first: Go. */
    if (!x->on || __atomic_load_n(&x->outbox, __ATOMIC_RELAXED) != 0 || (tag < 0 && tag != MPI_ANY_TAG) ||
        gmpi_express_reqs.npost != 0)
        return GMPI_EXPRESS_DECLINED;
    if (x->nvworld != 0 && (source == MPI_ANY_SOURCE || (source >= 0 && source != x->rank))) {
        const struct gmpi_express_comm *c = comm_args(x, buf, count, datatype, comm, &cap);
        if (c == NULL || (source >= 0 && (source >= c->size || x->peers[source].vrank1 == 0)))
            goto shm;
        /* Something is queued: the receive asks the engine whether it
         * holds or waits for anything this one accepts (MPICH-G2's
         * specified-pending case, and multimethod with one pending). */
        int32_t q0 = __atomic_load_n(&x->queued, __ATOMIC_RELAXED);
        if (q0 != 0 && !gmpi_express_vmpi_clear(c->ctx, source, tag))
            return GMPI_EXPRESS_DECLINED;
        return vmpi_express_recv(x, c, buf, cap, source, tag, q0, status);
    }
shm:
    if (x->queued != 0)
        return GMPI_EXPRESS_DECLINED;
    const struct gmpi_express_comm *c = args(x, buf, count, datatype, source, comm, &cap);
    if (c == NULL)
        return GMPI_EXPRESS_DECLINED;
    struct gmpi_express_peer *p = &x->peers[source];
    if (p->rx == NULL) {
        if (x->tcp_recv && __atomic_load_n(&p->tcp_fd1, __ATOMIC_RELAXED) != 0)
            return tcp_recv(x, c, p, buf, cap, source, tag, status);
        return GMPI_EXPRESS_DECLINED;
    }
    struct gmpi_shm_rx *r = p->rx;
    const uint8_t *payload;
    uint64_t n, done;
    const struct gmpi_shm_hdr *h = gmpi_shm_peek_part(r, &payload, &n, &done);
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
        h = gmpi_shm_peek_part(r, &payload, &n, &done);
    }
    /* What the matching engine would do with this frame: the receive is
     * the only one posted and nothing is unexpected, so the next frame
     * from source is its message if it matches (and fits). */
    if (h->kind != x->eager_kind || h->flags != 0 || h->context != c->ctx || h->source != source ||
        (tag != MPI_ANY_TAG && h->tag != tag) || h->len != n || n > cap)
        return GMPI_EXPRESS_DECLINED;
    int htag = h->tag;
    /* A record being written (a pipelined send) is copied as it comes.
     * Nothing is consumed until it is all there, so when the sender
     * stalls the receive can still leave it to Go, which copies the
     * whole message into the same buffer once it is complete. */
    if (gmpi_shm_copy_out(r, buf, payload, n, done, x->spin, x->yield) != 0)
        return GMPI_EXPRESS_DECLINED;
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
    if (!x->on || gmpi_express_reqs.npost != 0 || c->handle != comm || recvcount < 0 || x->dtype[t] != recvtype ||
        (source != MPI_ANY_SOURCE && source != MPI_PROC_NULL && (uint32_t)source >= (uint32_t)c->size) ||
        (recvtag < 0 && recvtag != MPI_ANY_TAG) ||
        (recvcount != 0 && (recvbuf == NULL || recvbuf == MPI_IN_PLACE)))
        return GMPI_EXPRESS_DECLINED;
    if (lane_send(sendbuf, sendcount, sendtype, dest, sendtag, comm) != MPI_SUCCESS)
        return GMPI_EXPRESS_DECLINED; /* nothing was sent */
    int rc = gmpi_express_Recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
    if (rc != GMPI_EXPRESS_DECLINED)
        return rc;
    return gmpi_express_sendrecv_tail(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
}

int gmpi_express_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lane_send(buf, count, datatype, dest, tag, comm);
}

int gmpi_express_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lane_send(buf, count, datatype, dest, tag, comm);
}

/* RMA_PIECE: rma_copy's piece. glibc's memmove on x86-64 copies with
 * "rep movsb" only below a limit (on AMD, about the size of the L2
 * cache) and with a vector loop above it; on the AMD EPYC (Zen 5) we
 * measure on, the loop moves a cache-resident 1 MiB at 64 GB/s where
 * "rep movsb", or memcpy in pieces below the limit, moves 71 GB/s (2 MiB:
 * 53 against 62; below 1 MiB both are the same). 128 KiB pieces stay
 * below that limit on current x86-64 machines, and a call per 128 KiB
 * costs nothing. */
#define RMA_PIECE ((uint64_t)128 << 10)

/* rma_copy is memmove for the data of a put or get between this
 * process's memory and a window mapped in it: ranges that do not overlap
 * and are larger than a piece go in pieces. */
static void rma_copy(void *dst, const void *src, uint64_t n)
{
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    if (n <= RMA_PIECE || d - s < n || s - d < n) {
        memmove(dst, src, n);
        return;
    }
    for (uint64_t off = 0; off < n; off += RMA_PIECE)
        memcpy((char *)dst + off, (const char *)src + off, n - off < RMA_PIECE ? n - off : RMA_PIECE);
}

/* rma_target returns where count x datatype at displacement disp of
 * target lies in this process, when the one-sided lane may copy it
 * (express.h); NULL: decline. */
static char *rma_target(int count, MPI_Datatype datatype, int target, MPI_Aint disp, int tcount,
                        MPI_Datatype tdatatype, MPI_Win win, const void *buf, uint64_t *bytes)
{
    const struct gmpi_express *x = &gmpi_express;
    const struct gmpi_express_win *w = &x->wins[(uint32_t)win % GMPI_EXPRESS_WINS];
    uint32_t t = (uint32_t)datatype & 0xff;
    uint64_t off;
    if (!x->rma_on || w->handle != win || w->handle == 0 || (uint32_t)target >= (uint32_t)w->n ||
        !w->access[target] || count <= 0 || count != tcount || datatype != tdatatype ||
        x->dtype[t] != datatype || disp < 0 || buf == NULL || buf == MPI_BOTTOM)
        return NULL;
    *bytes = (uint64_t)count * x->dsize[t];
    if (__builtin_mul_overflow((uint64_t)disp, w->unit[target], &off) || off > w->size[target] ||
        *bytes > w->size[target] - off)
        return NULL;
    return w->base[target] + off;
}

int gmpi_express_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    uint64_t n;
    char *p = rma_target(origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                         win, origin_addr, &n);
    if (p == NULL)
        return GMPI_EXPRESS_DECLINED;
    rma_copy(p, origin_addr, n);
    return MPI_SUCCESS;
}

int gmpi_express_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    uint64_t n;
    char *p = rma_target(origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                         win, origin_addr, &n);
    if (p == NULL)
        return GMPI_EXPRESS_DECLINED;
    rma_copy(origin_addr, p, n);
    return MPI_SUCCESS;
}

int gmpi_express_Win_flush(int rank, MPI_Win win)
{
    const struct gmpi_express *x = &gmpi_express;
    const struct gmpi_express_win *w = &x->wins[(uint32_t)win % GMPI_EXPRESS_WINS];
    if (!x->rma_on || w->handle != win || w->handle == 0 || (uint32_t)rank >= (uint32_t)w->n || !w->flush[rank])
        return GMPI_EXPRESS_DECLINED;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}

#define ACC_LOOP(T, OP)                                                     \
    do {                                                                    \
        T *d = (T *)p;                                                      \
        const T *o = (const T *)origin_addr;                                \
        for (int i = 0; i < origin_count; i++) d[i] OP o[i];                \
    } while (0)

int gmpi_express_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            int target_rank, MPI_Aint target_disp, int target_count,
                            MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    const struct gmpi_express_win *w = &gmpi_express.wins[(uint32_t)win % GMPI_EXPRESS_WINS];
    uint64_t n;
    if (op != MPI_SUM && op != MPI_REPLACE)
        return GMPI_EXPRESS_DECLINED;
    switch (origin_datatype) {
    case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_LONG_LONG_INT:
    case MPI_FLOAT: case MPI_DOUBLE: case MPI_INT32_T: case MPI_INT64_T: case MPI_UINT32_T: case MPI_UINT64_T:
        break;
    default:
        return GMPI_EXPRESS_DECLINED;
    }
    char *p = rma_target(origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                         win, origin_addr, &n);
    if (p == NULL)
        return GMPI_EXPRESS_DECLINED;
    uint32_t *lk = w->acc[target_rank], unlocked = 0;
    if (!__atomic_compare_exchange_n(lk, &unlocked, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return GMPI_EXPRESS_DECLINED; /* held: the Go path waits for it */
    if (op == MPI_REPLACE)
        rma_copy(p, origin_addr, n);
    else
        switch (origin_datatype) {
        case MPI_INT: case MPI_INT32_T: ACC_LOOP(int32_t, +=); break;
        case MPI_UNSIGNED: case MPI_UINT32_T: ACC_LOOP(uint32_t, +=); break;
        case MPI_LONG: case MPI_LONG_LONG_INT: case MPI_INT64_T: ACC_LOOP(int64_t, +=); break;
        case MPI_UNSIGNED_LONG: case MPI_UINT64_T: ACC_LOOP(uint64_t, +=); break;
        case MPI_FLOAT: ACC_LOOP(float, +=); break;
        case MPI_DOUBLE: ACC_LOOP(double, +=); break;
        }
    __atomic_store_n(lk, 0, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(w->accwait[target_rank], __ATOMIC_SEQ_CST) != 0)
        syscall(SYS_futex, lk, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
    return MPI_SUCCESS;
}

/* fence_barrier is segBarrier (runtime/rma_sync.go) in C. */
static void fence_barrier(const struct gmpi_express *x, const struct gmpi_express_win *w)
{
    uint32_t *cnt = w->bar, *gen = w->bar + 1, *sleepers = w->bar + 2;
    uint32_t g = __atomic_load_n(gen, __ATOMIC_SEQ_CST);
    if (__atomic_add_fetch(cnt, 1, __ATOMIC_SEQ_CST) == (uint32_t)w->n) {
        __atomic_store_n(cnt, 0, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(gen, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(sleepers, __ATOMIC_SEQ_CST) != 0)
            syscall(SYS_futex, gen, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
        return;
    }
    for (int i = 0;; i++) {
        if (__atomic_load_n(gen, __ATOMIC_SEQ_CST) != g)
            return;
        /* Spin, then give the CPU away (a loaded host: the others may
         * not be running), then sleep. */
        if (i < 200 && !x->yield) {
            relax();
            continue;
        }
        if (i < 2200) {
            sched_yield();
            continue;
        }
        __atomic_add_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(gen, __ATOMIC_SEQ_CST) == g) {
            struct timespec ts = {0, 1000000};
            syscall(SYS_futex, gen, FUTEX_WAIT, g, &ts, NULL, 0);
        }
        __atomic_sub_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
    }
}

int gmpi_express_Win_fence(int assert, MPI_Win win)
{
    const struct gmpi_express *x = &gmpi_express;
    const struct gmpi_express_win *w = &x->wins[(uint32_t)win % GMPI_EXPRESS_WINS];
    if (!x->rma_on || w->handle != win || w->handle == 0 || !w->fence ||
        (assert & ~(MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE | MPI_MODE_NOPUT)) != 0)
        return GMPI_EXPRESS_DECLINED;
    fence_barrier(x, w);
    return MPI_SUCCESS;
}

/* Nonblocking point-to-point (express.h, struct gmpi_express_reqs). */

struct gmpi_express_reqs gmpi_express_reqs;

static int xr_alloc(struct gmpi_express_reqs *q)
{
    if (!q->init) {
        for (int i = 0; i < GMPI_EXPRESS_REQS; i++)
            q->freel[i] = GMPI_EXPRESS_REQS - 1 - i;
        q->nfree = GMPI_EXPRESS_REQS;
        q->init = 1;
    }
    return q->nfree > 0 ? q->freel[--q->nfree] : -1;
}

static void xr_free(struct gmpi_express_reqs *q, int i)
{
    q->r[i].state = XR_FREE;
    q->freel[q->nfree++] = i;
}

/* xr_slot returns the slot of one of this table's live requests, -1
 * for any other handle. */
static int xr_slot(const struct gmpi_express_reqs *q, MPI_Request h)
{
    uint32_t i = (uint32_t)h & ~GMPI_EXPRESS_REQ_MASK;
    if (((uint32_t)h & GMPI_EXPRESS_REQ_MASK) != GMPI_EXPRESS_REQ_KIND || i >= GMPI_EXPRESS_REQS ||
        q->r[i].state == XR_FREE)
        return -1;
    return (int)i;
}

/* xr_usable: the nonblocking lane may run: not a front (they map
 * request handles of their own, Go does), nothing that needs Go's
 * polling (vendor MPI peers). Every nonblocking entry asks it. */
static int xr_usable(const struct gmpi_express *x)
{
#ifdef GMPI_FRONT
    (void)x;
    return 0;
#else
    return x->on && x->nvworld == 0;
#endif
}

static int progress(const struct gmpi_express *x, struct gmpi_express_reqs *q);

int gmpi_express_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
    struct gmpi_express *x = &gmpi_express;
    struct gmpi_express_reqs *q = &gmpi_express_reqs;
    uint64_t n;
    if (!xr_usable(x) || request == NULL || __atomic_load_n(&x->outbox, __ATOMIC_RELAXED) != 0 || tag < 0)
        return GMPI_EXPRESS_DECLINED;
    const struct gmpi_express_comm *c = args(x, buf, count, datatype, dest, comm, &n);
    if (c == NULL || n > x->peers[dest].eager || x->peers[dest].tx == NULL)
        return GMPI_EXPRESS_DECLINED;
    int i = xr_alloc(q);
    if (i < 0)
        return GMPI_EXPRESS_DECLINED;
    /* Go's SendIDs count up from 1; these have the top bit set. */
    uint64_t id = (1ull << 63) | ++q->next_id;
    struct gmpi_shm_hdr h = {
        .kind = x->eager_kind, .context = c->ctx, .source = c->rank, .tag = tag, .len = n, .send_id = id,
    };
    struct gmpi_shm_tx *t = x->peers[dest].tx;
    for (int k = 0; gmpi_shm_send(t, &h, buf, n) != 0; k++) {
        /* The ring is full. Both ranks may be posting a window of sends
         * at once, each into a ring the other drains only when it
         * waits: take what arrived for the receives posted here (as
         * their wait would, so the peer finds room too) and try again,
         * for as long as a receive waits before it leaves the wait to
         * Go (Go's send waits for room the same way, progressing). */
        if (n > t->max_payload || k >= x->spin || progress(x, q)) {
            xr_free(q, i);
            return GMPI_EXPRESS_DECLINED;
        }
        if (x->yield)
            sched_yield();
        else
            relax();
    }
#if defined(__x86_64__)
    /* As the shm device's Send for frames that name a request: nonblocking
     * sends come in batches, so ask for a line ahead while nobody needs it
     * (PREFETCHW; older CPUs take it as a no-op). */
    if (x->prefetch != 0)
        __asm__ volatile("prefetchw (%0)" : : "r"(t->data + ((t->tail + x->prefetch) & t->mask)));
#endif
    struct gmpi_express_req *e = &q->r[i];
    e->state = XR_SENT;
    e->comm = comm;
    e->peer = dest;
    e->tag = tag;
    e->ctx = c->ctx;
    e->len = n;
    e->send_id = id;
    *request = (MPI_Request)(GMPI_EXPRESS_REQ_KIND | (uint32_t)i);
    return MPI_SUCCESS;
}

/* drain takes the frames at the head of ring r that receives posted here
 * get under the matching engine's rule: the earliest posted receive whose
 * envelope matches (the engine holds nothing posted or unexpected from
 * this ring meanwhile, express.h). It returns 1 when the head frame is
 * one only Go handles (no receive posted here matches it, it is not a
 * plain eager frame, or it does not fit), 0 when the ring is empty. */
static int drain(const struct gmpi_express *x, struct gmpi_express_reqs *q, struct gmpi_shm_rx *r)
{
    for (;;) {
        const uint8_t *payload;
        uint64_t n;
        const struct gmpi_shm_hdr *h = gmpi_shm_peek(r, &payload, &n);
        if (h == NULL) /* a record being written is not there yet, for Go too */
            return gmpi_shm_pending(r) && !gmpi_shm_partial(r) ? 1 : 0;
        int k = -1;
        struct gmpi_express_req *e = NULL;
        for (int j = 0; j < q->npost; j++) {
            e = &q->r[q->post[j]];
            if (e->rx == r && e->ctx == h->context && e->peer == h->source &&
                (e->tag == MPI_ANY_TAG || e->tag == h->tag)) {
                k = j;
                break;
            }
        }
        if (k < 0 || h->kind != x->eager_kind || h->flags != 0 || h->len != n || n > e->len)
            return 1;
        int htag = h->tag;
        if (n)
            memcpy(e->buf, payload, n);
        gmpi_shm_consume(r, n);
        e->state = XR_RECVD;
        e->tag = htag;
        e->len = n;
        memmove(&q->post[k], &q->post[k + 1], sizeof(q->post[0]) * (size_t)(q->npost - k - 1));
        q->npost--;
    }
}

/* progress drains every ring with something in it; 1 when Go must see
 * a frame (or has protocol frames to send). */
static int progress(const struct gmpi_express *x, struct gmpi_express_reqs *q)
{
    /* Anything in the matching engine (arrived over tcp, or drained by a
     * Go call made from a callback since the receives were posted) may
     * come first: Go. */
    if (__atomic_load_n(&x->outbox, __ATOMIC_RELAXED) != 0 || __atomic_load_n(&x->queued, __ATOMIC_RELAXED) != 0)
        return 1;
    int blocked = 0;
    for (int i = 0; i < x->nrx; i++)
        if (gmpi_shm_pending(x->rxs[i]))
            blocked |= drain(x, q, x->rxs[i]);
    return blocked;
}

int gmpi_express_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
    struct gmpi_express *x = &gmpi_express;
    struct gmpi_express_reqs *q = &gmpi_express_reqs;
    uint64_t cap;
    /* The matching engine empty (so it holds nothing this receive
     * should match first), a shared-memory source (no wildcard). */
    if (!xr_usable(x) || request == NULL || __atomic_load_n(&x->outbox, __ATOMIC_RELAXED) != 0 ||
        (tag < 0 && tag != MPI_ANY_TAG) || __atomic_load_n(&x->queued, __ATOMIC_RELAXED) != 0)
        return GMPI_EXPRESS_DECLINED;
    const struct gmpi_express_comm *c = args(x, buf, count, datatype, source, comm, &cap);
    if (c == NULL || x->peers[source].rx == NULL)
        return GMPI_EXPRESS_DECLINED;
    int i = xr_alloc(q);
    if (i < 0)
        return GMPI_EXPRESS_DECLINED;
    struct gmpi_express_req *e = &q->r[i];
    e->state = XR_POSTED;
    e->comm = comm;
    e->peer = source;
    e->tag = tag;
    e->ctx = c->ctx;
    e->datatype = datatype;
    e->count = count;
    e->buf = buf;
    e->rx = x->peers[source].rx;
    e->len = cap;
    e->send_id = 0;
    q->post[q->npost++] = i;
    *request = (MPI_Request)(GMPI_EXPRESS_REQ_KIND | (uint32_t)i);
    /* What is already there is this receive's if it matches. */
    if (gmpi_shm_pending(e->rx))
        (void)drain(x, q, e->rx);
    return MPI_SUCCESS;
}

/* MPI_Iallreduce on the shared-memory lane (cshm.c): the request names
 * the call. */
int gmpi_express_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request *request)
{
    struct gmpi_express *x = &gmpi_express;
    struct gmpi_express_reqs *q = &gmpi_express_reqs;
    uint64_t seq;
    if (!xr_usable(x) || request == NULL || (q->init && q->nfree == 0))
        return GMPI_EXPRESS_DECLINED;
    if (gmpi_cshm_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, &seq) != MPI_SUCCESS)
        return GMPI_EXPRESS_DECLINED;
    int i = xr_alloc(q); /* there is one (checked above) */
    struct gmpi_express_req *e = &q->r[i];
    e->state = XR_COLL;
    e->comm = comm;
    e->peer = MPI_ANY_SOURCE;
    e->tag = MPI_ANY_TAG;
    e->buf = recvbuf;
    e->rx = NULL;
    e->len = 0;
    e->send_id = seq;
    *request = (MPI_Request)(GMPI_EXPRESS_REQ_KIND | (uint32_t)i);
    return MPI_SUCCESS;
}

/* xr_list checks that every handle of reqs is MPI_REQUEST_NULL or one of
 * this table's requests that Go has not taken over, and counts the ones
 * still posted; -1: Go's business. *coll counts the lane's collectives
 * not complete yet (it tries to complete them) and *last is the slot of
 * one of them. */
static int xr_list(const struct gmpi_express_reqs *q, int count, const MPI_Request *reqs, int *coll, int *last)
{
    int posted = 0, any = 0;
    *coll = 0;
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        int k = xr_slot(q, reqs[i]);
        if (k < 0 || q->r[k].state == XR_GO)
            return -1;
        any = 1;
        posted += q->r[k].state == XR_POSTED;
        if (q->r[k].state == XR_COLL) {
            int rc = gmpi_cshm_nb_finish(q->r[k].comm, q->r[k].send_id);
            if (rc < 0)
                return -1;
            if (rc == 0) {
                ++*coll;
                *last = k;
            }
        }
    }
    return any ? posted : -1;
}

/* xr_complete retires reqs[i] (done, or MPI_REQUEST_NULL) and writes its
 * status as the Go path does. */
static void xr_complete(struct gmpi_express_reqs *q, MPI_Request *reqs, int i, MPI_Status *st)
{
    int src = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;
    uint64_t n = 0;
    if (reqs[i] != MPI_REQUEST_NULL) {
        int k = xr_slot(q, reqs[i]);
        struct gmpi_express_req *e = &q->r[k];
        if (e->state == XR_RECVD) {
            src = e->peer;
            tag = e->tag;
            n = e->len;
        }
        xr_free(q, k);
        reqs[i] = MPI_REQUEST_NULL;
    }
    if (st != MPI_STATUS_IGNORE && st != NULL) {
        st->count_lo = (int)(uint32_t)n;
        st->count_hi_and_cancelled = (int)(n >> 32) << 1;
        st->MPI_SOURCE = src;
        st->MPI_TAG = tag;
    }
}

/* xr_wait waits (spin: polls before Go takes over) until no request of
 * the list is still posted: 0 when none is, 1 when some still are after
 * spin polls, -1 when the list or a frame is Go's. */
static int xr_wait(struct gmpi_express *x, struct gmpi_express_reqs *q, int count, MPI_Request *reqs, int spin)
{
    int coll, last = -1;
    for (int i = 0;; i++) {
        int posted = xr_list(q, count, reqs, &coll, &last);
        if (posted < 0 || (posted == 0 && coll == 0))
            return posted;
        if (posted > 0) {
            if (progress(x, q))
                return -1;
            if (xr_list(q, count, reqs, &coll, &last) == 0 && coll == 0)
                return 0;
        }
        if (!__atomic_load_n(&x->on, __ATOMIC_RELAXED))
            return -1;
        if (i >= spin) {
            /* One collective of the lane left, nothing posted: wait for
             * it as the blocking collectives wait (it needs only the
             * other ranks' starts of the same call). */
            if (spin > 0 && posted == 0 && coll == 1)
                return gmpi_cshm_nb_wait(q->r[last].comm, q->r[last].send_id) == 1 ? 0 : -1;
            return 1;
        }
        if (x->yield)
            sched_yield();
        else
            relax();
    }
}

int gmpi_express_Waitall(int count, MPI_Request reqs[], MPI_Status sts[])
{
    struct gmpi_express *x = &gmpi_express;
    struct gmpi_express_reqs *q = &gmpi_express_reqs;
    if (!xr_usable(x) || count <= 0 || reqs == NULL || xr_wait(x, q, count, reqs, x->spin) != 0)
        return GMPI_EXPRESS_DECLINED;
    int ignore = sts == MPI_STATUSES_IGNORE || sts == NULL;
    for (int i = 0; i < count; i++)
        xr_complete(q, reqs, i, ignore ? MPI_STATUS_IGNORE : &sts[i]);
    return MPI_SUCCESS;
}

int gmpi_express_Wait(MPI_Request *request, MPI_Status *status)
{
    struct gmpi_express *x = &gmpi_express;
    struct gmpi_express_reqs *q = &gmpi_express_reqs;
    if (!xr_usable(x) || request == NULL || *request == MPI_REQUEST_NULL ||
        xr_wait(x, q, 1, request, x->spin) != 0)
        return GMPI_EXPRESS_DECLINED;
    xr_complete(q, request, 0, status);
    return MPI_SUCCESS;
}

/* xr_test is one poll for MPI_Test and MPI_Testall: 1 when every request
 * of the list is done, 0 when not, -1: decline. Now and then an
 * unsuccessful test goes to Go anyway, which makes progress on
 * everything. */
static int xr_test(struct gmpi_express *x, struct gmpi_express_reqs *q, int count, MPI_Request *reqs)
{
    int rc = xr_wait(x, q, count, reqs, 0);
    if (rc == 0)
        return 1;
    if (rc < 0 || (++q->tests & 255) == 0)
        return -1;
    return 0;
}

int gmpi_express_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    struct gmpi_express *x = &gmpi_express;
    struct gmpi_express_reqs *q = &gmpi_express_reqs;
    if (!xr_usable(x) || request == NULL || flag == NULL || *request == MPI_REQUEST_NULL)
        return GMPI_EXPRESS_DECLINED;
    int rc = xr_test(x, q, 1, request);
    if (rc < 0)
        return GMPI_EXPRESS_DECLINED;
    *flag = rc;
    if (rc)
        xr_complete(q, request, 0, status);
    return MPI_SUCCESS;
}

int gmpi_express_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    struct gmpi_express *x = &gmpi_express;
    struct gmpi_express_reqs *q = &gmpi_express_reqs;
    if (!xr_usable(x) || count <= 0 || reqs == NULL || flag == NULL)
        return GMPI_EXPRESS_DECLINED;
    int rc = xr_test(x, q, count, reqs);
    if (rc < 0)
        return GMPI_EXPRESS_DECLINED;
    *flag = rc;
    if (rc) {
        int ignore = sts == MPI_STATUSES_IGNORE || sts == NULL;
        for (int i = 0; i < count; i++)
            xr_complete(q, reqs, i, ignore ? MPI_STATUS_IGNORE : &sts[i]);
    }
    return MPI_SUCCESS;
}
