/* hiercoll: every collective in its blocking, nonblocking and persistent
 * forms on communicators that span several sites (run under a grid file:
 * tests/scripts/hier_local.sh, hier_emulate.sh), in world order, reversed,
 * interleaved (sites not contiguous) and built from a permuted group,
 * with every root. Values are checked exactly. A non-commutative,
 * non-associative operator (x op y = 3x + y) must give the canonical
 * left fold ((x0 op x1) op x2)... on every rank unless associativity is
 * asserted (GMPI_ASSOCIATIVE=1 in the environment, or the info key
 * gmpi_assert_associative on the communicator), where only agreement
 * between ranks is checked; an associative non-commutative operator (2x2
 * matrix product) must give the rank-order product everywhere.
 * HIERCOLL_FLAT=1: the flat components run (no canonical fold expected).
 * HIERCOLL_QUICK=1: world and one reordered communicator, blocking and
 * nonblocking, small "large" sizes (for the slow emulated grid). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

static int errs, quick, flat, assoc_env;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (errs++ < 10) {                                                                     \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* CALL runs one collective in form mode: 0 blocking, 1 nonblocking, 2
 * persistent (started twice). */
static int mode;
#define CALL(blk, nb, init, ...)                                                                   \
    do {                                                                                           \
        MPI_Request rq_;                                                                           \
        if (mode == 0) {                                                                           \
            blk(__VA_ARGS__);                                                                      \
        } else if (mode == 1) {                                                                    \
            nb(__VA_ARGS__, &rq_);                                                                 \
            MPI_Wait(&rq_, MPI_STATUS_IGNORE);                                                     \
        } else {                                                                                   \
            init(__VA_ARGS__, MPI_INFO_NULL, &rq_);                                                \
            for (int k_ = 0; k_ < 2; k_++) {                                                       \
                MPI_Start(&rq_);                                                                   \
                MPI_Wait(&rq_, MPI_STATUS_IGNORE);                                                 \
            }                                                                                      \
            MPI_Request_free(&rq_);                                                                \
        }                                                                                          \
    } while (0)

/* x op y = 3x + y: neither commutative nor associative. */
static void op3(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    unsigned *a = in, *b = inout;
    (void)dt;
    for (int i = 0; i < *len; i++)
        b[i] = 3u * a[i] + b[i];
}

/* 2x2 matrix product (row-major, mod 2^32): associative, not commutative. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    unsigned *a = in, *b = inout;
    (void)dt;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        unsigned r0 = a[0] * b[0] + a[1] * b[2], r1 = a[0] * b[1] + a[1] * b[3];
        unsigned r2 = a[2] * b[0] + a[3] * b[2], r3 = a[2] * b[1] + a[3] * b[3];
        b[0] = r0, b[1] = r1, b[2] = r2, b[3] = r3;
    }
}

static MPI_Op OP3, MATMUL;
static MPI_Datatype MAT;

static unsigned val(int r, int i) { return (unsigned)(r * 1000 + i + 1); }
static void mat(unsigned *m, int r, int i)
{
    m[0] = (unsigned)(r + i + 2), m[1] = 1, m[2] = 1, m[3] = (unsigned)(i % 3);
}

/* canon3 is the left fold of op3 over val(0..n-1, i). */
static unsigned canon3(int n, int i)
{
    unsigned acc = val(0, i);
    for (int r = 1; r < n; r++)
        acc = 3u * acc + val(r, i);
    return acc;
}

static void matprod(unsigned *out, int n, int i)
{
    mat(out, 0, i);
    for (int r = 1; r < n; r++) {
        unsigned m[4];
        int one = 1;
        mat(m, r, i);
        matmul(out, m, &one, NULL);
        memcpy(out, m, sizeof m);
    }
}

static void test_comm(MPI_Comm comm, const char *name, int asserted)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int big = quick ? 3000 : 20000;
    int canonical = !flat && !asserted;
    unsigned *a = malloc(sizeof(unsigned) * (size_t)big * 4 * n);
    unsigned *b = malloc(sizeof(unsigned) * (size_t)big * 4 * n);
    unsigned *c = malloc(sizeof(unsigned) * (size_t)big * 4 * n);
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n);
    int *counts2 = malloc(sizeof(int) * n), *displs2 = malloc(sizeof(int) * n);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * n);
    int nroots = quick ? 2 : n;

    CALL(MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init, comm);

    /* bcast: small, large (split between sites), strided */
    for (int ri = 0; ri < nroots; ri++) {
        int root = quick ? (ri ? n - 1 : 0) : ri;
        int sizes[2] = {3, big};
        for (int s = 0; s < 2; s++) {
            for (int i = 0; i < sizes[s]; i++)
                a[i] = me == root ? val(root, i) : 0;
            CALL(MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, a, sizes[s], MPI_UNSIGNED, root, comm);
            for (int i = 0; i < sizes[s]; i++)
                CHECK(a[i] == val(root, i), "%s mode %d bcast root %d n %d: [%d]=%u want %u", name,
                      mode, root, sizes[s], i, a[i], val(root, i));
        }
    }
    {
        MPI_Datatype vec;
        MPI_Type_vector(50, 1, 2, MPI_UNSIGNED, &vec);
        MPI_Type_commit(&vec);
        for (int i = 0; i < 100; i++)
            a[i] = me == n - 1 ? val(9, i) : 7;
        CALL(MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, a, 1, vec, n - 1, comm);
        for (int i = 0; i < 100; i++)
            CHECK(a[i] == (i % 2 == 0 || me == n - 1 ? val(9, i) : 7u), "%s mode %d strided bcast [%d]=%u",
                  name, mode, i, a[i]);
        MPI_Type_free(&vec);
    }

    /* reduce: sum, op3 (canonical), matmul, every root */
    for (int ri = 0; ri < nroots; ri++) {
        int root = quick ? (ri ? n - 1 : 0) : ri;
        for (int i = 0; i < 5; i++)
            a[i] = val(me, i), b[i] = 0;
        CALL(MPI_Reduce, MPI_Ireduce, MPI_Reduce_init, a, b, 5, MPI_UNSIGNED, MPI_SUM, root, comm);
        if (me == root)
            for (int i = 0; i < 5; i++) {
                unsigned want = 0;
                for (int r = 0; r < n; r++)
                    want += val(r, i);
                CHECK(b[i] == want, "%s mode %d reduce sum root %d [%d]=%u want %u", name, mode, root, i,
                      b[i], want);
            }
        for (int i = 0; i < 4; i++)
            a[i] = val(me, i), b[i] = 0;
        CALL(MPI_Reduce, MPI_Ireduce, MPI_Reduce_init, a, b, 4, MPI_UNSIGNED, OP3, root, comm);
        if (me == root && canonical)
            for (int i = 0; i < 4; i++)
                CHECK(b[i] == canon3(n, i), "%s mode %d reduce op3 root %d [%d]=%u want %u", name, mode,
                      root, i, b[i], canon3(n, i));
        for (int i = 0; i < 3; i++)
            mat(a + 4 * i, me, i);
        CALL(MPI_Reduce, MPI_Ireduce, MPI_Reduce_init, a, b, 3, MAT, MATMUL, root, comm);
        if (me == root)
            for (int i = 0; i < 3; i++) {
                unsigned want[4];
                matprod(want, n, i);
                CHECK(memcmp(want, b + 4 * i, sizeof want) == 0, "%s mode %d reduce matmul root %d [%d]",
                      name, mode, root, i);
            }
    }

    /* allreduce: sum small/large (split), op3 small/large, matmul, in place */
    {
        int sizes[2] = {2, big};
        for (int s = 0; s < 2; s++) {
            for (int i = 0; i < sizes[s]; i++)
                a[i] = val(me, i), b[i] = 0;
            CALL(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, a, b, sizes[s], MPI_UNSIGNED, MPI_SUM,
                 comm);
            for (int i = 0; i < sizes[s]; i++) {
                unsigned want = 0;
                for (int r = 0; r < n; r++)
                    want += val(r, i);
                CHECK(b[i] == want, "%s mode %d allreduce sum n %d [%d]=%u want %u", name, mode, sizes[s], i,
                      b[i], want);
            }
            int k = s ? 600 : 2;
            for (int i = 0; i < k; i++)
                a[i] = val(me, i), b[i] = 0;
            CALL(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, a, b, k, MPI_UNSIGNED, OP3, comm);
            memcpy(c, b, sizeof(unsigned) * k);
            MPI_Bcast(c, k, MPI_UNSIGNED, 0, comm);
            for (int i = 0; i < k; i++) {
                CHECK(b[i] == c[i], "%s mode %d allreduce op3 differs from rank 0 at [%d]", name, mode, i);
                if (canonical)
                    CHECK(b[i] == canon3(n, i), "%s mode %d allreduce op3 [%d]=%u want %u", name, mode, i,
                          b[i], canon3(n, i));
            }
        }
        for (int i = 0; i < 5; i++)
            mat(a + 4 * i, me, i);
        CALL(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, a, b, 5, MAT, MATMUL, comm);
        for (int i = 0; i < 5; i++) {
            unsigned want[4];
            matprod(want, n, i);
            CHECK(memcmp(want, b + 4 * i, sizeof want) == 0, "%s mode %d allreduce matmul [%d]", name, mode,
                  i);
        }
        if (mode < 2) {
            for (int i = 0; i < 7; i++)
                b[i] = val(me, i);
            CALL(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, MPI_IN_PLACE, b, 7, MPI_UNSIGNED, MPI_MAX,
                 comm);
            for (int i = 0; i < 7; i++)
                CHECK(b[i] == val(n - 1, i), "%s mode %d allreduce in place [%d]=%u", name, mode, i, b[i]);
        }
    }

    /* gather, scatter, gatherv, scatterv */
    for (int ri = 0; ri < (quick ? 1 : 3); ri++) {
        int root = ri == 0 ? n - 1 : ri == 1 ? 0 : n / 2;
        for (int i = 0; i < 3; i++)
            a[i] = val(me, i);
        memset(b, 0, sizeof(unsigned) * 3 * n);
        CALL(MPI_Gather, MPI_Igather, MPI_Gather_init, a, 3, MPI_UNSIGNED, b, 3, MPI_UNSIGNED, root, comm);
        if (me == root)
            for (int r = 0; r < n; r++)
                for (int i = 0; i < 3; i++)
                    CHECK(b[3 * r + i] == val(r, i), "%s mode %d gather root %d from %d [%d]=%u", name, mode,
                          root, r, i, b[3 * r + i]);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 2; i++)
                a[2 * r + i] = me == root ? val(r, i + 50) : 0;
        memset(b, 0, 8);
        CALL(MPI_Scatter, MPI_Iscatter, MPI_Scatter_init, a, 2, MPI_UNSIGNED, b, 2, MPI_UNSIGNED, root, comm);
        for (int i = 0; i < 2; i++)
            CHECK(b[i] == val(me, i + 50), "%s mode %d scatter root %d [%d]=%u", name, mode, root, i, b[i]);
        int tot = 0;
        for (int r = 0; r < n; r++)
            counts[r] = r % 3 + 1, displs[r] = tot, tot += counts[r] + 1;
        for (int i = 0; i < counts[me]; i++)
            a[i] = val(me, i + 7);
        memset(b, 0, sizeof(unsigned) * tot);
        CALL(MPI_Gatherv, MPI_Igatherv, MPI_Gatherv_init, a, counts[me], MPI_UNSIGNED, b, counts, displs,
             MPI_UNSIGNED, root, comm);
        if (me == root)
            for (int r = 0; r < n; r++)
                for (int i = 0; i < counts[r]; i++)
                    CHECK(b[displs[r] + i] == val(r, i + 7), "%s mode %d gatherv root %d from %d", name, mode,
                          root, r);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < counts[r]; i++)
                a[displs[r] + i] = me == root ? val(r, i + 9) : 0;
        memset(b, 0, 16);
        CALL(MPI_Scatterv, MPI_Iscatterv, MPI_Scatterv_init, a, counts, displs, MPI_UNSIGNED, b, counts[me],
             MPI_UNSIGNED, root, comm);
        for (int i = 0; i < counts[me]; i++)
            CHECK(b[i] == val(me, i + 9), "%s mode %d scatterv root %d [%d]=%u", name, mode, root, i, b[i]);
        if (mode < 2) {
            for (int r = 0; r < n; r++)
                for (int i = 0; i < 3; i++)
                    b[3 * r + i] = me == root ? (r == root ? val(r, i) : 0) : 0;
            for (int i = 0; i < 3; i++)
                a[i] = val(me, i);
            if (me == root)
                CALL(MPI_Gather, MPI_Igather, MPI_Gather_init, MPI_IN_PLACE, 3, MPI_UNSIGNED, b, 3,
                     MPI_UNSIGNED, root, comm);
            else
                CALL(MPI_Gather, MPI_Igather, MPI_Gather_init, a, 3, MPI_UNSIGNED, NULL, 0, MPI_UNSIGNED, root,
                     comm);
            if (me == root)
                for (int r = 0; r < n; r++)
                    for (int i = 0; i < 3; i++)
                        CHECK(b[3 * r + i] == val(r, i), "%s mode %d gather in place root %d", name, mode,
                              root);
            for (int r = 0; r < n; r++)
                a[r] = val(r, 77);
            if (me == root)
                CALL(MPI_Scatter, MPI_Iscatter, MPI_Scatter_init, a, 1, MPI_UNSIGNED, MPI_IN_PLACE, 1,
                     MPI_UNSIGNED, root, comm);
            else {
                b[0] = 0;
                CALL(MPI_Scatter, MPI_Iscatter, MPI_Scatter_init, NULL, 0, MPI_UNSIGNED, b, 1, MPI_UNSIGNED,
                     root, comm);
                CHECK(b[0] == val(me, 77), "%s mode %d scatter in place root %d", name, mode, root);
            }
        }
    }

    /* allgather small/large, allgatherv, in place */
    {
        int sizes[2] = {3, quick ? 1000 : 9000};
        for (int s = 0; s < 2; s++) {
            int k = sizes[s];
            for (int i = 0; i < k; i++)
                a[i] = val(me, i);
            memset(b, 0, sizeof(unsigned) * k * n);
            CALL(MPI_Allgather, MPI_Iallgather, MPI_Allgather_init, a, k, MPI_UNSIGNED, b, k, MPI_UNSIGNED,
                 comm);
            for (int r = 0; r < n; r++)
                for (int i = 0; i < k; i++)
                    CHECK(b[k * r + i] == val(r, i), "%s mode %d allgather %d from %d [%d]=%u", name, mode, k,
                          r, i, b[k * r + i]);
        }
        int tot = 0;
        for (int r = 0; r < n; r++)
            counts[r] = (r * 5) % 4, displs[r] = tot, tot += counts[r] + 2;
        for (int i = 0; i < counts[me]; i++)
            a[i] = val(me, i + 3);
        memset(b, 0, sizeof(unsigned) * tot);
        CALL(MPI_Allgatherv, MPI_Iallgatherv, MPI_Allgatherv_init, a, counts[me], MPI_UNSIGNED, b, counts,
             displs, MPI_UNSIGNED, comm);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < counts[r]; i++)
                CHECK(b[displs[r] + i] == val(r, i + 3), "%s mode %d allgatherv from %d [%d]", name, mode, r,
                      i);
        if (mode < 2) {
            for (int r = 0; r < n; r++)
                b[2 * r] = b[2 * r + 1] = r == me ? val(me, 1) : 0;
            CALL(MPI_Allgather, MPI_Iallgather, MPI_Allgather_init, MPI_IN_PLACE, 0, MPI_UNSIGNED, b, 2,
                 MPI_UNSIGNED, comm);
            for (int r = 0; r < 2 * n; r++)
                CHECK(b[r] == val(r / 2, 1), "%s mode %d allgather in place [%d]=%u", name, mode, r, b[r]);
        }
    }

    /* alltoall, alltoallv, alltoallw */
    {
        for (int r = 0; r < n; r++)
            a[2 * r] = val(me, r), a[2 * r + 1] = val(me, r + 100);
        CALL(MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init, a, 2, MPI_UNSIGNED, b, 2, MPI_UNSIGNED, comm);
        for (int r = 0; r < n; r++)
            CHECK(b[2 * r] == val(r, me) && b[2 * r + 1] == val(r, me + 100), "%s mode %d alltoall from %d",
                  name, mode, r);
        int st = 0, rt = 0;
        for (int r = 0; r < n; r++) {
            counts[r] = (me + r) % 3, displs[r] = st, st += counts[r];
            counts2[r] = (me + r) % 3, displs2[r] = rt, rt += counts2[r];
            for (int i = 0; i < counts[r]; i++)
                a[displs[r] + i] = val(me, 10 * r + i);
        }
        CALL(MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init, a, counts, displs, MPI_UNSIGNED, b, counts2,
             displs2, MPI_UNSIGNED, comm);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < counts2[r]; i++)
                CHECK(b[displs2[r] + i] == val(r, 10 * me + i), "%s mode %d alltoallv from %d", name, mode, r);
        for (int r = 0; r < n; r++) {
            types[r] = MPI_UNSIGNED;
            counts[r] = 1, displs[r] = r * (int)sizeof(unsigned);
            a[r] = val(me, r + 500);
        }
        CALL(MPI_Alltoallw, MPI_Ialltoallw, MPI_Alltoallw_init, a, counts, displs, types, b, counts, displs,
             types, comm);
        for (int r = 0; r < n; r++)
            CHECK(b[r] == val(r, me + 500), "%s mode %d alltoallw from %d", name, mode, r);
    }

    /* reduce_scatter_block, reduce_scatter (sum and op3), scan, exscan */
    {
        for (int i = 0; i < 2 * n; i++)
            a[i] = val(me, i);
        CALL(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, MPI_Reduce_scatter_block_init, a, b, 2,
             MPI_UNSIGNED, MPI_SUM, comm);
        for (int i = 0; i < 2; i++) {
            unsigned want = 0;
            for (int r = 0; r < n; r++)
                want += val(r, 2 * me + i);
            CHECK(b[i] == want, "%s mode %d reduce_scatter_block [%d]=%u want %u", name, mode, i, b[i], want);
        }
        int tot = 0, mine = 0;
        for (int r = 0; r < n; r++) {
            counts[r] = r % 3 + 1;
            if (r == me)
                mine = tot;
            tot += counts[r];
        }
        for (int i = 0; i < tot; i++)
            a[i] = val(me, i);
        CALL(MPI_Reduce_scatter, MPI_Ireduce_scatter, MPI_Reduce_scatter_init, a, b, counts, MPI_UNSIGNED, OP3,
             comm);
        if (canonical)
            for (int i = 0; i < counts[me]; i++) {
                unsigned want = val(0, mine + i);
                for (int r = 1; r < n; r++)
                    want = 3u * want + val(r, mine + i);
                CHECK(b[i] == want, "%s mode %d reduce_scatter op3 [%d]=%u want %u", name, mode, i, b[i], want);
            }
        for (int i = 0; i < 2; i++)
            mat(a + 4 * i, me, i);
        CALL(MPI_Scan, MPI_Iscan, MPI_Scan_init, a, b, 2, MAT, MATMUL, comm);
        for (int i = 0; i < 2; i++) {
            unsigned want[4];
            matprod(want, me + 1, i);
            CHECK(memcmp(want, b + 4 * i, sizeof want) == 0, "%s mode %d scan matmul [%d]", name, mode, i);
        }
        for (int i = 0; i < 3; i++)
            a[i] = val(me, i);
        CALL(MPI_Exscan, MPI_Iexscan, MPI_Exscan_init, a, b, 3, MPI_UNSIGNED, MPI_SUM, comm);
        if (me > 0)
            for (int i = 0; i < 3; i++) {
                unsigned want = 0;
                for (int r = 0; r < me; r++)
                    want += val(r, i);
                CHECK(b[i] == want, "%s mode %d exscan [%d]=%u want %u", name, mode, i, b[i], want);
            }
    }
    free(a), free(b), free(c), free(counts), free(displs), free(counts2), free(displs2), free(types);
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    quick = getenv("HIERCOLL_QUICK") != NULL;
    flat = getenv("HIERCOLL_FLAT") != NULL;
    const char *e = getenv("GMPI_ASSOCIATIVE");
    assoc_env = e != NULL && strcmp(e, "1") == 0;
    MPI_Op_create(op3, 0, &OP3);
    MPI_Op_create(matmul, 0, &MATMUL);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &MAT);
    MPI_Type_commit(&MAT);
    int n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);

    MPI_Comm rev, inter, perm, asserted;
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - me, &rev);
    MPI_Comm_split(MPI_COMM_WORLD, 0, (me % 2) * n + me, &inter); /* even ranks first */
    {
        MPI_Group wg, pg;
        int *ranks = malloc(sizeof(int) * n);
        /* (5i+2) mod n is a permutation when gcd(5, n) = 1 */
        for (int i = 0; i < n; i++)
            ranks[i] = n % 5 ? (i * 5 + 2) % n : n - 1 - i;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_incl(wg, n, ranks, &pg);
        MPI_Comm_create(MPI_COMM_WORLD, pg, &perm);
        MPI_Group_free(&pg);
        MPI_Group_free(&wg);
        free(ranks);
    }
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "gmpi_assert_associative", "true");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &asserted);
    MPI_Info_free(&info);

    int modes = quick ? 2 : 3;
    for (mode = 0; mode < modes; mode++) {
        test_comm(MPI_COMM_WORLD, "world", assoc_env);
        test_comm(inter, "interleaved", 0); /* sites not contiguous: the assertion cannot apply */
        if (!quick) {
            test_comm(rev, "reversed", assoc_env);
            test_comm(perm, "permuted", assoc_env);
            test_comm(asserted, "asserted", 1);
        }
    }
    MPI_Comm_free(&rev);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&perm);
    MPI_Comm_free(&asserted);
    MPI_Op_free(&OP3);
    MPI_Op_free(&MATMUL);
    MPI_Type_free(&MAT);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
