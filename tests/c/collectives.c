/* collectives: MPI_Barrier; MPI_Bcast from every root; MPI_Reduce (to
 * several roots) and MPI_Allreduce with MPI_SUM, MAX, MIN, PROD, LAND,
 * BOR, MAXLOC and MINLOC on MPI_INT, MPI_LONG, MPI_FLOAT, MPI_DOUBLE,
 * MPI_DOUBLE_INT and MPI_2INT, for counts 1, 7, 1000 and 100000, with and
 * without MPI_IN_PLACE. Every input is a small integer, so every expected
 * result is exact in every type. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

static const int counts[] = {1, 7, 1000, 100000};
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

enum kind { K_INT, K_LONG, K_FLOAT, K_DOUBLE, K_DOUBLE_INT, K_2INT };

struct dint {
    double v;
    int i;
};
struct iint {
    int v;
    int i;
};

static MPI_Datatype mpi_type(enum kind k)
{
    switch (k) {
    case K_INT:
        return MPI_INT;
    case K_LONG:
        return MPI_LONG;
    case K_FLOAT:
        return MPI_FLOAT;
    case K_DOUBLE:
        return MPI_DOUBLE;
    case K_DOUBLE_INT:
        return MPI_DOUBLE_INT;
    default:
        return MPI_2INT;
    }
}

static const char *type_name(enum kind k)
{
    static const char *names[] = {"MPI_INT",   "MPI_LONG",       "MPI_FLOAT",
                                  "MPI_DOUBLE", "MPI_DOUBLE_INT", "MPI_2INT"};
    return names[k];
}

static size_t elem_size(enum kind k)
{
    static const size_t sizes[] = {sizeof(int),    sizeof(long),        sizeof(float),
                                   sizeof(double), sizeof(struct dint), sizeof(struct iint)};
    return sizes[k];
}

enum op { O_SUM, O_MAX, O_MIN, O_PROD, O_LAND, O_BOR, O_MAXLOC, O_MINLOC };

static MPI_Op mpi_op(enum op o)
{
    switch (o) {
    case O_SUM:
        return MPI_SUM;
    case O_MAX:
        return MPI_MAX;
    case O_MIN:
        return MPI_MIN;
    case O_PROD:
        return MPI_PROD;
    case O_LAND:
        return MPI_LAND;
    case O_BOR:
        return MPI_BOR;
    case O_MAXLOC:
        return MPI_MAXLOC;
    default:
        return MPI_MINLOC;
    }
}

static const char *op_name(enum op o)
{
    static const char *names[] = {"MPI_SUM",  "MPI_MAX", "MPI_MIN",    "MPI_PROD",
                                  "MPI_LAND", "MPI_BOR", "MPI_MAXLOC", "MPI_MINLOC"};
    return names[o];
}

/* input returns rank r's element i for op o (the value part for the
 * *LOC ops, whose index part is r). */
static long input(enum op o, int r, long i)
{
    switch (o) {
    case O_SUM:
        return (r * 3 + i) % 101 - 50;
    case O_MAX:
    case O_MIN:
        return ((r + 1) * 7919L + i * 31) % 1000 - 500;
    case O_PROD: {
        int m = (int)((r + i) % 4);
        return m == 0 ? 2 : (m == 1 ? -1 : 1);
    }
    case O_LAND:
        /* For one i in size+1 every rank holds true. */
        return ((r + i) % (size + 1)) != 0 ? r + 1 : 0;
    case O_BOR:
        return (1L << ((r + i) % 20)) | ((i & 1) ? (1L << 25) : 0);
    default: /* MAXLOC, MINLOC: ties are frequent, so the index rule is tested. */
        return (r + i) % 3;
    }
}

/* expected returns the reduction over all ranks of element i; for the
 * *LOC ops *loc gets the index. */
static long expected(enum op o, long i, int *loc)
{
    long acc = input(o, 0, i);
    int r, where = 0;
    if (o == O_LAND)
        acc = acc != 0;
    for (r = 1; r < size; r++) {
        long v = input(o, r, i);
        switch (o) {
        case O_SUM:
            acc += v;
            break;
        case O_MAX:
            acc = v > acc ? v : acc;
            break;
        case O_MIN:
            acc = v < acc ? v : acc;
            break;
        case O_PROD:
            acc *= v;
            break;
        case O_LAND:
            acc = acc && v;
            break;
        case O_BOR:
            acc |= v;
            break;
        case O_MAXLOC:
            if (v > acc) {
                acc = v;
                where = r;
            }
            break;
        case O_MINLOC:
            if (v < acc) {
                acc = v;
                where = r;
            }
            break;
        }
    }
    if (loc)
        *loc = where;
    return acc;
}

static void fill(enum kind k, enum op o, int r, void *buf, long n)
{
    long i;
    for (i = 0; i < n; i++) {
        long v = input(o, r, i);
        switch (k) {
        case K_INT:
            ((int *)buf)[i] = (int)v;
            break;
        case K_LONG:
            ((long *)buf)[i] = v;
            break;
        case K_FLOAT:
            ((float *)buf)[i] = (float)v;
            break;
        case K_DOUBLE:
            ((double *)buf)[i] = (double)v;
            break;
        case K_DOUBLE_INT:
            ((struct dint *)buf)[i].v = (double)v;
            ((struct dint *)buf)[i].i = r;
            break;
        case K_2INT:
            ((struct iint *)buf)[i].v = (int)v;
            ((struct iint *)buf)[i].i = r;
            break;
        }
    }
}

/* The expected reduction of elements 0..maxn-1 for the current op, filled
 * by expect_all: results don't depend on the count, so one table serves
 * every count. */
static long *want_val;
static int *want_loc;

static void expect_all(enum op o, long n)
{
    long i;
    for (i = 0; i < n; i++)
        want_val[i] = expected(o, i, &want_loc[i]);
}

/* check compares buf with the expected reduction and reports at most a
 * few wrong elements. */
static int check(enum kind k, enum op o, const void *buf, long n, const char *what)
{
    long i;
    int bad = 0;
    for (i = 0; i < n; i++) {
        int gotloc = 0;
        double got = 0;
        switch (k) {
        case K_INT:
            got = ((const int *)buf)[i];
            break;
        case K_LONG:
            got = (double)((const long *)buf)[i];
            break;
        case K_FLOAT:
            got = ((const float *)buf)[i];
            break;
        case K_DOUBLE:
            got = ((const double *)buf)[i];
            break;
        case K_DOUBLE_INT:
            got = ((const struct dint *)buf)[i].v;
            gotloc = ((const struct dint *)buf)[i].i;
            break;
        case K_2INT:
            got = ((const struct iint *)buf)[i].v;
            gotloc = ((const struct iint *)buf)[i].i;
            break;
        }
        if (k != K_DOUBLE_INT && k != K_2INT)
            gotloc = want_loc[i];
        if (got != (double)want_val[i] || gotloc != want_loc[i]) {
            if (bad < 3)
                fprintf(stderr,
                        "[%d] %s %s %s count %ld: element %ld is %g (index %d), want %ld (index %d)\n",
                        rank, what, op_name(o), type_name(k), n, i, got, gotloc, want_val[i],
                        want_loc[i]);
            bad++;
        }
    }
    return bad ? 1 : 0;
}

struct combo {
    enum kind k;
    enum op o;
};

static const struct combo combos[] = {
    {K_INT, O_SUM},          {K_INT, O_MAX},          {K_INT, O_MIN},       {K_INT, O_PROD},
    {K_INT, O_LAND},         {K_INT, O_BOR},          {K_LONG, O_SUM},      {K_LONG, O_MAX},
    {K_LONG, O_MIN},         {K_LONG, O_PROD},        {K_LONG, O_LAND},     {K_LONG, O_BOR},
    {K_FLOAT, O_SUM},        {K_FLOAT, O_MAX},        {K_FLOAT, O_MIN},     {K_FLOAT, O_PROD},
    {K_DOUBLE, O_SUM},       {K_DOUBLE, O_MAX},       {K_DOUBLE, O_MIN},    {K_DOUBLE, O_PROD},
    {K_DOUBLE_INT, O_MAXLOC}, {K_DOUBLE_INT, O_MINLOC}, {K_2INT, O_MAXLOC}, {K_2INT, O_MINLOC},
};
#define NCOMBOS ((int)(sizeof combos / sizeof combos[0]))

static int reductions(void)
{
    int errs = 0, c, ci, rc;
    long maxn = counts[NCOUNTS - 1];
    char *in = malloc(maxn * 16), *out = malloc(maxn * 16);

    want_val = malloc(maxn * sizeof(long));
    want_loc = malloc(maxn * sizeof(int));

    for (c = 0; c < NCOMBOS; c++) {
        enum kind k = combos[c].k;
        enum op o = combos[c].o;
        MPI_Datatype t = mpi_type(k);
        MPI_Op op = mpi_op(o);
        size_t es = elem_size(k);
        expect_all(o, maxn);
        for (ci = 0; ci < NCOUNTS; ci++) {
            int n = counts[ci];
            int root = (c + ci) % size;

            /* MPI_Allreduce */
            fill(k, o, rank, in, n);
            memset(out, 0x5a, n * es);
            rc = MPI_Allreduce(in, out, n, t, op, MPI_COMM_WORLD);
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "MPI_Allreduce returned %d", rc);
            errs += check(k, o, out, n, "MPI_Allreduce");

            /* MPI_Allreduce with MPI_IN_PLACE */
            fill(k, o, rank, out, n);
            rc = MPI_Allreduce(MPI_IN_PLACE, out, n, t, op, MPI_COMM_WORLD);
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "MPI_Allreduce in place returned %d", rc);
            errs += check(k, o, out, n, "MPI_Allreduce(MPI_IN_PLACE)");

            /* MPI_Reduce to root; the others' receive buffers are unused. */
            fill(k, o, rank, in, n);
            memset(out, 0x5a, n * es);
            rc = MPI_Reduce(in, rank == root ? out : NULL, n, t, op, root, MPI_COMM_WORLD);
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "MPI_Reduce returned %d", rc);
            if (rank == root)
                errs += check(k, o, out, n, "MPI_Reduce");

            /* MPI_Reduce with MPI_IN_PLACE at the root. */
            root = (root + 1) % size;
            if (rank == root) {
                fill(k, o, rank, out, n);
                rc = MPI_Reduce(MPI_IN_PLACE, out, n, t, op, root, MPI_COMM_WORLD);
                errs += check(k, o, out, n, "MPI_Reduce(MPI_IN_PLACE)");
            } else {
                fill(k, o, rank, in, n);
                rc = MPI_Reduce(in, NULL, n, t, op, root, MPI_COMM_WORLD);
            }
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "MPI_Reduce in place returned %d", rc);
        }
    }
    free(in);
    free(out);
    free(want_val);
    free(want_loc);
    return errs;
}

static int broadcasts(void)
{
    int errs = 0, root, ci, rc;
    long maxn = counts[NCOUNTS - 1], i;
    int *ibuf = malloc(maxn * sizeof(int));
    double d[3];

    for (root = 0; root < size; root++) {
        for (ci = 0; ci < NCOUNTS; ci++) {
            int n = counts[ci], bad = 0;
            for (i = 0; i < n; i++)
                ibuf[i] = rank == root ? (int)(root * 1000003 + i) : -1;
            rc = MPI_Bcast(ibuf, n, MPI_INT, root, MPI_COMM_WORLD);
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "MPI_Bcast returned %d", rc);
            for (i = 0; i < n; i++)
                if (ibuf[i] != (int)(root * 1000003 + i))
                    bad++;
            MTEST_CHECK(errs, bad == 0, "MPI_Bcast root %d count %d: %d wrong elements", root, n,
                        bad);
        }
        d[0] = d[1] = d[2] = rank == root ? root + 0.25 : -1;
        MPI_Bcast(d, 3, MPI_DOUBLE, root, MPI_COMM_WORLD);
        MTEST_CHECK(errs, d[0] == root + 0.25 && d[2] == root + 0.25,
                    "MPI_Bcast of doubles from %d: %g", root, d[2]);
        rc = MPI_Bcast(ibuf, 0, MPI_INT, root, MPI_COMM_WORLD);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "MPI_Bcast of 0 ints returned %d", rc);
    }
    free(ibuf);
    return errs;
}

static int barriers(void)
{
    int errs = 0, i, rc, token = 0;

    for (i = 0; i < 10; i++) {
        rc = MPI_Barrier(MPI_COMM_WORLD);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "MPI_Barrier returned %d", rc);
    }
    /* Rank 0 can only pass the barrier after everyone entered it: each
     * rank sends to rank 0 before the barrier, and rank 0 receives after
     * it with MPI_Iprobe first, which must find all the messages sent
     * before the barrier (they were sent, though not necessarily
     * delivered, so only count them with blocking receives). */
    if (rank != 0)
        MPI_Send(&rank, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (i = 1; i < size; i++) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += v;
        }
        MTEST_CHECK(errs, token == size * (size - 1) / 2, "ranks sent before the barrier sum to %d",
                    token);
    }
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    errs += barriers();
    errs += broadcasts();
    errs += reductions();

    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
