/* collall: every collective x datatype class x count x in place or not x
 * blocking / nonblocking / persistent, on several intracommunicators
 * (world, its reverse, a dup, the even ranks). Receive buffers start as a
 * sentinel; every data element is checked, and every int that is not
 * data (gaps of the vector and resized types, blocks nobody writes) must
 * still hold the sentinel. Non-commutative reductions use a user operator
 * whose result is wrong unless operands are combined in rank order. */
#include "mtest.h"
#include <stdlib.h>
#include <string.h>

#define SENT (-7)
#define NCOUNTS 4
static const int counts[NCOUNTS] = {0, 1, 7, 17000}; /* 17000 ints > eager limit */

typedef struct {
    const char *name;
    MPI_Datatype dt;
    int k;      /* ints of data per element */
    int ext;    /* extent in ints */
    int off[2]; /* data ints of an element */
} tclass;

static tclass tcs[3];
static int ntc;
static int errs, mode;
static const char *opname;
static MPI_Comm comm;
static int rank, size;

static const char *modes[] = {"blocking", "nonblocking", "persistent"};

/* nints is the number of ints n elements of t span. */
static size_t nints(const tclass *t, int n) { return (size_t)n * t->ext + 1; }

static int *newbuf(const tclass *t, int n)
{
    size_t m = nints(t, n), i;
    int *b = malloc(m * sizeof(int));
    for (i = 0; i < m; i++)
        b[i] = SENT;
    return b;
}

static void reset(int *b, const tclass *t, int n)
{
    size_t m = nints(t, n), i;
    for (i = 0; i < m; i++)
        b[i] = SENT;
}

/* fill sets count elements from element e0: data int d gets a + mul*d. */
static void fill(int *b, const tclass *t, int e0, int count, int a, int mul)
{
    int e, j;
    for (e = 0; e < count; e++)
        for (j = 0; j < t->k; j++)
            b[(size_t)(e0 + e) * t->ext + t->off[j]] = a + mul * (e * t->k + j);
}

/* A block the receive buffer must hold after the operation. */
typedef struct {
    int e0, count, a, mul;
} blk;

static void verify(const int *b, const tclass *t, int n, const blk *bs, int nb, const char *what)
{
    size_t m = nints(t, n), i;
    char *mask = calloc(m, 1);
    int i2, e, j, bad = 0;
    for (i2 = 0; i2 < nb; i2++) {
        const blk *x = &bs[i2];
        for (e = 0; e < x->count; e++)
            for (j = 0; j < t->k; j++) {
                size_t at = (size_t)(x->e0 + e) * t->ext + t->off[j];
                int want = x->a + x->mul * (e * t->k + j);
                mask[at] = 1;
                if (b[at] != want && bad++ < 3)
                    fprintf(stderr, "[%d] %s %s %s size %d: elem %d int %d = %d, want %d\n", rank,
                            opname, what, t->name, size, x->e0 + e, j, b[at], want);
            }
    }
    for (i = 0; i < m; i++)
        if (!mask[i] && b[i] != SENT && bad++ < 3)
            fprintf(stderr, "[%d] %s %s %s size %d: int %zu outside the data = %d (was %d)\n", rank,
                    opname, what, t->name, size, i, b[i], SENT);
    if (bad)
        errs++;
    free(mask);
}

/* RUN performs one collective in the current mode. For persistent mode
 * the request is created once and started twice; setup runs before each
 * start so inputs and outputs are fresh. */
#define RUN(SETUP, BLOCKING, NONBLOCKING, INIT)                                                   \
    do {                                                                                           \
        MPI_Request rq_ = MPI_REQUEST_NULL;                                                        \
        int it_, rc_ = MPI_SUCCESS;                                                                \
        for (it_ = 0; it_ < (mode == 2 ? 2 : 1); it_++) {                                          \
            SETUP;                                                                                 \
            if (mode == 0) {                                                                       \
                rc_ = BLOCKING;                                                                    \
            } else if (mode == 1) {                                                                \
                rc_ = NONBLOCKING;                                                                 \
                if (rc_ == MPI_SUCCESS)                                                            \
                    rc_ = MPI_Wait(&rq_, MPI_STATUS_IGNORE);                                       \
            } else {                                                                               \
                if (it_ == 0)                                                                      \
                    rc_ = INIT;                                                                    \
                if (rc_ == MPI_SUCCESS)                                                            \
                    rc_ = MPI_Start(&rq_);                                                         \
                if (rc_ == MPI_SUCCESS)                                                            \
                    rc_ = MPI_Wait(&rq_, MPI_STATUS_IGNORE);                                       \
            }                                                                                      \
        }                                                                                          \
        if (mode == 2 && rq_ != MPI_REQUEST_NULL)                                                  \
            MPI_Request_free(&rq_);                                                                \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            errs++;                                                                                \
            fprintf(stderr, "[%d] %s %s failed\n", rank, opname, modes[mode]);                    \
        }                                                                                          \
    } while (0)

#define XB(r, q) ((((r) * 16 + (q)) << 18)) /* alltoall block from r to q */

static void t_bcast(const tclass *t, int c)
{
    int root, *b = newbuf(t, c);
    opname = "bcast";
    for (root = 0; root < size; root += (size > 3 ? size - 1 : 1)) {
        blk x = {0, c, XB(root, 0), 1};
        RUN((reset(b, t, c), rank == root ? fill(b, t, 0, c, XB(root, 0), 1) : (void)0),
            MPI_Bcast(b, c, t->dt, root, comm), MPI_Ibcast(b, c, t->dt, root, comm, &rq_),
            MPI_Bcast_init(b, c, t->dt, root, comm, MPI_INFO_NULL, &rq_));
        verify(b, t, c, &x, 1, modes[mode]);
    }
    free(b);
}

static void t_gather(const tclass *t, int c, int inplace, int v)
{
    int root = size - 1, q, n = v ? size * (c + 1) + 1 : size * c;
    int *s = newbuf(t, c + 1), *r = newbuf(t, n);
    int *rc = malloc(size * sizeof(int)), *dp = malloc(size * sizeof(int));
    blk *x = malloc(size * sizeof(blk));
    int isroot = rank == root;
    opname = v ? "gatherv" : "gather";
    for (q = 0; q < size; q++) {
        rc[q] = v ? c + (q & 1) : c;
        dp[q] = v ? (size - 1 - q) * (c + 1) : q * c; /* reversed, with gaps */
        x[q].e0 = dp[q], x[q].count = rc[q], x[q].a = XB(q, 0), x[q].mul = 1;
    }
    {
        int sc = rc[rank];
        void *sb = inplace && isroot ? MPI_IN_PLACE : (void *)s;
#define SETUP_G                                                                                    \
    reset(r, t, n), reset(s, t, c + 1), fill(s, t, 0, sc, XB(rank, 0), 1),                             \
        inplace &&isroot ? fill(r, t, dp[rank], sc, XB(rank, 0), 1) : (void)0
        if (v)
            RUN(SETUP_G, MPI_Gatherv(sb, sc, t->dt, r, rc, dp, t->dt, root, comm),
                MPI_Igatherv(sb, sc, t->dt, r, rc, dp, t->dt, root, comm, &rq_),
                MPI_Gatherv_init(sb, sc, t->dt, r, rc, dp, t->dt, root, comm, MPI_INFO_NULL, &rq_));
        else
            RUN(SETUP_G, MPI_Gather(sb, sc, t->dt, r, c, t->dt, root, comm),
                MPI_Igather(sb, sc, t->dt, r, c, t->dt, root, comm, &rq_),
                MPI_Gather_init(sb, sc, t->dt, r, c, t->dt, root, comm, MPI_INFO_NULL, &rq_));
    }
    if (isroot)
        verify(r, t, n, x, size, modes[mode]);
    else
        verify(r, t, n, x, 0, modes[mode]);
    free(s), free(r), free(rc), free(dp), free(x);
}

static void t_scatter(const tclass *t, int c, int inplace, int v)
{
    int root = 0, q, n = v ? size * (c + 1) + 1 : size * c;
    int *s = newbuf(t, n), *r = newbuf(t, c + 1);
    int *sc = malloc(size * sizeof(int)), *dp = malloc(size * sizeof(int));
    int isroot = rank == root;
    opname = v ? "scatterv" : "scatter";
    for (q = 0; q < size; q++) {
        sc[q] = v ? c + (q & 1) : c;
        dp[q] = v ? (size - 1 - q) * (c + 1) : q * c;
    }
    {
        int mc = sc[rank];
        void *rb = inplace && isroot ? MPI_IN_PLACE : (void *)r;
        blk x = {0, mc, XB(0, rank), 1};
#define SETUP_S                                                                                    \
    do {                                                                                           \
        reset(r, t, c + 1), reset(s, t, n);                                                        \
        if (isroot)                                                                                \
            for (q = 0; q < size; q++)                                                             \
                fill(s, t, dp[q], sc[q], XB(0, q), 1);                                             \
    } while (0)
        if (v)
            RUN(SETUP_S, MPI_Scatterv(s, sc, dp, t->dt, rb, mc, t->dt, root, comm),
                MPI_Iscatterv(s, sc, dp, t->dt, rb, mc, t->dt, root, comm, &rq_),
                MPI_Scatterv_init(s, sc, dp, t->dt, rb, mc, t->dt, root, comm, MPI_INFO_NULL, &rq_));
        else
            RUN(SETUP_S, MPI_Scatter(s, c, t->dt, rb, c, t->dt, root, comm),
                MPI_Iscatter(s, c, t->dt, rb, c, t->dt, root, comm, &rq_),
                MPI_Scatter_init(s, c, t->dt, rb, c, t->dt, root, comm, MPI_INFO_NULL, &rq_));
        if (inplace && isroot) {
            /* the send buffer is unchanged, the receive buffer untouched */
            blk *y = malloc(size * sizeof(blk));
            for (q = 0; q < size; q++)
                y[q].e0 = dp[q], y[q].count = sc[q], y[q].a = XB(0, q), y[q].mul = 1;
            verify(s, t, n, y, size, "in place (sendbuf)");
            verify(r, t, c + 1, y, 0, "in place (recvbuf)");
            free(y);
        } else {
            verify(r, t, c + 1, &x, 1, modes[mode]);
        }
    }
    free(s), free(r), free(sc), free(dp);
}

static void t_allgather(const tclass *t, int c, int inplace, int v)
{
    int q, n = v ? size * (c + 1) + 1 : size * c;
    int *s = newbuf(t, c + 1), *r = newbuf(t, n);
    int *rc = malloc(size * sizeof(int)), *dp = malloc(size * sizeof(int));
    blk *x = malloc(size * sizeof(blk));
    opname = v ? "allgatherv" : "allgather";
    for (q = 0; q < size; q++) {
        rc[q] = v ? c + (q & 1) : c;
        dp[q] = v ? (size - 1 - q) * (c + 1) : q * c;
        x[q].e0 = dp[q], x[q].count = rc[q], x[q].a = XB(q, 1), x[q].mul = 1;
    }
    {
        int mc = rc[rank];
        void *sb = inplace ? MPI_IN_PLACE : (void *)s;
#define SETUP_AG                                                                                   \
    reset(r, t, n), reset(s, t, c + 1), fill(s, t, 0, mc, XB(rank, 1), 1),                         \
        inplace ? fill(r, t, dp[rank], mc, XB(rank, 1), 1) : (void)0
        if (v)
            RUN(SETUP_AG, MPI_Allgatherv(sb, mc, t->dt, r, rc, dp, t->dt, comm),
                MPI_Iallgatherv(sb, mc, t->dt, r, rc, dp, t->dt, comm, &rq_),
                MPI_Allgatherv_init(sb, mc, t->dt, r, rc, dp, t->dt, comm, MPI_INFO_NULL, &rq_));
        else
            RUN(SETUP_AG, MPI_Allgather(sb, c, t->dt, r, c, t->dt, comm),
                MPI_Iallgather(sb, c, t->dt, r, c, t->dt, comm, &rq_),
                MPI_Allgather_init(sb, c, t->dt, r, c, t->dt, comm, MPI_INFO_NULL, &rq_));
    }
    verify(r, t, n, x, size, modes[mode]);
    free(s), free(r), free(rc), free(dp), free(x);
}

/* alltoall (v = 0), alltoallv (1) and alltoallw (2). Block sizes vary by
 * pair for v and w: c + ((from + to) & 1). */
static void t_alltoall(const tclass *t, int c, int inplace, int v)
{
    int q, n = size * (c + 1) + 1;
    int *s = newbuf(t, n), *r = newbuf(t, n);
    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    MPI_Datatype *ts = malloc(size * sizeof(MPI_Datatype));
    blk *x = malloc(size * sizeof(blk));
    int ext = t->ext * (int)sizeof(int);
    opname = v == 0 ? "alltoall" : v == 1 ? "alltoallv" : "alltoallw";
    if (inplace && v == 0)
        n = size * c;
    for (q = 0; q < size; q++) {
        int k = v ? c + ((rank + q) & 1) : c;
        sc[q] = rc[q] = k;
        sd[q] = v ? q * (c + 1) : q * c;
        rd[q] = v ? (size - 1 - q) * (c + 1) : q * c;
        if (inplace)
            sd[q] = rd[q];
        ts[q] = t->dt;
        x[q].e0 = rd[q], x[q].count = k, x[q].a = XB(q, rank), x[q].mul = 1;
    }
    if (v == 2)
        for (q = 0; q < size; q++)
            sd[q] *= ext, rd[q] *= ext;
    {
        void *sb = inplace ? MPI_IN_PLACE : (void *)s;
#define SETUP_A                                                                                    \
    do {                                                                                           \
        reset(r, t, n), reset(s, t, n);                                                            \
        for (q = 0; q < size; q++)                                                                 \
            fill(inplace ? r : s, t, v == 2 ? sd[q] / ext : sd[q], sc[q], XB(rank, q), 1);        \
    } while (0)
        if (v == 0)
            RUN(SETUP_A, MPI_Alltoall(sb, c, t->dt, r, c, t->dt, comm),
                MPI_Ialltoall(sb, c, t->dt, r, c, t->dt, comm, &rq_),
                MPI_Alltoall_init(sb, c, t->dt, r, c, t->dt, comm, MPI_INFO_NULL, &rq_));
        else if (v == 1)
            RUN(SETUP_A, MPI_Alltoallv(sb, sc, sd, t->dt, r, rc, rd, t->dt, comm),
                MPI_Ialltoallv(sb, sc, sd, t->dt, r, rc, rd, t->dt, comm, &rq_),
                MPI_Alltoallv_init(sb, sc, sd, t->dt, r, rc, rd, t->dt, comm, MPI_INFO_NULL, &rq_));
        else
            RUN(SETUP_A, MPI_Alltoallw(sb, sc, sd, ts, r, rc, rd, ts, comm),
                MPI_Ialltoallw(sb, sc, sd, ts, r, rc, rd, ts, comm, &rq_),
                MPI_Alltoallw_init(sb, sc, sd, ts, r, rc, rd, ts, comm, MPI_INFO_NULL, &rq_));
    }
    verify(r, t, n, x, size, modes[mode]);
    free(s), free(r), free(sc), free(sd), free(rc), free(rd), free(ts), free(x);
}

/* Reductions with MPI_SUM: rank q contributes q + d at data int d, so a
 * reduction over ranks lo..hi gives sum(lo..hi) + (hi-lo+1)*d. */
static int rsum(int lo, int hi) { return (hi - lo + 1) * (lo + hi) / 2; }

enum { R_REDUCE, R_ALLREDUCE, R_SCAN, R_EXSCAN, R_RSB, R_RS };
static const char *rnames[] = {"reduce", "allreduce", "scan", "exscan", "reduce_scatter_block",
                               "reduce_scatter"};

static void t_reduce(const tclass *t, int c, int inplace, int which)
{
    int q, root = size / 2, total = c, mine = c, off = 0;
    int *rcs = malloc(size * sizeof(int));
    int *s, *r;
    int isroot = rank == root;
    void *sb;
    opname = rnames[which];
    for (q = 0; q < size; q++)
        rcs[q] = which == R_RS ? c + (q % 3 == 1) : c;
    if (which == R_RSB || which == R_RS) {
        total = 0;
        for (q = 0; q < size; q++) {
            if (q < rank)
                off += rcs[q];
            total += rcs[q];
        }
        mine = rcs[rank];
    }
    s = newbuf(t, total), r = newbuf(t, total);
    sb = inplace && (which != R_REDUCE || isroot) ? MPI_IN_PLACE : (void *)s;
#define SETUP_R reset(r, t, total), reset(s, t, total), fill(sb == s ? s : r, t, 0, total, rank, 1)
    switch (which) {
    case R_REDUCE:
        RUN(SETUP_R, MPI_Reduce(sb, r, c, t->dt, MPI_SUM, root, comm),
            MPI_Ireduce(sb, r, c, t->dt, MPI_SUM, root, comm, &rq_),
            MPI_Reduce_init(sb, r, c, t->dt, MPI_SUM, root, comm, MPI_INFO_NULL, &rq_));
        break;
    case R_ALLREDUCE:
        RUN(SETUP_R, MPI_Allreduce(sb, r, c, t->dt, MPI_SUM, comm),
            MPI_Iallreduce(sb, r, c, t->dt, MPI_SUM, comm, &rq_),
            MPI_Allreduce_init(sb, r, c, t->dt, MPI_SUM, comm, MPI_INFO_NULL, &rq_));
        break;
    case R_SCAN:
        RUN(SETUP_R, MPI_Scan(sb, r, c, t->dt, MPI_SUM, comm),
            MPI_Iscan(sb, r, c, t->dt, MPI_SUM, comm, &rq_),
            MPI_Scan_init(sb, r, c, t->dt, MPI_SUM, comm, MPI_INFO_NULL, &rq_));
        break;
    case R_EXSCAN:
        RUN(SETUP_R, MPI_Exscan(sb, r, c, t->dt, MPI_SUM, comm),
            MPI_Iexscan(sb, r, c, t->dt, MPI_SUM, comm, &rq_),
            MPI_Exscan_init(sb, r, c, t->dt, MPI_SUM, comm, MPI_INFO_NULL, &rq_));
        break;
    case R_RSB:
        RUN(SETUP_R, MPI_Reduce_scatter_block(sb, r, c, t->dt, MPI_SUM, comm),
            MPI_Ireduce_scatter_block(sb, r, c, t->dt, MPI_SUM, comm, &rq_),
            MPI_Reduce_scatter_block_init(sb, r, c, t->dt, MPI_SUM, comm, MPI_INFO_NULL, &rq_));
        break;
    case R_RS:
        RUN(SETUP_R, MPI_Reduce_scatter(sb, r, rcs, t->dt, MPI_SUM, comm),
            MPI_Ireduce_scatter(sb, r, rcs, t->dt, MPI_SUM, comm, &rq_),
            MPI_Reduce_scatter_init(sb, r, rcs, t->dt, MPI_SUM, comm, MPI_INFO_NULL, &rq_));
        break;
    }
    {
        blk x[2];
        int nb = 1, ints = t->k;
        x[0].e0 = 0, x[0].count = c, x[0].mul = size;
        x[0].a = rsum(0, size - 1);
        switch (which) {
        case R_REDUCE:
            if (!isroot) {
                /* the receive buffer is not significant: untouched */
                nb = 0;
                if (sb == MPI_IN_PLACE)
                    nb = 1, x[0].a = rank, x[0].mul = 1; /* (not reached) */
            }
            break;
        case R_SCAN:
            x[0].a = rsum(0, rank), x[0].mul = rank + 1;
            break;
        case R_EXSCAN:
            if (rank == 0) {
                /* rank 0's receive buffer is not touched */
                nb = inplace ? 1 : 0;
                x[0].a = 0, x[0].mul = 1;
            } else {
                x[0].a = rsum(0, rank - 1), x[0].mul = rank;
            }
            break;
        case R_RSB:
        case R_RS:
            x[0].count = mine;
            x[0].a = rsum(0, size - 1) + size * off * ints;
            if (inplace && total > mine) {
                /* the rest of the in-place buffer keeps its operand */
                x[1].e0 = mine, x[1].count = total - mine, x[1].a = rank + mine * ints, x[1].mul = 1;
                nb = 2;
            }
            break;
        }
        verify(r, t, total, x, nb, modes[mode]);
    }
    free(s), free(r), free(rcs);
}

/* Non-commutative: an element is a (first, last) rank range as two ints;
 * a op b joins adjacent ranges and poisons anything else. */
static void joinop(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout, i;
    (void)dt;
    for (i = 0; i < *len; i++) {
        if (a[2 * i] >= 0 && a[2 * i + 1] + 1 == b[2 * i])
            b[2 * i] = a[2 * i];
        else
            b[2 * i] = b[2 * i + 1] = -1000;
    }
}

static void t_noncomm(void)
{
    MPI_Op op;
    int c = 5, i, which;
    int *s = malloc(2 * c * size * sizeof(int)), *r = malloc(2 * c * size * sizeof(int));
    MPI_Op_create(joinop, 0, &op);
    for (which = 0; which < 5; which++) {
        int n = which == R_RSB ? c * size : c, lo = 0, hi = size - 1, check = 1;
        MPI_Request rq;
        for (i = 0; i < n; i++)
            s[2 * i] = s[2 * i + 1] = rank, r[2 * i] = r[2 * i + 1] = SENT;
        switch (which) {
        case R_REDUCE:
            MPI_Ireduce(s, r, c, MPI_2INT, op, size - 1, comm, &rq);
            check = rank == size - 1;
            break;
        case R_ALLREDUCE:
            MPI_Iallreduce(s, r, c, MPI_2INT, op, comm, &rq);
            break;
        case R_SCAN:
            MPI_Scan_init(s, r, c, MPI_2INT, op, comm, MPI_INFO_NULL, &rq);
            MPI_Start(&rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            MPI_Request_free(&rq);
            rq = MPI_REQUEST_NULL;
            hi = rank;
            break;
        case R_EXSCAN:
            MPI_Exscan(s, r, c, MPI_2INT, op, comm);
            rq = MPI_REQUEST_NULL;
            hi = rank - 1, check = rank > 0;
            break;
        case R_RSB:
            MPI_Reduce_scatter_block(s, r, c, MPI_2INT, op, comm);
            rq = MPI_REQUEST_NULL;
            break;
        }
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        for (i = 0; check && i < c; i++)
            if (r[2 * i] != lo || r[2 * i + 1] != hi) {
                fprintf(stderr, "[%d] noncommutative %s size %d: (%d,%d), want (%d,%d)\n", rank,
                        rnames[which], size, r[2 * i], r[2 * i + 1], lo, hi);
                errs++;
                break;
            }
    }
    MPI_Op_free(&op);
    free(s), free(r);
}

/* Allreduce of doubles whose sum depends on the order: every rank must
 * get the same bits. */
static void t_float(void)
{
    double v[3], out[3], all[3 * 64];
    int i, j;
    for (i = 0; i < 3; i++)
        v[i] = 1.0 / (rank + 3) + i * 1e16 * (rank & 1 ? 1 : -1) + 0.1 * rank;
    MPI_Allreduce(v, out, 3, MPI_DOUBLE, MPI_SUM, comm);
    if (size <= 64) {
        MPI_Allgather(out, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, comm);
        for (i = 0; i < size; i++)
            for (j = 0; j < 3; j++)
                if (memcmp(&all[3 * i + j], &out[j], sizeof(double))) {
                    fprintf(stderr, "[%d] allreduce double differs between ranks\n", rank);
                    errs++;
                    return;
                }
    }
}

int main(int argc, char **argv)
{
    int ci, ti, ip, v, which, cnt = 0;
    MPI_Datatype vec, res;
    MTest_Init(&argc, &argv);

    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &res);
    MPI_Type_commit(&res);
    tcs[0] = (tclass){"MPI_INT", MPI_INT, 1, 1, {0, 0}};
    tcs[1] = (tclass){"vector(2,1,2)", vec, 2, 3, {0, 2}};
    tcs[2] = (tclass){"resized(int,8)", res, 1, 2, {0, 0}};
    ntc = 3;

    while (MTestGetIntracomm(&comm, 1)) {
        if (comm == MPI_COMM_NULL)
            continue;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        cnt++;
        for (mode = 0; mode < 3; mode++)
            for (ti = 0; ti < ntc; ti++)
                for (ci = 0; ci < NCOUNTS; ci++) {
                    int c = counts[ci];
                    /* the large count once per communicator and mode */
                    if (c > 100 && (ti != (cnt + mode) % ntc))
                        continue;
                    t_bcast(&tcs[ti], c);
                    for (ip = 0; ip < 2; ip++) {
                        for (v = 0; v < 2; v++) {
                            t_gather(&tcs[ti], c, ip, v);
                            t_scatter(&tcs[ti], c, ip, v);
                            t_allgather(&tcs[ti], c, ip, v);
                        }
                        for (v = 0; v < 3; v++)
                            t_alltoall(&tcs[ti], c, ip, v);
                        for (which = 0; which < 6; which++)
                            t_reduce(&tcs[ti], c, ip, which);
                    }
                    opname = "barrier";
                    RUN((void)0, MPI_Barrier(comm), MPI_Ibarrier(comm, &rq_),
                        MPI_Barrier_init(comm, MPI_INFO_NULL, &rq_));
                }
        t_noncomm();
        t_float();
        MTestFreeComm(&comm);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&res);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
