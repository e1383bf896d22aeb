/* coll.c: collective latency benchmarks in plain MPI, built by bench/coll.sh
 * against gmpi, MPICH and Open MPI alike.
 *
 *   coll [-r REPS] [-s SCALE] [-x min|median] [OP...]
 *
 * OP is any of barrier bcast reduce allreduce allgather alltoall gather
 * scatter scan reduce_scatter_block iallreduce (default: all). Every op but
 * barrier runs at 8 B, 64 KiB and 1 MiB; the size is the bytes each rank
 * contributes (allgather, gather: per rank; alltoall, scatter,
 * reduce_scatter_block: per block, i.e. per pair of ranks; the reductions
 * work on doubles with MPI_SUM). Roots are rank 0.
 *
 * A measurement is a loop of N back-to-back calls timed on every rank
 * (N: about 200 MB per rank, 20..20000 calls, fewer when that would take
 * more than about 50 ms);
 * the time per call is the slowest rank's loop time / N (so a root that
 * runs ahead is not credited). Each measurement is warmed up and repeated
 * REPS times (default 5); the median (or with -x min the best) is printed,
 * on rank 0, one line each:
 *
 *   OP BYTES USEC          time per call
 *   OP BYTES n/a           the implementation raised an error for OP
 *                          (not implemented): nothing was measured
 *
 * iallreduce prints three lines per size, after the overlap method of
 * common benchmark suites: iallreduce_block (MPI_Iallreduce + MPI_Wait),
 * iallreduce_ovl (MPI_Iallreduce, then compute for as long as the blocking
 * form took, then MPI_Wait; ideally the compute time) and
 * iallreduce_pct (overlap in percent, 100 * (1 - (ovl - compute) /
 * block), clipped to 0..100). The compute loop never calls MPI.
 * Results are checked once per op and size; a mismatch aborts. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, nprocs, reps = 5, use_min;
static double scale = 1;
static char *sbuf, *rbuf;
static const long sizes[] = {8, 64 << 10, 1 << 20};
#define NSIZES 3
#define MAXBYTES (1L << 20)

static void die(const char *msg)
{
    fprintf(stderr, "coll: rank %d: %s\n", rank, msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* iterations for a size: about 200 MB moved per rank, 20..20000 calls. */
static long iters(long bytes)
{
    double n = bytes > 0 ? 2e8 / (bytes * (double)nprocs) : 20000;
    if (n > 20000)
        n = 20000;
    if (n < 20)
        n = 20;
    n *= scale;
    return n < 1 ? 1 : (long)n;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pick(double *v, int n)
{
    qsort(v, n, sizeof *v, cmpd);
    return use_min ? v[0] : v[n / 2];
}

/* One call of an op on `bytes`; returns the MPI error code. */
typedef int (*opfn)(long bytes);

static int do_barrier(long b) { (void)b; return MPI_Barrier(MPI_COMM_WORLD); }
static int do_bcast(long b) { return MPI_Bcast(sbuf, (int)b, MPI_BYTE, 0, MPI_COMM_WORLD); }
static int do_reduce(long b)
{
    return MPI_Reduce(sbuf, rbuf, (int)(b / 8), MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}
static int do_allreduce(long b)
{
    return MPI_Allreduce(sbuf, rbuf, (int)(b / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
static int do_allgather(long b)
{
    return MPI_Allgather(sbuf, (int)b, MPI_BYTE, rbuf, (int)b, MPI_BYTE, MPI_COMM_WORLD);
}
static int do_alltoall(long b)
{
    return MPI_Alltoall(sbuf, (int)b, MPI_BYTE, rbuf, (int)b, MPI_BYTE, MPI_COMM_WORLD);
}
static int do_gather(long b)
{
    return MPI_Gather(sbuf, (int)b, MPI_BYTE, rbuf, (int)b, MPI_BYTE, 0, MPI_COMM_WORLD);
}
static int do_scatter(long b)
{
    return MPI_Scatter(sbuf, (int)b, MPI_BYTE, rbuf, (int)b, MPI_BYTE, 0, MPI_COMM_WORLD);
}
static int do_scan(long b)
{
    return MPI_Scan(sbuf, rbuf, (int)(b / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
static int do_rsb(long b)
{
    return MPI_Reduce_scatter_block(sbuf, rbuf, (int)(b / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
static int do_iallreduce(long b)
{
    MPI_Request r;
    int rc = MPI_Iallreduce(sbuf, rbuf, (int)(b / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/* fill: rank-dependent doubles (exact in sums) or bytes. */
static void fill(long bytes)
{
    double *d = (double *)sbuf;
    for (long i = 0; i < bytes * nprocs / 8; i++)
        d[i] = (double)((rank + 1) * (i % 1000 + 1));
    memset(rbuf, 0xee, bytes * nprocs);
}

/* check the result of one call of op (name) on bytes. */
static void check(const char *name, long bytes)
{
    const double *d = (const double *)rbuf;
    const double *s = (const double *)sbuf;
    long nd = bytes / 8;
    double tri = nprocs * (nprocs + 1) / 2.0;
    char msg[200];
    int bad = 0;
    if (!strcmp(name, "allreduce") || !strcmp(name, "iallreduce") || (!strcmp(name, "reduce") && rank == 0)) {
        for (long i = 0; i < nd && !bad; i++)
            bad = d[i] != tri * (i % 1000 + 1);
    } else if (!strcmp(name, "scan")) {
        double t = (rank + 1) * (rank + 2) / 2.0;
        for (long i = 0; i < nd && !bad; i++)
            bad = d[i] != t * (i % 1000 + 1);
    } else if (!strcmp(name, "reduce_scatter_block")) {
        for (long i = 0; i < nd && !bad; i++)
            bad = d[i] != tri * ((rank * nd + i) % 1000 + 1);
    } else if (!strcmp(name, "bcast") && rank != 0) {
        /* rank 0's sbuf was filled with rank 0's pattern */
        for (long i = 0; i < nd && !bad; i++)
            bad = s[i] != (double)(i % 1000 + 1);
    } else if (!strcmp(name, "allgather") || (!strcmp(name, "gather") && rank == 0)) {
        for (int r = 0; r < nprocs && !bad; r++)
            for (long i = 0; i < nd && !bad; i++)
                bad = d[r * nd + i] != (double)((r + 1) * (i % 1000 + 1));
    } else if (!strcmp(name, "alltoall")) {
        for (int r = 0; r < nprocs && !bad; r++)
            for (long i = 0; i < nd && !bad; i++)
                bad = d[r * nd + i] != (double)((r + 1) * ((rank * nd + i) % 1000 + 1));
    } else if (!strcmp(name, "scatter")) {
        for (long i = 0; i < nd && !bad; i++)
            bad = d[i] != (double)((rank * nd + i) % 1000 + 1);
    }
    if (bad) {
        snprintf(msg, sizeof msg, "%s of %ld bytes: wrong result", name, bytes);
        die(msg);
    }
}

/* time one measurement: the slowest rank's time per call, usec. */
static double measure(opfn f, long bytes, long n)
{
    double t, tmax;
    MPI_Barrier(MPI_COMM_WORLD);
    t = now();
    for (long i = 0; i < n; i++)
        f(bytes);
    t = now() - t;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax / n * 1e6;
}

static volatile double sink;

/* compute for about usec microseconds without calling MPI. */
static void compute(double usec)
{
    double end = now() + usec * 1e-6, x = 1;
    while (now() < end)
        for (int i = 0; i < 100; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

static double measure_ovl(long bytes, long n, double comp)
{
    double t, tmax;
    MPI_Barrier(MPI_COMM_WORLD);
    t = now();
    for (long i = 0; i < n; i++) {
        MPI_Request r;
        MPI_Iallreduce(sbuf, rbuf, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
        compute(comp);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    t = now() - t;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax / n * 1e6;
}

/* works: one call, every rank agrees whether it succeeded. */
static int works(opfn f, long bytes)
{
    int ok = f(bytes) == MPI_SUCCESS, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

static void run(const char *name, opfn f)
{
    double v[64];
    int nsz = strcmp(name, "barrier") ? NSIZES : 1;
    for (int s = 0; s < nsz; s++) {
        long bytes = nsz == 1 ? 0 : sizes[s], n = iters(bytes);
        fill(bytes ? bytes : 8);
        if (!works(f, bytes)) {
            if (rank == 0)
                printf("%s %ld n/a\n", strcmp(name, "iallreduce") ? name : "iallreduce_block", bytes);
            if (!strcmp(name, "iallreduce") && rank == 0)
                printf("iallreduce_ovl %ld n/a\niallreduce_pct %ld n/a\n", bytes, bytes);
            fflush(stdout);
            continue;
        }
        check(name, bytes);
        for (int w = 0; w < 3; w++) /* warm-up */
            f(bytes);
        /* at most about 50 ms per measurement (oversubscribed runs of
         * some implementations take milliseconds per call) */
        double t1 = measure(f, bytes, n / 10 + 1);
        if (t1 > 0 && n * t1 > 5e4 * scale)
            n = (long)(5e4 * scale / t1) + 5;
        for (int r = 0; r < reps; r++)
            v[r] = measure(f, bytes, n);
        double block = pick(v, reps);
        if (strcmp(name, "iallreduce")) {
            if (rank == 0)
                printf("%s %ld %.3f\n", name, bytes, block);
            fflush(stdout);
            continue;
        }
        /* overlap: compute for as long as the blocking form takes */
        for (int r = 0; r < reps; r++)
            v[r] = measure_ovl(bytes, n, block);
        double ovl = pick(v, reps);
        double pct = 100 * (1 - (ovl - block) / block);
        if (pct < 0)
            pct = 0;
        if (pct > 100)
            pct = 100;
        if (rank == 0)
            printf("iallreduce_block %ld %.3f\niallreduce_ovl %ld %.3f\niallreduce_pct %ld %.1f\n",
                   bytes, block, bytes, ovl, bytes, pct);
        fflush(stdout);
    }
}

static const struct {
    const char *name;
    opfn f;
} ops[] = {
    {"barrier", do_barrier},     {"bcast", do_bcast},     {"reduce", do_reduce},
    {"allreduce", do_allreduce}, {"allgather", do_allgather}, {"alltoall", do_alltoall},
    {"gather", do_gather},       {"scatter", do_scatter}, {"scan", do_scan},
    {"reduce_scatter_block", do_rsb}, {"iallreduce", do_iallreduce},
};
#define NOPS (int)(sizeof ops / sizeof ops[0])

int main(int argc, char **argv)
{
    int want[NOPS], any = 0;
    memset(want, 0, sizeof want);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            scale = atof(argv[++i]);
        else if (!strcmp(argv[i], "-x") && i + 1 < argc)
            use_min = !strcmp(argv[++i], "min");
        else {
            int k;
            for (k = 0; k < NOPS && strcmp(argv[i], ops[k].name); k++)
                ;
            if (k == NOPS) {
                if (rank == 0)
                    fprintf(stderr, "coll: unknown argument %s\n", argv[i]);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            want[k] = any = 1;
        }
    }
    if (reps < 1 || reps > 64)
        die("-r must be 1..64");
    /* sbuf holds nprocs blocks (alltoall, scatter, reduce_scatter_block). */
    sbuf = malloc(MAXBYTES * nprocs);
    rbuf = malloc(MAXBYTES * nprocs);
    if (!sbuf || !rbuf)
        die("out of memory");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0)
        printf("# coll: %d ranks, reps %d, scale %g, statistic %s\n", nprocs, reps, scale,
               use_min ? "min" : "median");
    for (int k = 0; k < NOPS; k++)
        if (!any || want[k])
            run(ops[k].name, ops[k].f);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
