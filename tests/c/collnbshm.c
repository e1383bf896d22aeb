/* collnbshm: the nonblocking collectives coll/shm runs on its segment
 * (MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce, MPI_Iallreduce) on
 * MPI_COMM_WORLD and on a split into two halves:
 *  - counts 1, odd, several slots, split rounds, several rounds; every
 *    root; in place and not;
 *  - several outstanding on one communicator, with blocking collectives
 *    (small ones take the C express lane when nothing is queued) started
 *    before the nonblocking ones complete, completed in any order;
 *  - floating-point sums of non-integer values: Iallreduce gives the bits
 *    of Allreduce on every rank;
 *  - a non-commutative user operation (2x2 matrix product mod 2^32): the
 *    product in rank order;
 *  - a vector type with gaps: the gaps stay untouched;
 *  - progress without MPI calls: after MPI_Ibcast (non-roots) and
 *    MPI_Iallreduce, each process only reads its buffer (no MPI call)
 *    until the result is there; background progress must deliver it
 *    (the bound is 60 s, a hang guard, not a timing). Skipped with
 *    GMPI_ASYNC_PROGRESS=0;
 *  - blocking Gather, Allgather, Scatter and Alltoall with blocks large
 *    enough for coll/shm's single copy (cross-memory attach), received
 *    (or, for Scatter, sent) as a vector type whose gaps stay untouched,
 *    and Gather and Scatter contiguous and in place at the root;
 *  - small Iallreduce calls of the C express lane (lane()).
 * COLLNBSHM_MIXED=1: odd ranks of MPI_COMM_WORLD run with GMPI_EXPRESS=0
 * (the lane and coll/shm's Go code must take the same steps). */
#include "mtest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const int counts[] = {1, 7, 33, 1500, 40001, 70001};
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

/* the non-commutative operation: MTestMat products (mtest.h) */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int errs;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (errs++ < 10)                                                                       \
                printf(__VA_ARGS__);                                                               \
        }                                                                                          \
    } while (0)

static void run(MPI_Comm comm, const char *name)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Barrier(comm); /* sets the segment up */
    int maxc = counts[NCOUNTS - 1];
    double *s = malloc(sizeof(double) * maxc), *r = malloc(sizeof(double) * maxc);
    double *b = malloc(sizeof(double) * maxc), *ref = malloc(sizeof(double) * maxc);
    int *ib = malloc(sizeof(int) * maxc), *ir = malloc(sizeof(int) * maxc);
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];
        for (int root = 0; root < size; root++) {
            for (int i = 0; i < n; i++) {
                s[i] = (rank + 1) * 0.1 + i * 1e-3 + 1.0 / (3 + rank + i % 7); /* inexact */
                ib[i] = (i % 13) * (rank + 1);
                b[i] = rank == root ? i * 0.5 + root : -1;
            }
            MPI_Request q[4];
            /* four outstanding, then a blocking one of each kind */
            MPI_Iallreduce(s, r, n, MPI_DOUBLE, MPI_SUM, comm, &q[0]);
            MPI_Ibcast(b, n, MPI_DOUBLE, root, comm, &q[1]);
            MPI_Ireduce(ib, ir, n, MPI_INT, MPI_SUM, root, comm, &q[2]);
            MPI_Ibarrier(comm, &q[3]);
            MPI_Allreduce(s, ref, n, MPI_DOUBLE, MPI_SUM, comm);
            int one = 1, tot = 0;
            MPI_Allreduce(&one, &tot, 1, MPI_INT, MPI_SUM, comm);
            CHECK(tot == size, "%s: small allreduce after queued ones: %d\n", name, tot);
            /* complete in reverse order */
            for (int k = 3; k >= 0; k--)
                MPI_Wait(&q[k], MPI_STATUS_IGNORE);
            CHECK(memcmp(r, ref, sizeof(double) * n) == 0,
                  "%s: n=%d: Iallreduce bits differ from Allreduce\n", name, n);
            for (int i = 0; i < n; i++) {
                if (b[i] != i * 0.5 + root) {
                    CHECK(0, "%s: n=%d root=%d: Ibcast b[%d]=%g\n", name, n, root, i, b[i]);
                    break;
                }
            }
            if (rank == root) {
                int tri = size * (size + 1) / 2;
                for (int i = 0; i < n; i++) {
                    if (ir[i] != (i % 13) * tri) {
                        CHECK(0, "%s: n=%d root=%d: Ireduce ir[%d]=%d\n", name, n, root, i, ir[i]);
                        break;
                    }
                }
            }
            /* in place */
            memcpy(r, s, sizeof(double) * n);
            MPI_Iallreduce(MPI_IN_PLACE, r, n, MPI_DOUBLE, MPI_SUM, comm, &q[0]);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            CHECK(memcmp(r, ref, sizeof(double) * n) == 0, "%s: n=%d: in-place Iallreduce differs\n", name, n);
            /* Ireduce at the last rank, in place there: from 64 KiB the
             * single-copy slices (cma.go), the bits of Reduce */
            if (ci >= 4) {
                int last = size - 1;
                if (rank == last)
                    memcpy(r, s, sizeof(double) * n);
                MPI_Ireduce(rank == last ? MPI_IN_PLACE : s, r, n, MPI_DOUBLE, MPI_SUM, last, comm, &q[0]);
                MPI_Wait(&q[0], MPI_STATUS_IGNORE);
                MPI_Reduce(s, ref, n, MPI_DOUBLE, MPI_SUM, last, comm);
                CHECK(rank != last || memcmp(r, ref, sizeof(double) * n) == 0,
                      "%s: n=%d: in-place Ireduce at rank %d differs from Reduce\n", name, n, last);
            }
            if (ci < 3)
                continue; /* every root only for the small counts */
            break;
        }
    }
    /* non-commutative user operation */
    MPI_Op op;
    MPI_Datatype mt;
    MPI_Type_contiguous(4, MPI_UINT32_T, &mt);
    MPI_Type_commit(&mt);
    MPI_Op_create(MTestMatmulFn, 0, &op);
    /* 3000 matrices (48 KiB) through the segment, 5000 (80 KiB) through
     * the single-copy slices where cross-memory attach works */
    MPI_Request q;
    for (int nm = 3000; nm <= 5000; nm += 2000) {
        MTestMat *ms = malloc(sizeof(MTestMat) * nm), *mr = malloc(sizeof(MTestMat) * nm);
        for (int i = 0; i < nm; i++)
            ms[i] = MTestMatOf(rank, i);
        MPI_Iallreduce(ms, mr, nm, mt, op, comm, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        for (int i = 0; i < nm; i++) {
            MTestMat e = MTestMatOf(0, i);
            for (int p = 1; p < size; p++)
                e = MTestMatMul(e, MTestMatOf(p, i));
            if (memcmp(&e, &mr[i], sizeof e)) {
                CHECK(0, "%s: nm=%d: non-commutative Iallreduce wrong at %d\n", name, nm, i);
                break;
            }
        }
        free(ms);
        free(mr);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&mt);
    /* vector with gaps: every other int */
    MPI_Datatype vt;
    MPI_Type_vector(50, 1, 2, MPI_INT, &vt);
    MPI_Type_commit(&vt);
    int vs[100], vr[100];
    for (int i = 0; i < 100; i++) {
        vs[i] = i + rank;
        vr[i] = -7;
    }
    MPI_Iallreduce(vs, vr, 1, vt, MPI_MAX, comm, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i < 100; i++) {
        int want = i % 2 ? -7 : i + size - 1;
        if (vr[i] != want) {
            CHECK(0, "%s: vector Iallreduce vr[%d]=%d, want %d\n", name, i, vr[i], want);
            break;
        }
    }
    MPI_Type_free(&vt);
    /* progress while the caller computes without MPI calls */
    const char *ap = getenv("GMPI_ASYNC_PROGRESS");
    if (!ap || strcmp(ap, "0")) {
        for (int it = 0; it < 3; it++) {
            int n = it == 2 ? 40001 : 64;
            for (int i = 0; i < n; i++) {
                b[i] = rank == 0 ? i + it : -1;
                s[i] = rank + 1;
                r[i] = 0;
            }
            MPI_Request q2[2];
            MPI_Ibcast(b, n, MPI_DOUBLE, 0, comm, &q2[0]);
            MPI_Iallreduce(s, r, n, MPI_DOUBLE, MPI_SUM, comm, &q2[1]);
            volatile double *vb = b, *vr2 = r;
            double want = size * (size + 1) / 2.0, t0 = now();
            while ((vb[n - 1] != n - 1 + it || vr2[n - 1] != want) && now() - t0 < 60)
                ; /* no MPI call */
            CHECK(vb[n - 1] == n - 1 + it && vr2[n - 1] == want,
                  "%s: n=%d: no progress without MPI calls in 60 s\n", name, n);
            MPI_Waitall(2, q2, MPI_STATUSES_IGNORE);
        }
    }
    free(s);
    free(r);
    free(b);
    free(ref);
    free(ib);
    free(ir);
}

/* blocks of BLK ints; the vector type spreads a block over 2*BLK ints */
#define BLK 80000
static int blockval(int owner, int j, int i) { return owner * 1000003 + j * 7 + i; }

static int check_vec(const int *v, int owner, int j, const char *what, const char *name)
{
    for (int i = 0; i < BLK; i++) {
        if (v[2 * i] != blockval(owner, j, i) || v[2 * i + 1] != -1) {
            CHECK(0, "%s: %s: block of %d at %d: %d %d\n", name, what, owner, i, v[2 * i], v[2 * i + 1]);
            return 1;
        }
    }
    return 0;
}

static void bigblocks(MPI_Comm comm, const char *name)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype v0, vt;
    MPI_Type_vector(BLK, 1, 2, MPI_INT, &v0);
    MPI_Type_create_resized(v0, 0, (MPI_Aint)(2 * BLK * sizeof(int)), &vt);
    MPI_Type_commit(&vt);
    MPI_Type_free(&v0);
    int *s = malloc(sizeof(int) * BLK * size), *r = malloc(sizeof(int) * 2 * BLK * size);
    int *c = malloc(sizeof(int) * BLK);
    int root = size - 1;
    /* Gather and Allgather: contiguous in, vector out */
    for (int i = 0; i < BLK; i++)
        s[i] = blockval(rank, 0, i);
    for (int i = 0; i < 2 * BLK * size; i++)
        r[i] = -1;
    MPI_Gather(s, BLK, MPI_INT, r, 1, vt, root, comm);
    for (int q = 0; rank == root && q < size; q++)
        if (check_vec(r + 2 * BLK * q, q, 0, "Gather", name))
            break;
    for (int i = 0; i < 2 * BLK * size; i++)
        r[i] = -1;
    MPI_Allgather(s, BLK, MPI_INT, r, 1, vt, comm);
    for (int q = 0; q < size; q++)
        if (check_vec(r + 2 * BLK * q, q, 0, "Allgather", name))
            break;
    /* Scatter: vector out of the root, contiguous in */
    for (int q = 0; q < size; q++)
        for (int i = 0; i < BLK; i++) {
            r[2 * BLK * q + 2 * i] = blockval(root, q, i);
            r[2 * BLK * q + 2 * i + 1] = -1;
        }
    MPI_Scatter(r, 1, vt, c, BLK, MPI_INT, root, comm);
    for (int i = 0; i < BLK; i++)
        if (c[i] != blockval(root, rank, i)) {
            CHECK(0, "%s: Scatter at %d: %d\n", name, i, c[i]);
            break;
        }
    /* Gather and Scatter contiguous, then in place at the root (the
     * root's own block stays where it is) */
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int q = 0; q < size; q++)
            for (int i = 0; i < BLK; i++)
                r[q * BLK + i] = rank == root && q == root && inplace ? blockval(root, 0, i) : -1;
        for (int i = 0; i < BLK; i++)
            s[i] = blockval(rank, 0, i);
        MPI_Gather(inplace && rank == root ? MPI_IN_PLACE : s, BLK, MPI_INT, r, BLK, MPI_INT, root, comm);
        for (int q = 0; rank == root && q < size; q++)
            for (int i = 0; i < BLK; i++)
                if (r[q * BLK + i] != blockval(q, 0, i)) {
                    CHECK(0, "%s: Gather (in place %d): block of %d at %d: %d\n", name, inplace, q, i, r[q * BLK + i]);
                    q = size;
                    break;
                }
        for (int q = 0; q < size; q++)
            for (int i = 0; i < BLK; i++)
                r[q * BLK + i] = blockval(root, q, i);
        for (int i = 0; i < BLK; i++)
            c[i] = -1;
        int *mine = inplace && rank == root ? r + root * BLK : c;
        MPI_Scatter(r, BLK, MPI_INT, inplace && rank == root ? MPI_IN_PLACE : c, BLK, MPI_INT, root, comm);
        for (int i = 0; i < BLK; i++)
            if (mine[i] != blockval(root, rank, i)) {
                CHECK(0, "%s: Scatter (in place %d) at %d: %d\n", name, inplace, i, mine[i]);
                break;
            }
    }
    /* Alltoall: contiguous blocks out, vector in */
    for (int j = 0; j < size; j++)
        for (int i = 0; i < BLK; i++)
            s[j * BLK + i] = blockval(rank, j, i);
    for (int i = 0; i < 2 * BLK * size; i++)
        r[i] = -1;
    MPI_Alltoall(s, BLK, MPI_INT, r, 1, vt, comm);
    for (int q = 0; q < size; q++)
        if (check_vec(r + 2 * BLK * q, q, rank, "Alltoall", name))
            break;
    MPI_Type_free(&vt);
    free(s);
    free(r);
    free(c);
}

/* small Iallreduce calls, which the C express lane runs to their end
 * (capi/cshm.c) when nothing else is queued: completed by MPI_Wait,
 * MPI_Test loops, MPI_Waitany and MPI_Testall (Go's request functions),
 * after a blocking collective or a nonblocking one started behind them,
 * on two communicators at once, across MPI_Comm_free, without MPI calls,
 * and more of them than the small ring has slots */
static void lane(MPI_Comm comm, const char *name)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm dup;
    MPI_Comm_dup(comm, &dup);
    MPI_Barrier(comm);
    MPI_Barrier(dup); /* both segments set up */
    long tri = (long)size * (size + 1) / 2;
    for (int it = 0; it < 700; it++) {
        long s[4], r[4] = {0}, r2[4] = {0}, b[2] = {0};
        for (int i = 0; i < 4; i++)
            s[i] = (rank + 1) * (i + it);
        MPI_Request q[3];
        int flag = 0, idx;
        MPI_Iallreduce(s, r, 4, MPI_LONG, MPI_SUM, comm, &q[0]);
        switch (it % 7) {
        case 0: /* Wait */
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            break;
        case 1: /* Test until done */
            while (!flag)
                MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE);
            break;
        case 2: /* Go's Waitany, with a second communicator's call */
            MPI_Iallreduce(s, r2, 4, MPI_LONG, MPI_SUM, dup, &q[1]);
            MPI_Waitany(2, q, &idx, MPI_STATUS_IGNORE);
            MPI_Waitany(2, q, &idx, MPI_STATUS_IGNORE);
            break;
        case 3: /* a blocking collective before the Wait */
            if (rank == 0)
                b[0] = it, b[1] = -it;
            MPI_Bcast(b, 2, MPI_LONG, 0, comm);
            CHECK(b[0] == it && b[1] == -it, "%s: it=%d: Bcast after Iallreduce: %ld %ld\n", name, it, b[0], b[1]);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            break;
        case 4: /* nonblocking ones behind it, completed first */
            MPI_Ibarrier(comm, &q[1]);
            MPI_Iallreduce(s, r2, 4, MPI_LONG, MPI_SUM, comm, &q[2]);
            MPI_Wait(&q[2], MPI_STATUS_IGNORE);
            MPI_Wait(&q[1], MPI_STATUS_IGNORE);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            break;
        case 5: /* two communicators, reverse order, Testall */
            MPI_Iallreduce(s, r2, 4, MPI_LONG, MPI_SUM, dup, &q[1]);
            MPI_Wait(&q[1], MPI_STATUS_IGNORE);
            while (!flag)
                MPI_Testall(1, q, &flag, MPI_STATUSES_IGNORE);
            break;
        case 6: /* no MPI call until the result is there (background
                 * progress), unless GMPI_ASYNC_PROGRESS=0 */
            {
                const char *ap = getenv("GMPI_ASYNC_PROGRESS");
                if (!ap || strcmp(ap, "0")) {
                    volatile long *v = r;
                    double t0 = now();
                    while (v[3] != tri * (3 + it) && now() - t0 < 60)
                        ;
                    CHECK(v[3] == tri * (3 + it), "%s: it=%d: no progress without MPI calls in 60 s\n", name, it);
                }
                MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            }
            break;
        }
        for (int i = 0; i < 4; i++) {
            long want = tri * (i + it);
            CHECK(r[i] == want, "%s: it=%d: lane Iallreduce r[%d]=%ld, want %ld\n", name, it, i, r[i], want);
            if (it % 7 == 2 || it % 7 == 4 || it % 7 == 5)
                CHECK(r2[i] == want, "%s: it=%d: second Iallreduce r2[%d]=%ld, want %ld\n", name, it, i, r2[i], want);
        }
    }
    /* outstanding across MPI_Comm_free of its communicator */
    long s1 = rank + 1, r1 = 0;
    MPI_Request q;
    MPI_Iallreduce(&s1, &r1, 1, MPI_LONG, MPI_SUM, dup, &q);
    MPI_Comm_free(&dup);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(r1 == tri, "%s: Iallreduce across Comm_free: %ld, want %ld\n", name, r1, tri);
}

int main(int argc, char **argv)
{
    const char *mixed = getenv("COLLNBSHM_MIXED"), *pr = getenv("PMI_RANK");
    if (mixed && !strcmp(mixed, "1") && pr && atoi(pr) % 2)
        setenv("GMPI_EXPRESS", "0", 1);
    MTest_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    lane(MPI_COMM_WORLD, "world");
    run(MPI_COMM_WORLD, "world");
    bigblocks(MPI_COMM_WORLD, "world");
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    run(half, "half");
    lane(half, "half");
    MPI_Comm_free(&half);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
