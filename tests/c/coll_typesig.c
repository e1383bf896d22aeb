/* coll_typesig: collectives where the processes describe their data with
 * different datatypes of one type signature (MPI only requires the type
 * signatures to match): MPI_DOUBLE x N on one process, a strided vector
 * on another, an indexed type with irregular blocks on a third, N
 * elements of a resized type (one double in a 3-double extent) on a
 * fourth. Reduce and Allreduce (MPI_SUM on doubles, MPI_MAXLOC on
 * MPI_DOUBLE_INT, both with counts that differ between processes, and
 * a non-commutative user op that must see its own process's layout),
 * Gather, Allgather and Bcast, at sizes that take
 * the shared-memory component's small path, its split path and several
 * rounds. Gaps of every layout must stay untouched. Before the fix
 * coll/shm moved and combined each process's memory span (gaps
 * included) and got wrong sums. */
#include "mtest.h"
#include <stdlib.h>
#include <string.h>

#define NVAR 4
#define GAP -7.5

/* The layout of N items (doubles, or DOUBLE_INT pairs) for a variant:
 * item i lives at pos[i] (in items); *span is the number of items the
 * buffer needs. */
static void positions(int variant, int n, int *pos, int *span)
{
    int at = 0;
    for (int i = 0; i < n; i++) {
        switch (variant) {
        case 0: pos[i] = i; break;                  /* contiguous */
        case 1: pos[i] = 2 * i + 1; break;          /* vector, stride 2, offset 1 */
        case 2: pos[i] = at; at += 1 + (i % 3 == 2); break; /* indexed, irregular gaps */
        default: pos[i] = 3 * i; break;             /* resized: 1 item per 3 */
        }
    }
    *span = pos[n - 1] + 1 + (variant == 3 ? 2 : 0);
}

/* make_type returns the datatype and count that describe N items of
 * base at positions() for the variant (base: MPI_DOUBLE or
 * MPI_DOUBLE_INT, of extent ext). */
static MPI_Datatype make_type(int variant, int n, MPI_Datatype base, MPI_Aint ext, int *count);

/* make_type1: the same data as one element of a derived type (every
 * process passes count 1, as a user op needs: the standard requires
 * equal counts). */
static MPI_Datatype make_type1(int variant, int n, MPI_Datatype base, MPI_Aint ext)
{
    int cnt;
    MPI_Datatype t = make_type(variant, n, base, ext, &cnt), c;
    if (cnt == 1)
        return t;
    MPI_Type_contiguous(cnt, t, &c);
    MPI_Type_commit(&c);
    if (t != base)
        MPI_Type_free(&t);
    return c;
}

static MPI_Datatype make_type(int variant, int n, MPI_Datatype base, MPI_Aint ext, int *count)
{
    MPI_Datatype t, tmp;
    int *pos = malloc(n * sizeof(int)), span;
    positions(variant, n, pos, &span);
    *count = 1;
    switch (variant) {
    case 0:
        *count = n;
        free(pos);
        return base;
    case 1: {
        /* a vector of stride 2 starting one item in, resized to span */
        int one = 1;
        MPI_Aint d = ext;
        MPI_Datatype v;
        MPI_Type_vector(n, 1, 2, base, &v);
        MPI_Type_create_hindexed(1, &one, &d, v, &tmp);
        MPI_Type_create_resized(tmp, 0, (MPI_Aint)span * ext, &t);
        MPI_Type_free(&v);
        MPI_Type_free(&tmp);
        break;
    }
    case 2: {
        int *bl = malloc(n * sizeof(int));
        for (int i = 0; i < n; i++)
            bl[i] = 1;
        MPI_Type_indexed(n, bl, pos, base, &t);
        free(bl);
        break;
    }
    default:
        MPI_Type_create_resized(base, 0, 3 * ext, &t);
        *count = n;
        break;
    }
    MPI_Type_commit(&t);
    free(pos);
    return t;
}

/* A non-commutative, associative user op on long long: decimal
 * concatenation, x op y = x * 10^digits(y) + y. It walks the items of
 * its process's own layout (the datatype it is called with). */
static int g_variant, g_n;
static int digits(long long y)
{
    int d = 1;
    while (y >= 10)
        y /= 10, d++;
    return d;
}
static void concat(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    long long *a = in, *b = inout;
    int *pos = malloc(g_n * sizeof(int)), span;
    (void)dt;
    positions(g_variant, g_n, pos, &span);
    for (int e = 0; e < *len; e++)
        for (int i = 0; i < g_n; i++) {
            long long *x = &a[e * span + pos[i]], *y = &b[e * span + pos[i]];
            long long p = 1;
            for (int k = digits(*y); k > 0; k--)
                p *= 10;
            *y = *x * p + *y;
        }
    free(pos);
}

typedef struct {
    double v;
    int i;
} dint;

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Op cat;
    MPI_Op_create(concat, 0, &cat);
    const int sizes[] = {5, 40, 3000, 70000};

    for (int si = 0; si < 4; si++) {
        int n = sizes[si];
        for (int shift = 0; shift < NVAR; shift++) {
            int variant = (rank + shift) % NVAR, span, cnt;
            int *pos = malloc(n * sizeof(int));
            positions(variant, n, pos, &span);
            /* itemat[i]: the item at position i, -1 in a gap */
            int *itemat = malloc(span * sizeof(int));
            for (int i = 0; i < span; i++)
                itemat[i] = -1;
            for (int i = 0; i < n; i++)
                itemat[pos[i]] = i;

            /* Sum of doubles: integer values, exact in any order. */
            MPI_Datatype t = make_type(variant, n, MPI_DOUBLE, sizeof(double), &cnt);
            double *in = malloc(span * sizeof(double)), *out = malloc(span * sizeof(double));
            for (int i = 0; i < span; i++)
                in[i] = out[i] = GAP;
            for (int i = 0; i < n; i++)
                in[pos[i]] = (double)(rank + 1) * (i % 1000 + 1);
            for (int all = 0; all < 2; all++) {
                for (int root = 0; root < size; root += all ? size : 1) {
                    for (int i = 0; i < span; i++)
                        out[i] = GAP;
                    int rc = all ? MPI_Allreduce(in, out, cnt, t, MPI_SUM, MPI_COMM_WORLD)
                                 : MPI_Reduce(in, out, cnt, t, MPI_SUM, root, MPI_COMM_WORLD);
                    MTEST_CHECK(errs, rc == MPI_SUCCESS, "n %d variant %d: %s returned %d", n, variant,
                                all ? "MPI_Allreduce" : "MPI_Reduce", rc);
                    if (!all && rank != root)
                        continue;
                    for (int i = 0, bad = 0; i < span && !bad; i++) {
                        int item = itemat[i];
                        double want = item < 0 ? GAP : (double)size * (size + 1) / 2 * (item % 1000 + 1);
                        if (out[i] != want) {
                            bad = 1;
                            MTEST_CHECK(errs, 0, "n %d variant %d %s root %d: out[%d] = %g, want %g", n, variant,
                                        all ? "allreduce" : "reduce", root, i, out[i], want);
                        }
                    }
                }
            }

            /* Bcast from every root, Gather and Allgather of n items per rank. */
            for (int root = 0; root < size; root++) {
                for (int i = 0; i < span; i++)
                    out[i] = GAP;
                if (rank == root)
                    memcpy(out, in, span * sizeof(double));
                MPI_Bcast(out, cnt, t, root, MPI_COMM_WORLD);
                for (int i = 0; i < n; i++)
                    if (out[pos[i]] != (double)(root + 1) * (i % 1000 + 1)) {
                        MTEST_CHECK(errs, 0, "n %d variant %d bcast root %d: item %d = %g", n, variant, root, i,
                                    out[pos[i]]);
                        break;
                    }
            }
            if (n <= 3000) {
                /* gathered: size blocks of cnt elements of t (extent: span items unless resized) */
                MPI_Aint lb, ext;
                MPI_Type_get_extent(t, &lb, &ext);
                size_t blk = (size_t)cnt * ext / sizeof(double);
                double *g = malloc((size_t)size * blk * sizeof(double));
                for (int all = 0; all < 2; all++) {
                    for (size_t i = 0; i < (size_t)size * blk; i++)
                        g[i] = GAP;
                    int root = all ? 0 : size - 1;
                    int rc = all ? MPI_Allgather(in, cnt, t, g, cnt, t, MPI_COMM_WORLD)
                                 : MPI_Gather(in, cnt, t, g, cnt, t, root, MPI_COMM_WORLD);
                    MTEST_CHECK(errs, rc == MPI_SUCCESS, "gather rc %d", rc);
                    if (!all && rank != root)
                        continue;
                    for (int r = 0, bad = 0; r < size && !bad; r++)
                        for (int i = 0; i < (int)blk && !bad; i++) {
                            int item = i < span ? itemat[i] : -1;
                            double want = item < 0 ? GAP : (double)(r + 1) * (item % 1000 + 1);
                            if (g[r * blk + i] != want) {
                                bad = 1;
                                MTEST_CHECK(errs, 0, "n %d variant %d %s: block %d [%d] = %g, want %g", n,
                                            variant, all ? "allgather" : "gather", r, i, g[r * blk + i], want);
                            }
                        }
                }
                free(g);
            }
            if (t != MPI_DOUBLE)
                MPI_Type_free(&t);
            free(in);
            free(out);

            /* MAXLOC on MPI_DOUBLE_INT (a pair type with padding). */
            if (n <= 3000) {
                MPI_Datatype p = make_type(variant, n, MPI_DOUBLE_INT, sizeof(dint), &cnt);
                dint *a = malloc(span * sizeof(dint)), *b = malloc(span * sizeof(dint));
                for (int i = 0; i < span; i++)
                    a[i].v = b[i].v = GAP, a[i].i = b[i].i = -1;
                for (int i = 0; i < n; i++)
                    a[pos[i]].v = (double)((rank * 7 + i) % size), a[pos[i]].i = rank;
                MPI_Allreduce(a, b, cnt, p, MPI_MAXLOC, MPI_COMM_WORLD);
                for (int i = 0; i < span; i++) {
                    double wv = GAP;
                    int wi = -1;
                    int item = itemat[i];
                    if (item >= 0) {
                        wv = size - 1;
                        for (int r = 0; r < size; r++)
                            if ((r * 7 + item) % size == size - 1) {
                                wi = r;
                                break;
                            }
                    }
                    if (b[i].v != wv || b[i].i != wi) {
                        MTEST_CHECK(errs, 0, "n %d variant %d maxloc: [%d] = (%g,%d), want (%g,%d)", n, variant,
                                    i, b[i].v, b[i].i, wv, wi);
                        break;
                    }
                }
                if (p != MPI_DOUBLE_INT)
                    MPI_Type_free(&p);
                free(a);
                free(b);
            }

            /* The non-commutative user op: rank r contributes digit
             * (r + i) % 9 + 1 for item i; the result is the digits in
             * rank order. */
            if (n <= 3000 && size <= 9) {
                MPI_Datatype l = make_type1(variant, n, MPI_LONG_LONG, sizeof(long long));
                long long *a = malloc(span * sizeof(long long)), *b = malloc(span * sizeof(long long));
                for (int i = 0; i < span; i++)
                    a[i] = b[i] = -3;
                for (int i = 0; i < n; i++)
                    a[pos[i]] = (rank + i) % 9 + 1;
                g_variant = variant, g_n = n;
                for (int root = 0; root < size; root++) {
                    for (int i = 0; i < span; i++)
                        b[i] = -3;
                    MPI_Reduce(a, b, 1, l, cat, root, MPI_COMM_WORLD);
                    if (rank != root)
                        continue;
                    for (int i = 0; i < span; i++) {
                        long long want = -3;
                        int item = itemat[i];
                        if (item >= 0) {
                            want = 0;
                            for (int r = 0; r < size; r++)
                                want = want * 10 + (r + item) % 9 + 1;
                        }
                        if (b[i] != want) {
                            MTEST_CHECK(errs, 0, "n %d variant %d concat root %d: [%d] = %lld, want %lld", n,
                                        variant, root, i, b[i], want);
                            break;
                        }
                    }
                }
                MPI_Type_free(&l);
                free(a);
                free(b);
            }
            free(pos);
            free(itemat);
        }
    }
    MPI_Op_free(&cat);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
