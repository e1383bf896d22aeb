/* neighbor: neighborhood collectives (MPI_Neighbor_allgather(v),
 * alltoall(v,w)) in their blocking, nonblocking and persistent forms on
 * Cartesian topologies (periodic and not, dimensions of size 1 and 2 where
 * a process is its own or the same neighbor twice), a graph (with a
 * self-loop) and distributed graphs (weighted, with multiple edges and an
 * isolated process), with derived datatypes, plus the error cases. */
#include "mtest.h"
#include <stdlib.h>
#include <string.h>

#define N 3 /* ints per block */
#define MAXNB 64

static int errs = 0, wrank, wsize;

static int errclass(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

/* A neighborhood as this process sees it. For Cartesian topologies the
 * block that source i sent us is its block i^1 (the opposite direction);
 * on graphs the m-th message from a source pairs with its m-th message to
 * us, so blocks are keyed by occurrence. */
typedef struct {
    MPI_Comm comm;
    const char *name;
    int cart;
    int indeg, outdeg;
    int src[MAXNB], dst[MAXNB];
    int skey[MAXNB]; /* key of what we send to destination j */
    int rkey[MAXNB]; /* key of what source i sends us */
    int me;
} nbh_t;

static void occurrences(const int *list, int n, int *key)
{
    for (int j = 0; j < n; j++) {
        key[j] = 0;
        for (int k = 0; k < j; k++)
            if (list[k] == list[j])
                key[j]++;
    }
}

static void describe(nbh_t *h)
{
    int kind;
    MPI_Comm_rank(h->comm, &h->me);
    MPI_Topo_test(h->comm, &kind);
    h->cart = kind == MPI_CART;
    if (kind == MPI_CART) {
        int nd;
        MPI_Cartdim_get(h->comm, &nd);
        for (int d = 0; d < nd; d++)
            MPI_Cart_shift(h->comm, d, 1, &h->src[2 * d], &h->src[2 * d + 1]);
        h->indeg = h->outdeg = 2 * nd;
        memcpy(h->dst, h->src, sizeof h->src);
        for (int j = 0; j < 2 * nd; j++) {
            h->skey[j] = j;
            h->rkey[j] = j ^ 1;
        }
        return;
    }
    if (kind == MPI_GRAPH) {
        MPI_Graph_neighbors_count(h->comm, h->me, &h->indeg);
        MPI_Graph_neighbors(h->comm, h->me, MAXNB, h->src);
        h->outdeg = h->indeg;
        memcpy(h->dst, h->src, sizeof h->src);
    } else {
        int w, sw[MAXNB], dw[MAXNB];
        MPI_Dist_graph_neighbors_count(h->comm, &h->indeg, &h->outdeg, &w);
        MPI_Dist_graph_neighbors(h->comm, MAXNB, h->src, sw, MAXNB, h->dst, dw);
    }
    occurrences(h->dst, h->outdeg, h->skey);
    occurrences(h->src, h->indeg, h->rkey);
}

/* The value of element k of the block sender s keyed key sends. */
static int val(int s, int key, int k) { return 1 + s * 10000 + key * 100 + k; }
/* Per-block counts of the v/w variants: 1..N, from sender and key. */
static int vcount(int s, int key) { return 1 + (s + key) % N; }

enum { OP_AG, OP_AGV, OP_A2A, OP_A2AV, OP_A2AW, NOPS };
static const char *opname[NOPS] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};

/* Buffers and argument arrays of one operation instance. */
typedef struct {
    int sbuf[2 * MAXNB * N + N], rbuf[2 * MAXNB * (N + 1) + 2 * N];
    int scounts[MAXNB], sdispls[MAXNB], rcounts[MAXNB], rdispls[MAXNB];
    MPI_Aint sdw[MAXNB], rdw[MAXNB];
    MPI_Datatype stypes[MAXNB], rtypes[MAXNB];
} opbuf_t;

static MPI_Datatype vec; /* N ints with stride 2 (non-contiguous) */
static MPI_Datatype svec; /* 1 int, extent 2 ints */

static void fill(nbh_t *h, int op, opbuf_t *b, int round)
{
    int me = h->me + round * 1000;
    memset(b, 0, sizeof *b);
    for (size_t i = 0; i < sizeof b->rbuf / sizeof(int); i++)
        b->rbuf[i] = -1;
    switch (op) {
    case OP_AG:
    case OP_AGV:
        /* sent through svec: every other int */
        for (int k = 0; k < N; k++) {
            b->sbuf[2 * k] = val(me, 0, k);
            b->sbuf[2 * k + 1] = -7;
        }
        for (int i = 0; i < h->indeg; i++) {
            b->rcounts[i] = N;
            b->rdispls[i] = i * (N + 1); /* a one-int gap after each block */
        }
        break;
    case OP_A2A:
        for (int j = 0; j < h->outdeg; j++)
            for (int k = 0; k < N; k++)
                b->sbuf[j * N + k] = val(me, h->skey[j], k);
        break;
    case OP_A2AV:
    case OP_A2AW: {
        int off = 0;
        for (int j = 0; j < h->outdeg; j++) {
            b->scounts[j] = vcount(h->me, h->skey[j]); /* same in every round (persistent) */
            b->sdispls[j] = off;
            b->sdw[j] = (MPI_Aint)off * sizeof(int);
            b->stypes[j] = MPI_INT;
            for (int k = 0; k < b->scounts[j]; k++)
                b->sbuf[off + k] = val(me, h->skey[j], k);
            off += b->scounts[j] + 1;
        }
        off = 0;
        for (int i = 0; i < h->indeg; i++) {
            int s = h->src[i] == MPI_PROC_NULL ? 0 : h->src[i];
            b->rcounts[i] = vcount(s, h->rkey[i]);
            b->rdispls[i] = off;
            b->rdw[i] = (MPI_Aint)off * sizeof(int);
            b->rtypes[i] = MPI_INT;
            if (op == OP_A2AW && i % 2 == 1) {
                /* every other block lands strided: count elements of svec */
                b->rtypes[i] = svec;
                off += 2 * b->rcounts[i] + 1;
            } else {
                off += b->rcounts[i] + 1;
            }
        }
        break;
    }
    }
}

static void check(nbh_t *h, int op, opbuf_t *b, int round, const char *how)
{
    int bad = 0;
    for (int i = 0; i < h->indeg && !bad; i++) {
        int s = h->src[i], sv = s + round * 1000;
        int cnt = N, base, stride = 1;
        switch (op) {
        case OP_AG: base = i * N; break;
        case OP_AGV: base = b->rdispls[i]; break;
        case OP_A2A: base = i * N; break;
        default:
            base = b->rdispls[i];
            cnt = b->rcounts[i];
            if (b->rtypes[i] == svec)
                stride = 2;
        }
        int key = (op == OP_AG || op == OP_AGV) ? 0 : h->rkey[i];
        for (int k = 0; k < cnt; k++) {
            int want = s == MPI_PROC_NULL ? -1 : val(sv, key, k);
            int got = b->rbuf[base + k * stride];
            if (got != want) {
                MTEST_CHECK(errs, got == want, "%s %s %s round %d: block %d (source %d) element %d = %d, want %d",
                            h->name, opname[op], how, round, i, s, k, got, want);
                bad = 1;
                break;
            }
            if (stride == 2 && b->rbuf[base + 2 * k + 1] != -1) {
                MTEST_CHECK(errs, 0, "%s %s %s: gap of strided block %d overwritten", h->name, opname[op], how, i);
                bad = 1;
            }
        }
        if (op == OP_AGV && b->rbuf[base + N] != -1) {
            MTEST_CHECK(errs, 0, "%s allgatherv %s: gap after block %d overwritten", h->name, how, i);
            bad = 1;
        }
    }
}

/* start runs op on b in mode 0 blocking, 1 nonblocking, 2 persistent
 * init (then *req is inactive). */
static int start(nbh_t *h, int op, opbuf_t *b, int mode, MPI_Request *req)
{
    MPI_Comm c = h->comm;
    switch (op) {
    case OP_AG:
        if (mode == 0) return MPI_Neighbor_allgather(b->sbuf, 1, vec, b->rbuf, N, MPI_INT, c);
        if (mode == 1) return MPI_Ineighbor_allgather(b->sbuf, 1, vec, b->rbuf, N, MPI_INT, c, req);
        return MPI_Neighbor_allgather_init(b->sbuf, 1, vec, b->rbuf, N, MPI_INT, c, MPI_INFO_NULL, req);
    case OP_AGV:
        if (mode == 0) return MPI_Neighbor_allgatherv(b->sbuf, N, svec, b->rbuf, b->rcounts, b->rdispls, MPI_INT, c);
        if (mode == 1) return MPI_Ineighbor_allgatherv(b->sbuf, N, svec, b->rbuf, b->rcounts, b->rdispls, MPI_INT, c, req);
        return MPI_Neighbor_allgatherv_init(b->sbuf, N, svec, b->rbuf, b->rcounts, b->rdispls, MPI_INT, c, MPI_INFO_NULL, req);
    case OP_A2A:
        if (mode == 0) return MPI_Neighbor_alltoall(b->sbuf, N, MPI_INT, b->rbuf, N, MPI_INT, c);
        if (mode == 1) return MPI_Ineighbor_alltoall(b->sbuf, N, MPI_INT, b->rbuf, N, MPI_INT, c, req);
        return MPI_Neighbor_alltoall_init(b->sbuf, N, MPI_INT, b->rbuf, N, MPI_INT, c, MPI_INFO_NULL, req);
    case OP_A2AV:
        if (mode == 0) return MPI_Neighbor_alltoallv(b->sbuf, b->scounts, b->sdispls, MPI_INT, b->rbuf, b->rcounts, b->rdispls, MPI_INT, c);
        if (mode == 1) return MPI_Ineighbor_alltoallv(b->sbuf, b->scounts, b->sdispls, MPI_INT, b->rbuf, b->rcounts, b->rdispls, MPI_INT, c, req);
        return MPI_Neighbor_alltoallv_init(b->sbuf, b->scounts, b->sdispls, MPI_INT, b->rbuf, b->rcounts, b->rdispls, MPI_INT, c, MPI_INFO_NULL, req);
    default:
        if (mode == 0) return MPI_Neighbor_alltoallw(b->sbuf, b->scounts, b->sdw, b->stypes, b->rbuf, b->rcounts, b->rdw, b->rtypes, c);
        if (mode == 1) return MPI_Ineighbor_alltoallw(b->sbuf, b->scounts, b->sdw, b->stypes, b->rbuf, b->rcounts, b->rdw, b->rtypes, c, req);
        return MPI_Neighbor_alltoallw_init(b->sbuf, b->scounts, b->sdw, b->stypes, b->rbuf, b->rcounts, b->rdw, b->rtypes, c, MPI_INFO_NULL, req);
    }
}

static opbuf_t bufs[NOPS];

static void run_all(nbh_t *h)
{
    MPI_Request reqs[NOPS];
    int rc;
    /* blocking */
    for (int op = 0; op < NOPS; op++) {
        fill(h, op, &bufs[op], 0);
        rc = start(h, op, &bufs[op], 0, NULL);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "%s blocking %s: rc %d", h->name, opname[op], rc);
        check(h, op, &bufs[op], 0, "blocking");
    }
    /* nonblocking: all five in flight at once, completed by Waitall */
    for (int op = 0; op < NOPS; op++) {
        fill(h, op, &bufs[op], 1);
        rc = start(h, op, &bufs[op], 1, &reqs[op]);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "%s nonblocking %s: rc %d", h->name, opname[op], rc);
    }
    rc = MPI_Waitall(NOPS, reqs, MPI_STATUSES_IGNORE);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "%s Waitall: rc %d", h->name, rc);
    for (int op = 0; op < NOPS; op++) {
        MTEST_CHECK(errs, reqs[op] == MPI_REQUEST_NULL, "%s: request not freed", h->name);
        check(h, op, &bufs[op], 1, "nonblocking");
    }
    /* nonblocking completed one by one with Test / Wait */
    for (int op = 0; op < NOPS; op++) {
        int flag = 0;
        MPI_Status st;
        fill(h, op, &bufs[op], 2);
        start(h, op, &bufs[op], 1, &reqs[op]);
        while (!flag) {
            rc = MPI_Test(&reqs[op], &flag, &st);
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "%s Test: rc %d", h->name, rc);
            if (rc != MPI_SUCCESS)
                break;
        }
        check(h, op, &bufs[op], 2, "Test");
    }
    /* persistent: started twice */
    for (int op = 0; op < NOPS; op++) {
        fill(h, op, &bufs[op], 3);
        rc = start(h, op, &bufs[op], 2, &reqs[op]);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "%s persistent init %s: rc %d", h->name, opname[op], rc);
    }
    for (int round = 3; round <= 4; round++) {
        if (round == 4)
            for (int op = 0; op < NOPS; op++)
                fill(h, op, &bufs[op], round);
        rc = MPI_Startall(NOPS, reqs);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "%s Startall: rc %d", h->name, rc);
        rc = MPI_Waitall(NOPS, reqs, MPI_STATUSES_IGNORE);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "%s persistent Waitall: rc %d", h->name, rc);
        for (int op = 0; op < NOPS; op++) {
            MTEST_CHECK(errs, reqs[op] != MPI_REQUEST_NULL, "%s: persistent request freed by Waitall", h->name);
            check(h, op, &bufs[op], round, "persistent");
        }
    }
    for (int op = 0; op < NOPS; op++)
        MPI_Request_free(&reqs[op]);
}

static void test_cart(int nd, const int *dims, const int *periods, const char *name)
{
    nbh_t h = {0};
    MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &h.comm);
    if (h.comm == MPI_COMM_NULL)
        return;
    MPI_Comm_set_errhandler(h.comm, MPI_ERRORS_RETURN);
    h.name = name;
    describe(&h);
    run_all(&h);
    MPI_Comm_free(&h.comm);
}

/* The distributed graph: ranks 0..n-2 (n = size-1, or 1 on one process)
 * each send to r+1 and r+2 (mod n); rank 0 sends to 1 twice more; the
 * last rank (when size > 1) is isolated. */
static int dg_dests(int r, int size, int *d)
{
    int n = size > 1 ? size - 1 : 1, k = 0;
    if (size > 1 && r == size - 1)
        return 0;
    d[k++] = (r + 1) % n;
    d[k++] = (r + 2) % n;
    if (r == 0) {
        d[k++] = 1 % n;
        d[k++] = 1 % n;
    }
    return k;
}

static void test_distgraph(int adjacent, int weighted)
{
    nbh_t h = {0};
    int d[8], srcs[MAXNB], sw[MAXNB], dw[8], ns = 0, nd;
    nd = dg_dests(wrank, wsize, d);
    for (int s = 0; s < wsize; s++) {
        int t[8], n = dg_dests(s, wsize, t);
        for (int j = 0; j < n; j++)
            if (t[j] == wrank) {
                sw[ns] = s + 1;
                srcs[ns++] = s;
            }
    }
    for (int j = 0; j < nd; j++)
        dw[j] = j + 1;
    if (adjacent) {
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ns, srcs, weighted ? sw : MPI_UNWEIGHTED, nd, d,
                                       weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &h.comm);
    } else {
        /* every process declares its own out-edges */
        int one = nd > 0 ? 1 : 0, src = wrank, deg = nd;
        MPI_Dist_graph_create(MPI_COMM_WORLD, one, &src, &deg, d, weighted ? dw : MPI_UNWEIGHTED,
                              MPI_INFO_NULL, 0, &h.comm);
    }
    MPI_Comm_set_errhandler(h.comm, MPI_ERRORS_RETURN);
    h.name = adjacent ? (weighted ? "distgraph-adjacent-weighted" : "distgraph-adjacent") : "distgraph";
    describe(&h);
    MTEST_CHECK(errs, h.indeg == ns && h.outdeg == nd, "%s: degrees %d/%d, want %d/%d", h.name, h.indeg, h.outdeg, ns, nd);
    run_all(&h);
    MPI_Comm_free(&h.comm);
}

static void test_graph(void)
{
    /* a ring with a self-loop at node 0 */
    int index[MAXNB], edges[3 * MAXNB], e = 0;
    nbh_t h = {0};
    for (int r = 0; r < wsize; r++) {
        edges[e++] = (r - 1 + wsize) % wsize;
        edges[e++] = (r + 1) % wsize;
        if (r == 0)
            edges[e++] = 0;
        index[r] = e;
    }
    MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 0, &h.comm);
    MPI_Comm_set_errhandler(h.comm, MPI_ERRORS_RETURN);
    h.name = "graph";
    describe(&h);
    run_all(&h);
    MPI_Comm_free(&h.comm);
}

static void test_errors(void)
{
    int sbuf[N] = {0}, rbuf[4 * MAXNB * N], rc, one = 1, zero = 0, cnts[MAXNB] = {0}, dsp[MAXNB] = {0};
    MPI_Aint adsp[MAXNB] = {0};
    MPI_Datatype types[MAXNB];
    MPI_Request req;
    MPI_Comm cart;
    int dims[1] = {wsize}, periods[1] = {1};
    for (int i = 0; i < MAXNB; i++)
        types[i] = MPI_INT;

    rc = MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_TOPOLOGY, "allgather on world gave %d", rc);
    rc = MPI_Ineighbor_alltoallw(sbuf, cnts, adsp, types, rbuf, cnts, adsp, types, MPI_COMM_WORLD, &req);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_TOPOLOGY, "ialltoallw on world gave %d", rc);
    rc = MPI_Neighbor_alltoall_init(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_TOPOLOGY, "alltoall_init on world gave %d", rc);
    rc = MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, MPI_COMM_NULL);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_COMM, "alltoall on MPI_COMM_NULL gave %d", rc);

    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    rc = MPI_Neighbor_allgather(sbuf, -1, MPI_INT, rbuf, 1, MPI_INT, cart);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_COUNT, "negative sendcount gave %d", rc);
    rc = MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_DATATYPE_NULL, cart);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL gave %d", rc);
    rc = MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, rbuf, 1, MPI_INT, cart);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_BUFFER, "MPI_IN_PLACE gave %d", rc);
    rc = MPI_Neighbor_allgather(NULL, 1, MPI_INT, rbuf, 1, MPI_INT, cart);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_BUFFER, "NULL sendbuf gave %d", rc);
    rc = MPI_Ineighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, cart, NULL);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_ARG, "NULL request gave %d", rc);
    rc = MPI_Neighbor_allgatherv(sbuf, 1, MPI_INT, rbuf, NULL, dsp, MPI_INT, cart);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_ARG, "NULL recvcounts gave %d", rc);
    cnts[1] = -2;
    rc = MPI_Neighbor_alltoallv(sbuf, cnts, dsp, MPI_INT, rbuf, cnts, dsp, MPI_INT, cart);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_COUNT, "negative sendcounts[1] gave %d", rc);
    cnts[1] = 0;
    types[1] = MPI_DATATYPE_NULL;
    rc = MPI_Neighbor_alltoallw(sbuf, cnts, adsp, types, rbuf, cnts, adsp, types, cart);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL in sendtypes gave %d", rc);
    types[1] = MPI_INT;
    rc = MPI_Neighbor_alltoall_init(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, cart, (MPI_Info)0x1c001234, &req);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_INFO, "bad info gave %d", rc);
    /* receive blocks too small: the error comes back from the request */
    {
        int big[2 * N] = {0};
        rc = MPI_Ineighbor_alltoall(big, 2, MPI_INT, rbuf, 1, MPI_INT, cart, &req);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "truncating ialltoall start gave %d", rc);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, errclass(rc) == MPI_ERR_TRUNCATE, "truncating ialltoall gave %d", rc);
        }
    }
    (void)one;
    (void)zero;
    MPI_Comm_free(&cart);
}

/* Blocks above the eager limit (rendezvous): Ineighbor_alltoall on a
 * periodic ring, received through a strided derived type. */
static void test_big(void)
{
    enum { B = 40000 };
    int dims[1] = {wsize}, periods[1] = {1}, lo, hi, me, rc, bad = 0;
    MPI_Comm ring;
    MPI_Request req;
    MPI_Datatype strided, vecB;
    int *sbuf = malloc(2 * B * sizeof(int)), *rbuf = malloc(4 * B * sizeof(int));
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Comm_rank(ring, &me);
    MPI_Cart_shift(ring, 0, 1, &lo, &hi);
    MPI_Type_vector(B, 1, 2, MPI_INT, &vecB); /* B ints, every other */
    MPI_Type_create_resized(vecB, 0, (MPI_Aint)2 * B * sizeof(int), &strided);
    MPI_Type_commit(&strided);
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < B; k++)
            sbuf[j * B + k] = me * 1000000 + j * 100000 + k;
    for (int k = 0; k < 4 * B; k++)
        rbuf[k] = -1;
    rc = MPI_Ineighbor_alltoall(sbuf, B, MPI_INT, rbuf, 1, strided, ring, &req);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "big ialltoall: rc %d", rc);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "big ialltoall wait: rc %d", rc);
    for (int k = 0; k < B && !bad; k++) {
        int w0 = lo * 1000000 + 100000 + k, w1 = hi * 1000000 + k;
        if (rbuf[2 * k] != w0 || rbuf[2 * B + 2 * k] != w1 || rbuf[2 * k + 1] != -1 || rbuf[2 * B + 2 * k + 1] != -1) {
            MTEST_CHECK(errs, 0, "big ialltoall: element %d: %d %d (gaps %d %d), want %d %d", k, rbuf[2 * k],
                        rbuf[2 * B + 2 * k], rbuf[2 * k + 1], rbuf[2 * B + 2 * k + 1], w0, w1);
            bad = 1;
        }
    }
    MPI_Type_free(&vecB);
    MPI_Type_free(&strided);
    MPI_Comm_free(&ring);
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &svec);
    MPI_Type_commit(&svec);

    {
        int dims[3], periods[3];
        dims[0] = wsize; periods[0] = 1;
        test_cart(1, dims, periods, "cart-1d-periodic");
        periods[0] = 0;
        test_cart(1, dims, periods, "cart-1d");
        dims[0] = dims[1] = 0;
        MPI_Dims_create(wsize, 2, dims);
        periods[0] = 1; periods[1] = 0;
        test_cart(2, dims, periods, "cart-2d-mixed");
        dims[0] = wsize; dims[1] = 1; periods[0] = 0; periods[1] = 1;
        test_cart(2, dims, periods, "cart-size1-periodic");
        if (wsize % 2 == 0) {
            dims[0] = 2; dims[1] = wsize / 2; periods[0] = 1; periods[1] = 1;
            test_cart(2, dims, periods, "cart-size2-periodic");
            periods[0] = 0;
            test_cart(2, dims, periods, "cart-size2");
        }
        dims[0] = 1; dims[1] = 1; dims[2] = wsize; periods[0] = 1; periods[1] = 0; periods[2] = 1;
        test_cart(3, dims, periods, "cart-3d-ones");
        if (wsize >= 2) {
            /* a grid smaller than the communicator: the extra process
             * gets MPI_COMM_NULL */
            dims[0] = 1; dims[1] = 1; dims[2] = wsize - 1;
            test_cart(3, dims, periods, "cart-smaller");
        }
    }
    test_graph();
    test_distgraph(1, 0);
    test_distgraph(1, 1);
    test_distgraph(0, 1);
    test_errors();
    test_big();

    MPI_Type_free(&vec);
    MPI_Type_free(&svec);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
