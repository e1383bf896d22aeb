/* The collective express lane's entry points; see cshm.h. Every function
 * here follows coll/shm's Go code step for step (coll/shm/ops.go,
 * blocks.go): the same step numbers, the same slot allocation, the same
 * association of reductions. */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "../include/mpi.h"
#include "express.h"
#include "cshm.h"
#include "altstack.h"

struct gmpi_cshm gmpi_cshm;

/* The most bytes per round the lane moves (combine's temporaries). */
#define CSHM_MAX 256

/* Go: wait until rank (-1: every rank) of the communicator has completed
 * step, as coll/shm waits (capi/cshm.go). */
extern void gmpi_cshm_wait(int handle, int rank, uint64_t step);

/* One call: the communicator and this rank's state. */
struct call {
    const struct gmpi_cshm_comm *c;
    uint64_t *step;     /* private: steps every rank completed so far */
    uint64_t *next;     /* private: the small ring's next slot */
    uint64_t *last_use; /* private: per small slot */
    uint64_t *seen;     /* private: cached counters of the other ranks */
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static inline uint64_t *step_of(const struct gmpi_cshm_comm *c, int r)
{
    return (uint64_t *)(c->base + (int64_t)r * c->ctl_bytes);
}

static inline uint32_t *bell_of(const struct gmpi_cshm_comm *c, int r)
{
    return (uint32_t *)(c->base + (int64_t)r * c->ctl_bytes + c->bell_off);
}

/* slots is rank r's small ring from slot first on. */
static inline uint8_t *slots(const struct gmpi_cshm_comm *c, int r, int first)
{
    return c->base + c->data_off + (int64_t)r * c->data_bytes + (int64_t)first * c->small_slot;
}

/* lookup finds comm's registration; 0: none. */
static int lookup(struct call *k, int comm)
{
    const struct gmpi_cshm_comm *c = &gmpi_cshm.comms[(uint32_t)comm % GMPI_CSHM_COMMS];
    if (c->handle != comm || comm == 0 || c->base == NULL)
        return 0;
    uint8_t *priv = c->base + c->priv_off + (int64_t)c->rank * c->priv_bytes;
    k->c = c;
    k->step = (uint64_t *)priv;
    k->next = (uint64_t *)priv + 1;
    k->last_use = (uint64_t *)priv + 2;
    k->seen = (uint64_t *)(priv + c->seen_off);
    return 1;
}

/* begin finds comm's registration for operation op; 0: decline. */
static int begin(struct call *k, MPI_Comm comm, int op)
{
    const struct gmpi_cshm_comm *c = &gmpi_cshm.comms[(uint32_t)comm % GMPI_CSHM_COMMS];
    const struct gmpi_cshm_nb *nb = &gmpi_cshm.nb[(uint32_t)comm % GMPI_CSHM_COMMS];
    if (!gmpi_cshm.on || c->handle != comm || !(c->ops >> op & 1) || c->busy ||
        __atomic_load_n(&nb->done, __ATOMIC_ACQUIRE) < nb->seq)
        return 0; /* nonblocking calls queued in Go, or the lane's own: they take steps first */
    return lookup(k, comm);
}

/* dtsize is the size of a predefined contiguous datatype (0: none). */
static inline uint64_t dtsize(MPI_Datatype dt)
{
    const struct gmpi_express *x = &gmpi_express;
    uint32_t t = (uint32_t)dt & 0xff;
    return x->dtype[t] == dt ? x->dsize[t] : 0;
}

/* alloc reserves small slots for bytes for a round that ends at step end
 * (ring.alloc); it returns the first slot and sets *free to the step
 * every rank must have completed before they are written. */
static int alloc(struct call *k, uint64_t bytes, uint64_t end, uint64_t *free)
{
    int64_t slot = k->c->small_slot, n = k->c->small_slots;
    int64_t want = bytes == 0 ? 1 : (int64_t)((bytes + slot - 1) / slot);
    int64_t next = (int64_t)*k->next;
    if (next + want > n)
        next = 0;
    *k->next = (uint64_t)(next + want);
    uint64_t f = 0;
    for (int64_t i = next; i < next + want; i++) {
        if (k->last_use[i] > f)
            f = k->last_use[i];
        k->last_use[i] = end;
    }
    *free = f;
    return (int)next;
}

/* publish completes step s for this rank and wakes ranks that sleep. */
static void publish(struct call *k, uint64_t s)
{
    const struct gmpi_cshm_comm *c = k->c;
    __atomic_store_n(step_of(c, c->rank), s, __ATOMIC_SEQ_CST);
    for (int r = 0; r < c->size; r++) {
        uint32_t *bell = bell_of(c, r);
        if (r != c->rank && __atomic_load_n(bell + 1, __ATOMIC_SEQ_CST) != 0) {
            __atomic_fetch_add(bell, 1, __ATOMIC_SEQ_CST);
            syscall(SYS_futex, bell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
        }
    }
}

static inline int at(struct call *k, int r, uint64_t s)
{
    if (k->seen[r] >= s)
        return 1;
    k->seen[r] = __atomic_load_n(step_of(k->c, r), __ATOMIC_ACQUIRE);
    return k->seen[r] >= s;
}

static int all_at(struct call *k, uint64_t s)
{
    for (int r = 0; r < k->c->size; r++)
        if (!at(k, r, s))
            return 0;
    return 1;
}

/* wait_rank waits until rank r (-1: every rank) has completed step s:
 * a short spin here, then in Go. */
static void wait_rank(struct call *k, int r, uint64_t s)
{
    for (int i = 0;; i++) {
        if (r < 0 ? all_at(k, s) : at(k, r, s))
            return;
        if (i >= gmpi_cshm.spin)
            break;
        if (k->c->yield)
            sched_yield();
        else
            relax();
    }
    gmpi_alt_wipe_caller(); /* it parks: what other libraries' waits do to the stack */
    gmpi_cshm_wait(k->c->handle, r, s);
}

/* Reduction kernels: inout = in op inout, as runtime/op_kernels.go
 * computes it (the same expressions, so the same bits). */
#define KERNEL(name, T)                                                                            \
    static int name(MPI_Op op, const void *vin, void *vinout, int64_t n)                           \
    {                                                                                              \
        const T *in = vin;                                                                         \
        T *io = vinout;                                                                            \
        int64_t i;                                                                                 \
        if (op == MPI_SUM)                                                                         \
            for (i = 0; i < n; i++)                                                                \
                io[i] += in[i];                                                                    \
        else if (op == MPI_PROD)                                                                   \
            for (i = 0; i < n; i++)                                                                \
                io[i] *= in[i];                                                                    \
        else if (op == MPI_MAX)                                                                    \
            for (i = 0; i < n; i++) {                                                              \
                if (!(io[i] > in[i]))                                                              \
                    io[i] = in[i];                                                                 \
            }                                                                                      \
        else if (op == MPI_MIN)                                                                    \
            for (i = 0; i < n; i++) {                                                              \
                if (!(io[i] < in[i]))                                                              \
                    io[i] = in[i];                                                                 \
            }                                                                                      \
        else                                                                                       \
            return 0;                                                                              \
        return 1;                                                                                  \
    }
KERNEL(k_f64, double)
KERNEL(k_f32, float)
KERNEL(k_i32, int32_t)
KERNEL(k_u32, uint32_t)
KERNEL(k_i64, int64_t)
KERNEL(k_u64, uint64_t)

typedef int (*kernel)(MPI_Op, const void *, void *, int64_t);

/* kernel_of is the kernel of dt with op (NULL: none here). */
static kernel kernel_of(MPI_Datatype dt, MPI_Op op, uint64_t *esize)
{
    if (op != MPI_SUM && op != MPI_PROD && op != MPI_MAX && op != MPI_MIN)
        return NULL;
    kernel k = NULL;
    if (dt == MPI_DOUBLE)
        k = k_f64;
    else if (dt == MPI_FLOAT)
        k = k_f32;
    else if (dt == MPI_INT || dt == MPI_INT32_T)
        k = k_i32;
    else if (dt == MPI_UNSIGNED || dt == MPI_UINT32_T)
        k = k_u32;
    else if (dt == MPI_LONG || dt == MPI_LONG_LONG || dt == MPI_INT64_T)
        k = k_i64;
    else if (dt == MPI_UNSIGNED_LONG || dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_UINT64_T)
        k = k_u64;
    if (k != NULL && dtsize(dt) == 0)
        return NULL;
    *esize = dtsize(dt);
    return k;
}

/* combine sets dst to the reduction of bytes at offset so of the slots
 * (from slot first on) of ranks lo..lo+nl-1, over the binomial tree of
 * coll/shm's combineRange: subtrees on a stack as the digits of a binary
 * counter, every combination right = left op right, the last leaf's
 * subtree accumulated in dst. */
static void combine(struct call *k, kernel f, MPI_Op op, uint64_t esize, uint8_t *dst, int first, uint64_t so,
                    uint64_t bytes, int lo, int nl)
{
    int last = lo + nl - 1;
    struct part {
        uint8_t *data;
        int size;
    } stack[66];
    uint8_t temps[16][CSHM_MAX];
    uint8_t *spare[66];
    int top = 0, nspare = 0, ntemps = 0;
    int64_t cnt = (int64_t)(bytes / esize);
#define LEAF(r) (slots(k->c, (r), first) + so)
    if (nl == 1) {
        memcpy(dst, LEAF(lo), bytes);
        return;
    }
    for (int r = lo; r <= last; r++) {
        struct part cur = {LEAF(r), 1};
        while (top > 0 && stack[top - 1].size == cur.size) {
            struct part left = stack[--top];
            if (cur.size == 1) { /* own(r) */
                uint8_t *b = r == last ? dst : nspare > 0 ? spare[--nspare] : temps[ntemps++];
                memcpy(b, LEAF(r), bytes);
                cur.data = b;
            }
            f(op, left.data, cur.data, cnt);
            if (left.size > 1)
                spare[nspare++] = left.data;
            cur.size += left.size;
        }
        stack[top++] = cur;
    }
    while (top > 1) {
        struct part right = stack[--top];
        struct part left = stack[--top];
        if (right.size == 1) {
            memcpy(dst, LEAF(last), bytes);
            right.data = dst;
        }
        f(op, left.data, right.data, cnt);
        if (left.size > 1)
            spare[nspare++] = left.data;
        right.size += left.size;
        stack[top++] = right;
    }
#undef LEAF
}

/* fits: the lane takes communicators of at most 64 ranks (combine's
 * temporaries) and one round of the small ring. */
static inline int fits(const struct call *k, uint64_t bytes)
{
    return k->c->size <= 64 && bytes > 0 && bytes <= (uint64_t)k->c->small_slot && bytes <= CSHM_MAX;
}

int gmpi_express_Barrier(MPI_Comm comm)
{
    struct call k;
    if (!begin(&k, comm, GMPI_COLL_BARRIER))
        return GMPI_EXPRESS_DECLINED;
    uint64_t s = ++*k.step;
    publish(&k, s);
    wait_rank(&k, -1, s);
    return MPI_SUCCESS;
}

int gmpi_express_Bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    struct call k;
    if (!begin(&k, comm, GMPI_COLL_BCAST) || count <= 0 || buf == NULL || buf == MPI_IN_PLACE ||
        (uint32_t)root >= (uint32_t)k.c->size)
        return GMPI_EXPRESS_DECLINED;
    uint64_t bytes = (uint64_t)count * dtsize(datatype);
    if (!fits(&k, bytes))
        return GMPI_EXPRESS_DECLINED;
    uint64_t s = ++*k.step, free;
    int first = alloc(&k, bytes, s, &free);
    if (k.c->rank == root) {
        wait_rank(&k, -1, free);
        memcpy(slots(k.c, root, first), buf, bytes);
    } else {
        wait_rank(&k, root, s);
        memcpy(buf, slots(k.c, root, first), bytes);
    }
    publish(&k, s);
    return MPI_SUCCESS;
}

/* reduction is coll/shm's round for one small round: every rank copies
 * its operand into its slots; the root (all: every rank) combines. */
static int reduction(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm, int all)
{
    struct call k;
    uint64_t esize;
    if (!begin(&k, comm, all ? GMPI_COLL_ALLREDUCE : GMPI_COLL_REDUCE) || count <= 0 || sendbuf == NULL ||
        sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE || (uint32_t)root >= (uint32_t)k.c->size)
        return GMPI_EXPRESS_DECLINED;
    kernel f = kernel_of(datatype, op, &esize);
    uint64_t bytes = (uint64_t)count * esize;
    int want = all || k.c->rank == root;
    if (f == NULL || !fits(&k, bytes) || (want && (recvbuf == NULL || recvbuf == sendbuf)))
        return GMPI_EXPRESS_DECLINED;
    uint64_t s1 = *k.step + 1, end = *k.step + 3, free;
    *k.step = end;
    int first = alloc(&k, bytes, end, &free);
    wait_rank(&k, -1, free);
    memcpy(slots(k.c, k.c->rank, first), sendbuf, bytes);
    if (!want) {
        publish(&k, end);
        return MPI_SUCCESS;
    }
    if (all) {
        publish(&k, s1);
        wait_rank(&k, -1, s1);
    } else { /* Reduce: no rank waits for the root's s1, so it publishes end only */
        for (int r = 0; r < k.c->size; r++)
            if (r != root)
                wait_rank(&k, r, s1);
    }
    combine(&k, f, op, esize, recvbuf, first, 0, bytes, 0, k.c->size);
    publish(&k, end);
    return MPI_SUCCESS;
}

int gmpi_express_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                        MPI_Comm comm)
{
    return reduction(sendbuf, recvbuf, count, datatype, op, root, comm, 0);
}

int gmpi_express_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm)
{
    return reduction(sendbuf, recvbuf, count, datatype, op, 0, comm, 1);
}

/* blocks checks a send and a receive side of a block operation: both
 * predefined contiguous, the same number of bytes per block, buffers
 * given where significant. It returns the block's bytes (0: decline). */
static uint64_t blocks(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int send_sig, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, int recv_sig)
{
    uint64_t sb = 0, rb = 0;
    if (send_sig) {
        if (sendcount <= 0 || sendbuf == NULL || sendbuf == MPI_IN_PLACE || (sb = (uint64_t)sendcount * dtsize(sendtype)) == 0)
            return 0;
    }
    if (recv_sig) {
        if (recvcount <= 0 || recvbuf == NULL || recvbuf == MPI_IN_PLACE || (rb = (uint64_t)recvcount * dtsize(recvtype)) == 0)
            return 0;
    }
    if (send_sig && recv_sig && sb != rb)
        return 0;
    return send_sig ? sb : rb;
}

/* gather is coll/shm's gatherOp for one small round. */
static int gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, int all)
{
    struct call k;
    if (!begin(&k, comm, all ? GMPI_COLL_ALLGATHER : GMPI_COLL_GATHER) || (uint32_t)root >= (uint32_t)k.c->size)
        return GMPI_EXPRESS_DECLINED;
    int me = k.c->rank, n = k.c->size, want = all || me == root;
    uint64_t blk = blocks(sendbuf, sendcount, sendtype, 1, recvbuf, recvcount, recvtype, want);
    if (!fits(&k, blk) || (want && (const uint8_t *)recvbuf + blk * n > (const uint8_t *)sendbuf &&
                           (const uint8_t *)sendbuf + blk > (const uint8_t *)recvbuf))
        return GMPI_EXPRESS_DECLINED;
    uint64_t s1 = *k.step + 1, end = *k.step + 2, free;
    *k.step = end;
    int first = alloc(&k, blk, end, &free);
    if (all || !want) { /* Gather's root: no rank reads its slots or waits for its s1 */
        wait_rank(&k, -1, free);
        memcpy(slots(k.c, me, first), sendbuf, blk);
    }
    if (!want) {
        publish(&k, end);
        return MPI_SUCCESS;
    }
    if (all)
        publish(&k, s1);
    for (int r = 0; r < n; r++) {
        uint8_t *dst = (uint8_t *)recvbuf + (uint64_t)r * blk;
        if (r == me) {
            memcpy(dst, sendbuf, blk);
            continue;
        }
        wait_rank(&k, r, s1);
        memcpy(dst, slots(k.c, r, first), blk);
    }
    publish(&k, end);
    return MPI_SUCCESS;
}

int gmpi_express_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 0);
}

int gmpi_express_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, 1);
}

/* Scatter: coll/shm's scatter for one small round. */
int gmpi_express_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    struct call k;
    if (!begin(&k, comm, GMPI_COLL_SCATTER) || (uint32_t)root >= (uint32_t)k.c->size)
        return GMPI_EXPRESS_DECLINED;
    int me = k.c->rank, n = k.c->size;
    uint64_t blk = blocks(sendbuf, sendcount, sendtype, me == root, recvbuf, recvcount, recvtype, 1);
    if (!fits(&k, blk * n) || (me == root && (const uint8_t *)sendbuf + blk * n > (const uint8_t *)recvbuf &&
                               (const uint8_t *)recvbuf + blk > (const uint8_t *)sendbuf))
        return GMPI_EXPRESS_DECLINED;
    uint64_t s1 = *k.step + 1, end = *k.step + 2, free;
    *k.step = end;
    int first = alloc(&k, blk * n, end, &free);
    if (me == root) {
        memcpy(recvbuf, (const uint8_t *)sendbuf + (uint64_t)root * blk, blk);
        wait_rank(&k, -1, free);
        uint8_t *mine = slots(k.c, root, first);
        for (int j = 0; j < n; j++)
            if (j != root)
                memcpy(mine + (uint64_t)j * blk, (const uint8_t *)sendbuf + (uint64_t)j * blk, blk);
        publish(&k, end);
        return MPI_SUCCESS;
    }
    wait_rank(&k, root, s1);
    memcpy(recvbuf, slots(k.c, root, first) + (uint64_t)me * blk, blk);
    publish(&k, end);
    return MPI_SUCCESS;
}

/* Alltoall: coll/shm's alltoall for one small round. */
int gmpi_express_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    struct call k;
    if (!begin(&k, comm, GMPI_COLL_ALLTOALL))
        return GMPI_EXPRESS_DECLINED;
    int me = k.c->rank, n = k.c->size;
    uint64_t blk = blocks(sendbuf, sendcount, sendtype, 1, recvbuf, recvcount, recvtype, 1);
    if (!fits(&k, blk * n) || ((const uint8_t *)sendbuf + blk * n > (const uint8_t *)recvbuf &&
                               (const uint8_t *)recvbuf + blk * n > (const uint8_t *)sendbuf))
        return GMPI_EXPRESS_DECLINED;
    const uint8_t *src = sendbuf;
    uint8_t *dst = recvbuf;
    memcpy(dst + (uint64_t)me * blk, src + (uint64_t)me * blk, blk);
    uint64_t s1 = *k.step + 1, end = *k.step + 2, free;
    *k.step = end;
    int first = alloc(&k, blk * n, end, &free);
    wait_rank(&k, -1, free);
    uint8_t *mine = slots(k.c, me, first);
    for (int j = 0; j < n; j++)
        if (j != me)
            memcpy(mine + (uint64_t)j * blk, src + (uint64_t)j * blk, blk);
    publish(&k, s1);
    for (int d = 1; d < n; d++) {
        int r = (me + d) % n;
        wait_rank(&k, r, s1);
        memcpy(dst + (uint64_t)r * blk, slots(k.c, r, first) + (uint64_t)me * blk, blk);
    }
    publish(&k, end);
    return MPI_SUCCESS;
}

/* operands: what a small reduction of count elements from sendbuf into a
 * distinct recvbuf (neither MPI_IN_PLACE) needs before it may run here:
 * the call begun on comm, a C kernel for datatype and op, and room for
 * the operand; the kernel, or NULL to decline. */
static kernel operands(struct call *k, MPI_Comm comm, int kind, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, uint64_t *esize, uint64_t *bytes)
{
    if (!begin(k, comm, kind) || count <= 0 || sendbuf == NULL || recvbuf == NULL || sendbuf == MPI_IN_PLACE ||
        recvbuf == MPI_IN_PLACE || sendbuf == recvbuf)
        return NULL;
    kernel f = kernel_of(datatype, op, esize);
    if (f == NULL)
        return NULL;
    *bytes = (uint64_t)count * *esize;
    return fits(k, *bytes) ? f : NULL;
}

/* Scan: coll/shm's scanOp for one small round; the result is the
 * recursive-doubling association of coll/basic (coll/shm's prefix). */
int gmpi_express_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct call k;
    uint64_t esize, bytes;
    kernel f = operands(&k, comm, GMPI_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, &esize, &bytes);
    if (f == NULL)
        return GMPI_EXPRESS_DECLINED;
    int me = k.c->rank, n = k.c->size;
    uint64_t s1 = *k.step + 1, end = *k.step + 2, free;
    *k.step = end;
    int first = alloc(&k, bytes, end, &free);
    wait_rank(&k, -1, free);
    memcpy(slots(k.c, me, first), sendbuf, bytes);
    if (me > 0 && me < n - 1) /* only the ranks above wait for s1, and rank 0 waits for none */
        publish(&k, s1);
    for (int q = 0; q < me; q++)
        wait_rank(&k, q, s1);
    uint8_t tmp[CSHM_MAX];
    memcpy(recvbuf, slots(k.c, me, first), bytes);
    for (int mask = 1; mask < n; mask <<= 1) {
        if (!(me & mask))
            continue;
        int lo = (me ^ mask) & ~(mask - 1);
        combine(&k, f, op, esize, tmp, first, 0, bytes, lo, mask);
        f(op, tmp, recvbuf, (int64_t)(bytes / esize));
    }
    publish(&k, end);
    return MPI_SUCCESS;
}

/* Reduce_scatter_block: coll/shm's reduceScatterBlock for one small
 * round: every rank copies its blocks into its slots, rank j combines
 * block j of every rank over the binomial tree. */
int gmpi_express_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm)
{
    struct call k;
    uint64_t esize;
    if (!begin(&k, comm, GMPI_COLL_REDUCE_SCATTER_BLOCK) || recvcount <= 0 || sendbuf == NULL || recvbuf == NULL ||
        sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)
        return GMPI_EXPRESS_DECLINED;
    kernel f = kernel_of(datatype, op, &esize);
    int me = k.c->rank, n = k.c->size;
    uint64_t blk = (uint64_t)recvcount * esize;
    if (f == NULL || !fits(&k, blk * n) ||
        ((const uint8_t *)sendbuf + blk * n > (const uint8_t *)recvbuf &&
         (const uint8_t *)recvbuf + blk > (const uint8_t *)sendbuf))
        return GMPI_EXPRESS_DECLINED;
    uint64_t s1 = *k.step + 1, end = *k.step + 2, free;
    *k.step = end;
    int first = alloc(&k, blk * n, end, &free);
    wait_rank(&k, -1, free);
    memcpy(slots(k.c, me, first), sendbuf, blk * n);
    publish(&k, s1);
    wait_rank(&k, -1, s1);
    combine(&k, f, op, esize, recvbuf, first, (uint64_t)me * blk, blk, 0, n);
    publish(&k, end);
    return MPI_SUCCESS;
}

/* Nonblocking calls (cshm.h, struct gmpi_cshm_nb). MPI_Iallreduce of what
 * MPI_Allreduce's lane takes runs the same small round: the start takes
 * the steps and slots, copies the operand and publishes s1, as the
 * blocking form does before it waits (and as coll/shm's nbReduce does);
 * the completion (MPI_Wait/MPI_Test here, coll/shm's Go code before it
 * uses the segment, or the watcher thread for a call left alone)
 * combines the operands into the receive buffer and publishes end. The
 * start declines, before it changes anything, when the slots are not free
 * yet: the Go path's state machine waits for them. */

static void nb_watch_start(void);
static void nb_watch_create(void);
static pthread_once_t nb_watch_once = PTHREAD_ONCE_INIT;
static int nb_watch_ok;

/* peek_alloc is alloc without the allocation: the first slot and the
 * step every rank must have completed before the slots are written. */
static int peek_alloc(const struct call *k, uint64_t bytes, uint64_t *free)
{
    int64_t slot = k->c->small_slot, n = k->c->small_slots;
    int64_t want = bytes == 0 ? 1 : (int64_t)((bytes + slot - 1) / slot);
    int64_t next = (int64_t)*k->next;
    if (next + want > n)
        next = 0;
    uint64_t f = 0;
    for (int64_t i = next; i < next + want; i++)
        if (k->last_use[i] > f)
            f = k->last_use[i];
    *free = f;
    return (int)next;
}

int gmpi_cshm_Iallreduce(const void *sendbuf, void *recvbuf, int count, int datatype, int op, int comm,
                         uint64_t *seq)
{
    struct call k;
    uint64_t esize, free;
    if (gmpi_cshm.async) { /* a call left alone needs the watcher */
        pthread_once(&nb_watch_once, nb_watch_create);
        if (!nb_watch_ok)
            return GMPI_EXPRESS_DECLINED;
    }
    uint64_t bytes;
    if (operands(&k, comm, GMPI_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, &esize, &bytes) == NULL)
        return GMPI_EXPRESS_DECLINED;
    peek_alloc(&k, bytes, &free);
    if (!all_at(&k, free))
        return GMPI_EXPRESS_DECLINED;
    struct gmpi_cshm_nb *nb = &gmpi_cshm.nb[(uint32_t)comm % GMPI_CSHM_COMMS];
    uint64_t s1 = *k.step + 1, end = *k.step + 3;
    *k.step = end;
    int first = alloc(&k, bytes, end, &free);
    memcpy(slots(k.c, k.c->rank, first), sendbuf, bytes);
    publish(&k, s1);
    nb->comm = comm;
    nb->count = count;
    nb->datatype = datatype;
    nb->op = op;
    nb->first = first;
    nb->s1 = s1;
    nb->recvbuf = recvbuf;
    *seq = nb->seq + 1;
    __atomic_store_n(&nb->seq, *seq, __ATOMIC_SEQ_CST);
    if (gmpi_cshm.async && !__atomic_load_n(&gmpi_cshm.watch, __ATOMIC_SEQ_CST))
        nb_watch_start();
    return MPI_SUCCESS;
}

int gmpi_cshm_nb_finish(int comm, uint64_t seq)
{
    struct gmpi_cshm_nb *nb = &gmpi_cshm.nb[(uint32_t)comm % GMPI_CSHM_COMMS];
    if (__atomic_load_n(&nb->done, __ATOMIC_ACQUIRE) >= seq)
        return 1;
    if (__atomic_exchange_n(&nb->claim, 1, __ATOMIC_ACQUIRE) != 0)
        return 0; /* another thread completes it */
    int rc = 1;
    struct call k;
    uint64_t esize;
    if (__atomic_load_n(&nb->done, __ATOMIC_ACQUIRE) >= seq) {
        /* completed meanwhile */
    } else if (nb->seq != seq || nb->comm != comm || !lookup(&k, comm)) {
        rc = -1;
    } else if (!all_at(&k, nb->s1)) {
        rc = 0;
    } else {
        kernel f = kernel_of(nb->datatype, nb->op, &esize);
        uint64_t bytes = (uint64_t)nb->count * esize;
        combine(&k, f, nb->op, esize, nb->recvbuf, nb->first, 0, bytes, 0, k.c->size);
        publish(&k, nb->s1 + 2);
        __atomic_store_n(&nb->done, seq, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&nb->claim, 0, __ATOMIC_RELEASE);
    return rc;
}

int gmpi_cshm_nb_wait(int comm, uint64_t seq)
{
    for (;;) {
        int rc = gmpi_cshm_nb_finish(comm, seq);
        if (rc != 0)
            return rc;
        struct call k;
        const struct gmpi_cshm_nb *nb = &gmpi_cshm.nb[(uint32_t)comm % GMPI_CSHM_COMMS];
        if (!lookup(&k, comm))
            return -1;
        if (all_at(&k, nb->s1)) { /* the watcher holds the claim for a moment */
            sched_yield();
            continue;
        }
        wait_rank(&k, -1, nb->s1);
    }
}

uint64_t gmpi_cshm_nb_pending(int comm)
{
    const struct gmpi_cshm_nb *nb = &gmpi_cshm.nb[(uint32_t)comm % GMPI_CSHM_COMMS];
    uint64_t seq = __atomic_load_n(&nb->seq, __ATOMIC_ACQUIRE);
    if (nb->comm != comm || __atomic_load_n(&nb->done, __ATOMIC_ACQUIRE) >= seq)
        return 0;
    return seq;
}

/* The watcher: background progress for the lane's calls (the Go side's
 * progress goroutine never sees them). While calls are started it looks
 * at them every watchTick; a call it finds pending twice in a row (the
 * caller computes, or waits elsewhere) it completes as Wait would. When
 * it finds none pending it sleeps on gmpi_cshm.watch until a start wakes
 * it. It never enters Go and touches only the segment and the nb table. */
#define WATCH_TICK_NS 1000000L
#define WATCH_STUCK_NS 100000L

static void *nb_watch(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    uint64_t last[GMPI_CSHM_COMMS] = {0};
    for (;;) {
        if (!__atomic_load_n(&gmpi_cshm.watch, __ATOMIC_SEQ_CST)) {
            syscall(SYS_futex, &gmpi_cshm.watch, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
            continue;
        }
        int pending = 0, stuck = 0;
        for (int i = 0; i < GMPI_CSHM_COMMS; i++) {
            struct gmpi_cshm_nb *nb = &gmpi_cshm.nb[i];
            uint64_t seq = __atomic_load_n(&nb->seq, __ATOMIC_ACQUIRE);
            if (__atomic_load_n(&nb->done, __ATOMIC_ACQUIRE) >= seq)
                continue;
            pending = 1;
            if (last[i] != seq) {
                last[i] = seq;
                continue;
            }
            if (gmpi_cshm_nb_finish(nb->comm, seq) == 0)
                stuck = 1;
        }
        if (!pending) {
            /* Disarm, then look again: a start that saw the word set
             * before it was cleared stored its seq first. */
            __atomic_store_n(&gmpi_cshm.watch, 0, __ATOMIC_SEQ_CST);
            for (int i = 0; i < GMPI_CSHM_COMMS; i++)
                if (__atomic_load_n(&gmpi_cshm.nb[i].done, __ATOMIC_SEQ_CST) <
                    __atomic_load_n(&gmpi_cshm.nb[i].seq, __ATOMIC_SEQ_CST)) {
                    __atomic_store_n(&gmpi_cshm.watch, 1, __ATOMIC_SEQ_CST);
                    break;
                }
            continue;
        }
        struct timespec ts = {0, stuck ? WATCH_STUCK_NS : WATCH_TICK_NS};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void nb_watch_create(void)
{
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 64 << 10);
    nb_watch_ok = pthread_create(&t, &a, nb_watch, NULL) == 0;
    pthread_attr_destroy(&a);
}

/* nb_watch_start wakes the watcher. */
static void nb_watch_start(void)
{
    __atomic_store_n(&gmpi_cshm.watch, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &gmpi_cshm.watch, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
