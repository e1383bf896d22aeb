/* collinter: every collective on intercommunicators (MPI-2 semantics:
 * data moves from one group to the other; rooted operations with
 * MPI_ROOT / MPI_PROC_NULL / the root's remote rank), blocking,
 * nonblocking and persistent, predefined and vector datatypes, counts
 * 0, 1, 7 and above the eager limit, two group splits (halves, and odd
 * and even ranks). Scan and exscan must fail with MPI_ERR_COMM. */
#include "mtest.h"
#include <stdlib.h>
#include <string.h>

#define SENT (-7)
static int errs, mode, grp, lrank, lsize, rsize;
static MPI_Comm ic;
static const char *opname;
static const char *modes[] = {"blocking", "nonblocking", "persistent"};

typedef struct {
    const char *name;
    MPI_Datatype dt;
    int k, ext, off[2];
} tclass;

static size_t nints(const tclass *t, int n) { return (size_t)n * t->ext + 1; }
static int *newbuf(const tclass *t, int n)
{
    int *b = malloc(nints(t, n) * sizeof(int));
    size_t i;
    for (i = 0; i < nints(t, n); i++)
        b[i] = SENT;
    return b;
}
static void reset(int *b, const tclass *t, int n)
{
    size_t i;
    for (i = 0; i < nints(t, n); i++)
        b[i] = SENT;
}
static void fill(int *b, const tclass *t, int e0, int count, int a, int mul)
{
    int e, j;
    for (e = 0; e < count; e++)
        for (j = 0; j < t->k; j++)
            b[(size_t)(e0 + e) * t->ext + t->off[j]] = a + mul * (e * t->k + j);
}
typedef struct {
    int e0, count, a, mul;
} blk;
static void verify(const int *b, const tclass *t, int n, const blk *bs, int nb)
{
    size_t m = nints(t, n), i;
    char *mask = calloc(m, 1);
    int x, e, j, bad = 0;
    for (x = 0; x < nb; x++)
        for (e = 0; e < bs[x].count; e++)
            for (j = 0; j < t->k; j++) {
                size_t at = (size_t)(bs[x].e0 + e) * t->ext + t->off[j];
                int want = bs[x].a + bs[x].mul * (e * t->k + j);
                mask[at] = 1;
                if (b[at] != want && bad++ < 3)
                    fprintf(stderr, "[g%d r%d] %s %s %s: elem %d = %d, want %d\n", grp, lrank, opname,
                            modes[mode], t->name, bs[x].e0 + e, b[at], want);
            }
    for (i = 0; i < m; i++)
        if (!mask[i] && b[i] != SENT && bad++ < 3)
            fprintf(stderr, "[g%d r%d] %s %s %s: int %zu outside the data = %d\n", grp, lrank, opname,
                    modes[mode], t->name, i, b[i]);
    if (bad)
        errs++;
    free(mask);
}

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
            fprintf(stderr, "[g%d r%d] %s %s failed\n", grp, lrank, opname, modes[mode]);         \
        }                                                                                          \
    } while (0)

/* XB(p, q): data from process p (8*group + local rank) for block q. */
#define ME (grp * 8 + lrank)
#define XB(p, q) ((((p) * 16 + (q)) << 18))

/* The root is local rank rootr of group 0. */
static int rootarg(int rootr)
{
    if (grp == 1)
        return rootr;
    return lrank == rootr ? MPI_ROOT : MPI_PROC_NULL;
}

static void rooted(const tclass *t, int c)
{
    int rootr = grp == 0 ? lsize - 1 : rsize - 1, root = rootarg(rootr), isroot = root == MPI_ROOT, q, v;
    int n = rsize * (c + 1) + 1;
    int *s = newbuf(t, n), *r = newbuf(t, n);
    int *cs = malloc(rsize * sizeof(int)), *ds = malloc(rsize * sizeof(int));
    blk *x = malloc(rsize * sizeof(blk));
    for (q = 0; q < rsize; q++)
        cs[q] = c + (q & 1), ds[q] = (rsize - 1 - q) * (c + 1);

    opname = "bcast";
    RUN((reset(r, t, n), isroot ? fill(r, t, 0, c, XB(ME, 0), 1) : (void)0),
        MPI_Bcast(r, c, t->dt, root, ic), MPI_Ibcast(r, c, t->dt, root, ic, &rq_),
        MPI_Bcast_init(r, c, t->dt, root, ic, MPI_INFO_NULL, &rq_));
    {
        blk y = {0, c, XB(rootr, 0), 1};
        verify(r, t, n, &y, grp == 1 || isroot ? 1 : 0);
    }

    for (v = 0; v < 2; v++) {
        int sc = v ? c + (lrank & 1) : c;
        opname = v ? "gatherv" : "gather";
        for (q = 0; q < rsize; q++)
            x[q].e0 = v ? ds[q] : q * c, x[q].count = v ? cs[q] : c, x[q].a = XB(8 + q, 0), x[q].mul = 1;
#define SG reset(r, t, n), reset(s, t, n), fill(s, t, 0, sc, XB(ME, 0), 1)
        if (v)
            RUN(SG, MPI_Gatherv(s, sc, t->dt, r, cs, ds, t->dt, root, ic),
                MPI_Igatherv(s, sc, t->dt, r, cs, ds, t->dt, root, ic, &rq_),
                MPI_Gatherv_init(s, sc, t->dt, r, cs, ds, t->dt, root, ic, MPI_INFO_NULL, &rq_));
        else
            RUN(SG, MPI_Gather(s, c, t->dt, r, c, t->dt, root, ic),
                MPI_Igather(s, c, t->dt, r, c, t->dt, root, ic, &rq_),
                MPI_Gather_init(s, c, t->dt, r, c, t->dt, root, ic, MPI_INFO_NULL, &rq_));
        verify(r, t, n, x, isroot ? rsize : 0);

        opname = v ? "scatterv" : "scatter";
#define SS                                                                                         \
    do {                                                                                           \
        reset(r, t, n), reset(s, t, n);                                                            \
        if (isroot)                                                                                \
            for (q = 0; q < rsize; q++)                                                            \
                fill(s, t, v ? ds[q] : q * c, v ? cs[q] : c, XB(ME, q), 1);                        \
    } while (0)
        if (v)
            RUN(SS, MPI_Scatterv(s, cs, ds, t->dt, r, sc, t->dt, root, ic),
                MPI_Iscatterv(s, cs, ds, t->dt, r, sc, t->dt, root, ic, &rq_),
                MPI_Scatterv_init(s, cs, ds, t->dt, r, sc, t->dt, root, ic, MPI_INFO_NULL, &rq_));
        else
            RUN(SS, MPI_Scatter(s, c, t->dt, r, c, t->dt, root, ic),
                MPI_Iscatter(s, c, t->dt, r, c, t->dt, root, ic, &rq_),
                MPI_Scatter_init(s, c, t->dt, r, c, t->dt, root, ic, MPI_INFO_NULL, &rq_));
        {
            blk y = {0, sc, XB(rootr, lrank), 1};
            verify(r, t, n, &y, grp == 1 ? 1 : 0);
        }
    }

    /* reduce: group 1 contributes lrank + d */
    opname = "reduce";
    RUN((reset(r, t, n), reset(s, t, n), fill(s, t, 0, c, lrank, 1)),
        MPI_Reduce(s, r, c, t->dt, MPI_SUM, root, ic),
        MPI_Ireduce(s, r, c, t->dt, MPI_SUM, root, ic, &rq_),
        MPI_Reduce_init(s, r, c, t->dt, MPI_SUM, root, ic, MPI_INFO_NULL, &rq_));
    {
        blk y = {0, c, rsize * (rsize - 1) / 2, rsize};
        verify(r, t, n, &y, isroot ? 1 : 0);
    }
    free(s), free(r), free(cs), free(ds), free(x);
}

static void allops(const tclass *t, int c)
{
    int q, v, n = rsize * (c + 1) + 1, ln = lsize * c * rsize + 1;
    int *s = newbuf(t, n > ln ? n : ln), *r = newbuf(t, n > ln ? n : ln);
    int *cs = malloc(rsize * sizeof(int)), *ds = malloc(rsize * sizeof(int));
    int *sc = malloc(rsize * sizeof(int)), *sd = malloc(rsize * sizeof(int));
    int *lc = malloc(lsize * sizeof(int));
    MPI_Datatype *ts = malloc(rsize * sizeof(MPI_Datatype));
    blk *x = malloc(rsize * sizeof(blk));
    int ext = t->ext * (int)sizeof(int), other = (1 - grp) * 8;
    if (n < ln)
        n = ln;

    for (v = 0; v < 2; v++) {
        int mc = v ? c + (lrank & 1) : c;
        opname = v ? "allgatherv" : "allgather";
        for (q = 0; q < rsize; q++) {
            cs[q] = v ? c + (q & 1) : c, ds[q] = v ? (rsize - 1 - q) * (c + 1) : q * c;
            x[q].e0 = ds[q], x[q].count = cs[q], x[q].a = XB(other + q, 1), x[q].mul = 1;
        }
#define SA reset(r, t, n), reset(s, t, n), fill(s, t, 0, mc, XB(ME, 1), 1)
        if (v)
            RUN(SA, MPI_Allgatherv(s, mc, t->dt, r, cs, ds, t->dt, ic),
                MPI_Iallgatherv(s, mc, t->dt, r, cs, ds, t->dt, ic, &rq_),
                MPI_Allgatherv_init(s, mc, t->dt, r, cs, ds, t->dt, ic, MPI_INFO_NULL, &rq_));
        else
            RUN(SA, MPI_Allgather(s, c, t->dt, r, c, t->dt, ic),
                MPI_Iallgather(s, c, t->dt, r, c, t->dt, ic, &rq_),
                MPI_Allgather_init(s, c, t->dt, r, c, t->dt, ic, MPI_INFO_NULL, &rq_));
        verify(r, t, n, x, rsize);
    }

    for (v = 0; v < 3; v++) {
        opname = v == 0 ? "alltoall" : v == 1 ? "alltoallv" : "alltoallw";
        for (q = 0; q < rsize; q++) {
            /* a pair's block size depends on both ranks and the direction */
            int kout = v ? c + ((lrank + 2 * q + grp) % 3 == 0) : c;
            int kin = v ? c + ((q + 2 * lrank + 1 - grp) % 3 == 0) : c;
            sc[q] = kout, sd[q] = v ? q * (c + 1) : q * c;
            cs[q] = kin, ds[q] = v ? (rsize - 1 - q) * (c + 1) : q * c;
            ts[q] = t->dt;
            x[q].e0 = ds[q], x[q].count = kin, x[q].a = XB(other + q, lrank), x[q].mul = 1;
        }
        if (v == 2)
            for (q = 0; q < rsize; q++)
                sd[q] *= ext, ds[q] *= ext;
#define SX                                                                                         \
    do {                                                                                           \
        reset(r, t, n), reset(s, t, n);                                                            \
        for (q = 0; q < rsize; q++)                                                                \
            fill(s, t, v == 2 ? sd[q] / ext : sd[q], sc[q], XB(ME, q), 1);                        \
    } while (0)
        if (v == 0)
            RUN(SX, MPI_Alltoall(s, c, t->dt, r, c, t->dt, ic),
                MPI_Ialltoall(s, c, t->dt, r, c, t->dt, ic, &rq_),
                MPI_Alltoall_init(s, c, t->dt, r, c, t->dt, ic, MPI_INFO_NULL, &rq_));
        else if (v == 1)
            RUN(SX, MPI_Alltoallv(s, sc, sd, t->dt, r, cs, ds, t->dt, ic),
                MPI_Ialltoallv(s, sc, sd, t->dt, r, cs, ds, t->dt, ic, &rq_),
                MPI_Alltoallv_init(s, sc, sd, t->dt, r, cs, ds, t->dt, ic, MPI_INFO_NULL, &rq_));
        else
            RUN(SX, MPI_Alltoallw(s, sc, sd, ts, r, cs, ds, ts, ic),
                MPI_Ialltoallw(s, sc, sd, ts, r, cs, ds, ts, ic, &rq_),
                MPI_Alltoallw_init(s, sc, sd, ts, r, cs, ds, ts, ic, MPI_INFO_NULL, &rq_));
        verify(r, t, n, x, rsize);
    }

    /* Reductions: a process contributes 100*grp + lrank + d; a group
     * receives the reduction over the other group. */
    {
        int base = (1 - grp) * 100 * rsize + rsize * (rsize - 1) / 2;
        int rc = c * rsize, tot = lsize * rc; /* both groups' totals: lsize*rsize*c */
        blk y;
        opname = "allreduce";
        RUN((reset(r, t, n), reset(s, t, n), fill(s, t, 0, c, 100 * grp + lrank, 1)),
            MPI_Allreduce(s, r, c, t->dt, MPI_SUM, ic),
            MPI_Iallreduce(s, r, c, t->dt, MPI_SUM, ic, &rq_),
            MPI_Allreduce_init(s, r, c, t->dt, MPI_SUM, ic, MPI_INFO_NULL, &rq_));
        y.e0 = 0, y.count = c, y.a = base, y.mul = rsize;
        verify(r, t, n, &y, 1);

        opname = "reduce_scatter_block";
        RUN((reset(r, t, n), reset(s, t, n), fill(s, t, 0, tot, 100 * grp + lrank, 1)),
            MPI_Reduce_scatter_block(s, r, rc, t->dt, MPI_SUM, ic),
            MPI_Ireduce_scatter_block(s, r, rc, t->dt, MPI_SUM, ic, &rq_),
            MPI_Reduce_scatter_block_init(s, r, rc, t->dt, MPI_SUM, ic, MPI_INFO_NULL, &rq_));
        y.count = rc, y.a = base + rsize * lrank * rc * t->k;
        verify(r, t, n, &y, 1);

        opname = "reduce_scatter";
        for (q = 0; q < lsize; q++)
            lc[q] = rc;
        RUN((reset(r, t, n), reset(s, t, n), fill(s, t, 0, tot, 100 * grp + lrank, 1)),
            MPI_Reduce_scatter(s, r, lc, t->dt, MPI_SUM, ic),
            MPI_Ireduce_scatter(s, r, lc, t->dt, MPI_SUM, ic, &rq_),
            MPI_Reduce_scatter_init(s, r, lc, t->dt, MPI_SUM, ic, MPI_INFO_NULL, &rq_));
        verify(r, t, n, &y, 1);
    }
    opname = "barrier";
    RUN((void)0, MPI_Barrier(ic), MPI_Ibarrier(ic, &rq_), MPI_Barrier_init(ic, MPI_INFO_NULL, &rq_));
    free(s), free(r), free(cs), free(ds), free(sc), free(sd), free(lc), free(ts), free(x);
}

int main(int argc, char **argv)
{
    int wrank, wsize, split, ci, ti;
    static const int counts[] = {0, 1, 7, 17000};
    tclass tcs[2];
    MPI_Datatype vec;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        MTest_Finalize(0);
        return 0;
    }
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    tcs[0] = (tclass){"MPI_INT", MPI_INT, 1, 1, {0, 0}};
    tcs[1] = (tclass){"vector(2,1,2)", vec, 2, 3, {0, 2}};

    for (split = 0; split < 2; split++) {
        MPI_Comm local;
        int rleader;
        grp = split == 0 ? wrank >= wsize / 2 : wrank & 1;
        MPI_Comm_split(MPI_COMM_WORLD, grp, wrank, &local);
        /* world rank of the other group's leader */
        rleader = split == 0 ? (grp ? 0 : wsize / 2) : (grp ? 0 : 1);
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rleader, 7, &ic);
        MPI_Comm_rank(ic, &lrank);
        MPI_Comm_size(ic, &lsize);
        MPI_Comm_remote_size(ic, &rsize);
        for (mode = 0; mode < 3; mode++)
            for (ti = 0; ti < 2; ti++)
                for (ci = 0; ci < 4; ci++) {
                    if (counts[ci] > 100 && ti != (mode + split) % 2)
                        continue;
                    rooted(&tcs[ti], counts[ci]);
                    allops(&tcs[ti], counts[ci]);
                }
        {
            int a = 1, b = 0, rc;
            MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
            rc = MPI_Scan(&a, &b, 1, MPI_INT, MPI_SUM, ic);
            if (rc == MPI_SUCCESS || (MPI_Error_class(rc, &rc), rc != MPI_ERR_COMM)) {
                fprintf(stderr, "MPI_Scan on an intercommunicator did not fail with MPI_ERR_COMM\n");
                errs++;
            }
            rc = MPI_Iexscan(&a, &b, 1, MPI_INT, MPI_SUM, ic, &(MPI_Request){0});
            if (rc == MPI_SUCCESS || (MPI_Error_class(rc, &rc), rc != MPI_ERR_COMM)) {
                fprintf(stderr, "MPI_Iexscan on an intercommunicator did not fail with MPI_ERR_COMM\n");
                errs++;
            }
        }
        MPI_Comm_free(&ic);
        MPI_Comm_free(&local);
    }
    MPI_Type_free(&vec);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
