/* collshm: Barrier, Bcast, Reduce and Allreduce on every communicator of
 * MTestGetIntracomm plus a split into two halves, for what the
 * shared-memory collective component must get right whatever the
 * component (testlist runs it with GMPI_COLL=^shm too):
 *  - counts 0, 1, odd and large (several pipeline chunks and reduction
 *    rounds), every root;
 *  - Bcast of a non-contiguous datatype, gaps untouched;
 *  - a non-commutative user operation (2x2 matrix product mod 2^32,
 *    associative, not commutative) on a contiguous derived type: the
 *    result must be the product in rank order;
 *  - the same product on a vector type with gaps (the gaps of the root's
 *    receive buffer must stay untouched);
 *  - every predefined op class: arithmetic on integer and floating types,
 *    logical, bitwise on MPI_BYTE, complex, MINLOC/MAXLOC pairs;
 *  - floating-point sums of non-integer values: Allreduce must give the
 *    same bits on every rank;
 *  - barriers interleaved with everything, in place and not. */
#include "mtest.h"

#include <complex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const int counts[] = {0, 1, 7, 1001, 30001, 70001};
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

/* the non-commutative operation: MTestMat products (mtest.h) */

/* the vector type: a matrix spread over 8 uint32 words, at even words
 * (the odd ones are gaps) */
static void matmul_gap_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    uint32_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 8, b += 8) {
        MTestMat x = {a[0], a[2], a[4], a[6]}, y = {b[0], b[2], b[4], b[6]};
        MTestMat r = MTestMatMul(x, y);
        b[0] = r.a, b[2] = r.b, b[4] = r.c, b[6] = r.d;
    }
}

static int rank_w;

static int n_of(MPI_Comm comm)
{
    int n;
    MPI_Comm_size(comm, &n);
    return n;
}

static int test_bcast(MPI_Comm comm, const char *name)
{
    int errs = 0, me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    /* gapped: 2 ints every 3 (a vector), contiguous elsewhere */
    MPI_Datatype vec;
    MPI_Type_vector(1, 2, 3, MPI_INT, &vec);
    MPI_Datatype vecr;
    MPI_Type_create_resized(vec, 0, 3 * sizeof(int), &vecr);
    MPI_Type_commit(&vecr);
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int cnt = counts[ci];
        int *buf = malloc((3 * (size_t)cnt + 1) * sizeof(int));
        for (int root = 0; root < n; root++) {
            if (root > 2 && root < n - 1 && cnt > 1000)
                continue; /* keep it fast: large counts from 3 roots */
            for (int ty = 0; ty < 2; ty++) {
                /* ty 0: MPI_INT everywhere; ty 1: the gapped vecr
                 * everywhere. (vecr at the root and MPI_INT elsewhere
                 * is legal too, but coll/basic's Bcast does not support
                 * it yet.) */
                int gapped = ty == 1;
                for (int i = 0; i < 3 * cnt + 1; i++)
                    buf[i] = -7;
                if (me == root) {
                    for (int i = 0; i < 2 * cnt; i++) {
                        int at = gapped ? (i / 2) * 3 + i % 2 : i;
                        buf[at] = i * 31 + root;
                    }
                }
                if (gapped)
                    MPI_Bcast(buf, cnt, vecr, root, comm);
                else
                    MPI_Bcast(buf, 2 * cnt, MPI_INT, root, comm);
                for (int i = 0; i < 2 * cnt; i++) {
                    int at = gapped ? (i / 2) * 3 + i % 2 : i;
                    if (buf[at] != i * 31 + root) {
                        MTEST_CHECK(errs, 0, "%s: bcast of %d x %s from %d: element %d is %d, want %d", name, cnt,
                                    ty ? "vector" : "MPI_INT", root, i, buf[at], i * 31 + root);
                        break;
                    }
                }
                if (gapped)
                    for (int i = 0; i < cnt; i++)
                        if (buf[3 * i + 2] != -7) {
                            MTEST_CHECK(errs, 0, "%s: bcast from %d overwrote a gap of element %d", name, root, i);
                            break;
                        }
                if (!gapped && buf[2 * cnt] != -7)
                    MTEST_CHECK(errs, 0, "%s: bcast of %d ints wrote past the end", name, 2 * cnt);
                if ((root + ci) % 3 == 0)
                    MPI_Barrier(comm);
            }
        }
        free(buf);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&vecr);
    return errs;
}

static int test_noncomm(MPI_Comm comm, const char *name)
{
    int errs = 0, me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Datatype mt, gt0, gt;
    MPI_Type_contiguous(4, MPI_UINT32_T, &mt);
    MPI_Type_commit(&mt);
    MPI_Type_vector(4, 1, 2, MPI_UINT32_T, &gt0);
    MPI_Type_create_resized(gt0, 0, 8 * sizeof(uint32_t), &gt);
    MPI_Type_commit(&gt);
    MPI_Op op, opg;
    MPI_Op_create(MTestMatmulFn, 0, &op);
    MPI_Op_create(matmul_gap_fn, 0, &opg);
    for (int ci = 1; ci < NCOUNTS; ci++) {
        int cnt = counts[ci];
        MTestMat *in = malloc(cnt * sizeof(MTestMat)), *out = malloc(cnt * sizeof(MTestMat)), *want = malloc(cnt * sizeof(MTestMat));
        uint32_t *gin = malloc(cnt * 8 * sizeof(uint32_t)), *gout = malloc(cnt * 8 * sizeof(uint32_t));
        for (int i = 0; i < cnt; i++) {
            in[i] = MTestMatOf(me, i);
            want[i] = MTestMatOf(0, i);
            for (int r = 1; r < n; r++)
                want[i] = MTestMatMul(want[i], MTestMatOf(r, i));
            uint32_t *g = gin + 8 * i;
            g[0] = in[i].a, g[2] = in[i].b, g[4] = in[i].c, g[6] = in[i].d;
            g[1] = g[3] = g[5] = g[7] = 0xdead;
        }
        for (int inplace = 0; inplace < 2; inplace++) {
            int root = (ci + inplace) % n;
            /* Allreduce */
            memcpy(out, in, cnt * sizeof(MTestMat));
            MPI_Allreduce(inplace ? MPI_IN_PLACE : in, out, cnt, mt, op, comm);
            for (int i = 0; i < cnt; i++)
                if (memcmp(&out[i], &want[i], sizeof(MTestMat))) {
                    MTEST_CHECK(errs, 0, "%s: non-commutative allreduce of %d (in place %d): element %d is (%u %u %u %u), want (%u %u %u %u)", name,
                                cnt, inplace, i, out[i].a, out[i].b, out[i].c, out[i].d, want[i].a, want[i].b, want[i].c, want[i].d);
                    break;
                }
            /* Reduce */
            memset(out, 0x5a, cnt * sizeof(MTestMat));
            if (inplace && me == root)
                memcpy(out, in, cnt * sizeof(MTestMat));
            MPI_Reduce(inplace && me == root ? MPI_IN_PLACE : in, out, cnt, mt, op, root, comm);
            if (me == root)
                for (int i = 0; i < cnt; i++)
                    if (memcmp(&out[i], &want[i], sizeof(MTestMat))) {
                        MTEST_CHECK(errs, 0, "%s: non-commutative reduce of %d to %d: element %d wrong", name, cnt,
                                    root, i);
                        break;
                    }
            /* the gapped type: gaps of the output stay as they were */
            for (int i = 0; i < 8 * cnt; i++)
                gout[i] = 0xbeef;
            MPI_Reduce(gin, gout, cnt, gt, opg, root, comm);
            if (me == root)
                for (int i = 0; i < cnt; i++) {
                    uint32_t *g = gout + 8 * i;
                    MTestMat got = {g[0], g[2], g[4], g[6]};
                    if (memcmp(&got, &want[i], sizeof(MTestMat)) || g[1] != 0xbeef || g[7] != 0xbeef) {
                        MTEST_CHECK(errs, 0, "%s: gapped reduce of %d to %d: element %d wrong or gap touched", name,
                                    cnt, root, i);
                        break;
                    }
                }
            if (inplace)
                MPI_Barrier(comm);
        }
        free(in), free(out), free(want), free(gin), free(gout);
    }
    MPI_Op_free(&op);
    MPI_Op_free(&opg);
    MPI_Type_free(&mt);
    MPI_Type_free(&gt0);
    MPI_Type_free(&gt);
    return errs;
}

/* one predefined (type, op) check with exact integer-valued inputs */
#define CHECK_OP(T, MT, OP, INIT, EXPECT)                                                              \
    do {                                                                                               \
        T *in_ = malloc((cnt + 1) * sizeof(T)), *out_ = malloc((cnt + 1) * sizeof(T));               \
        for (int i = 0; i < cnt; i++) {                                                                \
            in_[i] = (T)(INIT);                                                                        \
        }                                                                                              \
        MPI_Allreduce(in_, out_, cnt, MT, OP, comm);                                                   \
        for (int i = 0; i < cnt; i++)                                                                  \
            if (out_[i] != (T)(EXPECT)) {                                                              \
                MTEST_CHECK(errs, 0, "%s: allreduce %s %s count %d: element %d wrong", name, #MT, #OP, \
                            cnt, i);                                                                   \
                break;                                                                                 \
            }                                                                                          \
        memset(out_, 0, (cnt + 1) * sizeof(T));                                                        \
        MPI_Reduce(in_, out_, cnt, MT, OP, n - 1, comm);                                               \
        if (me == n - 1)                                                                               \
            for (int i = 0; i < cnt; i++)                                                              \
                if (out_[i] != (T)(EXPECT)) {                                                          \
                    MTEST_CHECK(errs, 0, "%s: reduce %s %s count %d: element %d wrong", name, #MT,     \
                                #OP, cnt, i);                                                          \
                    break;                                                                             \
                }                                                                                      \
        free(in_);                                                                                     \
        free(out_);                                                                                    \
    } while (0)

struct dint {
    double v;
    int i;
};

static int test_predefined(MPI_Comm comm, const char *name)
{
    int errs = 0, me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int cnt = counts[ci];
        long tri = (long)n * (n - 1) / 2;
        CHECK_OP(int, MPI_INT, MPI_SUM, me + i % 13, n * (i % 13) + tri);
        CHECK_OP(long long, MPI_LONG_LONG, MPI_MAX, me * 3 - i % 5, (n - 1) * 3 - i % 5);
        CHECK_OP(short, MPI_SHORT, MPI_MIN, me - i % 7, -(i % 7));
        CHECK_OP(float, MPI_FLOAT, MPI_SUM, me + 0.5f * (i % 4), n * 0.5f * (i % 4) + tri);
        CHECK_OP(double, MPI_DOUBLE, MPI_MAX, -me * 1.5 + i, i);
        CHECK_OP(int, MPI_INT, MPI_LOR, me == i % (n + 1), i % (n + 1) < n);
        CHECK_OP(int, MPI_INT, MPI_LXOR, me == 0 && i % 2, i % 2);
        CHECK_OP(unsigned char, MPI_BYTE, MPI_BOR, 1u << (me % 8), n >= 8 ? 0xff : (1u << n) - 1);
        CHECK_OP(unsigned char, MPI_BYTE, MPI_BAND, 0xf0 | (i & 0xf) | (me ? 0 : 0), 0xf0 | (i & 0xf));
        CHECK_OP(unsigned char, MPI_BYTE, MPI_BXOR, me == 1 ? i & 0xff : 0, n > 1 ? i & 0xff : 0);
        CHECK_OP(double _Complex, MPI_C_DOUBLE_COMPLEX, MPI_SUM, me + (i % 3) * I, tri + n * (i % 3) * I);
    }
    return errs;
}

/* LAND and PROD (expectations computed in a loop), MINLOC/MAXLOC, and
 * floating-point bit equality. */
static int test_exact(MPI_Comm comm, const char *name)
{
    int errs = 0, me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    for (int ci = 1; ci < NCOUNTS; ci++) {
        int cnt = counts[ci];
        int *a = malloc(cnt * sizeof(int)), *b = malloc(cnt * sizeof(int));
        unsigned *p = malloc(cnt * sizeof(unsigned)), *q = malloc(cnt * sizeof(unsigned));
        struct dint *x = malloc(cnt * sizeof *x), *y = malloc(cnt * sizeof *y);
        double *f = malloc(cnt * sizeof(double)), *g = malloc(cnt * sizeof(double)),
               *h = malloc(cnt * sizeof(double));
        for (int i = 0; i < cnt; i++) {
            a[i] = (me + i) % 4 != 0;
            p[i] = (me + i) % 3 == 0 ? 1 : 2;
            x[i].v = (double)((me * 7 + i) % 5);
            x[i].i = me;
            f[i] = 1.0 / (me + 1 + i % 17) + 1e-3 * (i % 101) * (me % 2 ? -1 : 1);
        }
        MPI_Allreduce(a, b, cnt, MPI_INT, MPI_LAND, comm);
        MPI_Allreduce(p, q, cnt, MPI_UNSIGNED, MPI_PROD, comm);
        for (int i = 0; i < cnt; i++) {
            int land = 1;
            unsigned prod = 1;
            for (int r = 0; r < n; r++) {
                land = land && (r + i) % 4 != 0;
                prod *= (r + i) % 3 == 0 ? 1 : 2;
            }
            if (b[i] != land || q[i] != prod) {
                MTEST_CHECK(errs, 0, "%s: LAND/PROD count %d element %d wrong", name, cnt, i);
                break;
            }
        }
        for (int loc = 0; loc < 2; loc++) {
            MPI_Allreduce(x, y, cnt, MPI_DOUBLE_INT, loc ? MPI_MAXLOC : MPI_MINLOC, comm);
            for (int i = 0; i < cnt; i++) {
                double best = loc ? -1 : 1e9;
                int at = -1;
                for (int r = 0; r < n; r++) {
                    double v = (double)((r * 7 + i) % 5);
                    if (loc ? v > best : v < best)
                        best = v, at = r;
                }
                if (y[i].v != best || y[i].i != at) {
                    MTEST_CHECK(errs, 0, "%s: %s count %d element %d: (%g,%d), want (%g,%d)", name,
                                loc ? "MAXLOC" : "MINLOC", cnt, i, y[i].v, y[i].i, best, at);
                    break;
                }
            }
        }
        /* the same bits on every rank */
        MPI_Allreduce(f, g, cnt, MPI_DOUBLE, MPI_SUM, comm);
        memcpy(h, g, cnt * sizeof(double));
        MPI_Bcast(h, cnt, MPI_DOUBLE, 0, comm);
        if (memcmp(g, h, cnt * sizeof(double)))
            MTEST_CHECK(errs, 0, "%s: allreduce of %d doubles differs from rank 0's", name, cnt);
        free(a), free(b), free(p), free(q), free(x), free(y), free(f), free(g), free(h);
    }
    return errs;
}

/* Small and larger calls alternate (the small ones go through the C
 * express lane, capi/cshm.c, the others through coll/shm's Go code, on
 * the same segment): block operations deliver the right blocks, and a
 * floating-point sum has the bits of the binomial tree on every rank. */
static double mixed_operand(int r, int i) { return 1.0 / (r + 1 + i % 17) + 1e-3 * (i % 101) * (r % 2 ? -1 : 1); }

static int test_mixed(MPI_Comm comm, const char *name)
{
    static const int blks[] = {1, 2, 64, 100, 3};
    int errs = 0, me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int *sb = malloc(100 * n * sizeof(int)), *rb = malloc(100 * n * sizeof(int));
    double f[40], g[40], acc[64];
    for (int it = 0; it < 60 && !errs; it++) {
        int blk = blks[it % 5], root = it % n;
        for (int i = 0; i < blk * n; i++)
            sb[i] = me * 100000 + i;
        memset(rb, 0xff, 100 * n * sizeof(int));
        switch (it % 6) {
        case 0:
            MPI_Allgather(sb, blk, MPI_INT, rb, blk, MPI_INT, comm);
            for (int r = 0; r < n; r++)
                for (int i = 0; i < blk; i++)
                    if (rb[r * blk + i] != r * 100000 + i) {
                        MTEST_CHECK(errs, 0, "%s: allgather %d ints: rank %d element %d", name, blk, r, i);
                        r = n;
                        break;
                    }
            break;
        case 1:
            MPI_Gather(sb, blk, MPI_INT, rb, blk, MPI_INT, root, comm);
            for (int r = 0; me == root && r < n; r++)
                for (int i = 0; i < blk; i++)
                    if (rb[r * blk + i] != r * 100000 + i) {
                        MTEST_CHECK(errs, 0, "%s: gather %d ints to %d: rank %d element %d", name, blk, root, r, i);
                        r = n;
                        break;
                    }
            break;
        case 2:
            MPI_Scatter(sb, blk, MPI_INT, rb, blk, MPI_INT, root, comm);
            for (int i = 0; i < blk; i++)
                if (rb[i] != root * 100000 + me * blk + i) {
                    MTEST_CHECK(errs, 0, "%s: scatter %d ints from %d: element %d", name, blk, root, i);
                    break;
                }
            break;
        case 3:
            MPI_Alltoall(sb, blk, MPI_INT, rb, blk, MPI_INT, comm);
            for (int r = 0; r < n; r++)
                for (int i = 0; i < blk; i++)
                    if (rb[r * blk + i] != r * 100000 + me * blk + i) {
                        MTEST_CHECK(errs, 0, "%s: alltoall %d ints: from %d element %d", name, blk, r, i);
                        r = n;
                        break;
                    }
            break;
        default: {
            int cnt = blk > 40 ? 40 : blk;
            for (int i = 0; i < cnt; i++)
                f[i] = mixed_operand(me, i + it);
            if (it % 6 == 4)
                MPI_Allreduce(f, g, cnt, MPI_DOUBLE, MPI_SUM, comm);
            else
                MPI_Reduce(f, g, cnt, MPI_DOUBLE, MPI_SUM, root, comm);
            for (int i = 0; (it % 6 == 4 || me == root) && i < cnt; i++) {
                /* the binomial tree: (b0+b1)+(b2+b3), ... */
                for (int r = 0; r < n && r < 64; r++)
                    acc[r] = mixed_operand(r, i + it);
                for (int mask = 1; mask < n; mask <<= 1)
                    for (int r = 0; r + mask < n; r += 2 * mask)
                        acc[r] = acc[r] + acc[r + mask];
                if (memcmp(&acc[0], &g[i], sizeof(double))) {
                    MTEST_CHECK(errs, 0, "%s: %s of %d doubles: element %d is %.17g, want %.17g", name,
                                it % 6 == 4 ? "allreduce" : "reduce", cnt, i, g[i], acc[0]);
                    break;
                }
            }
            break;
        }
        }
        if (it % 7 == 0)
            MPI_Barrier(comm);
    }
    free(sb), free(rb);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MPI_Comm comm;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_w);
    for (int k = 0;; k++) {
        const char *name;
        char nbuf[64];
        if (k < 100) {
            if (!MTestGetIntracomm(&comm, 1)) {
                k = 99;
                continue;
            }
            name = MTestGetIntracommName();
        } else if (k == 100) {
            /* two halves, ranks reversed in the upper one */
            int sz;
            MPI_Comm_size(MPI_COMM_WORLD, &sz);
            int upper = rank_w >= sz / 2;
            MPI_Comm_split(MPI_COMM_WORLD, upper, upper ? -rank_w : rank_w, &comm);
            snprintf(nbuf, sizeof nbuf, "split half %d", upper);
            name = nbuf;
        } else
            break;
        if (comm != MPI_COMM_NULL) {
            MPI_Barrier(comm);
            errs += test_bcast(comm, name);
            errs += test_noncomm(comm, name);
            errs += test_predefined(comm, name);
            errs += test_exact(comm, name);
            if (n_of(comm) <= 64)
                errs += test_mixed(comm, name);
            MPI_Barrier(comm);
        }
        if (k == 100)
            MPI_Comm_free(&comm);
        else
            MTestFreeComm(&comm);
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
