/* wan.c: wide-area collective benchmarks and the ASP kernel in plain MPI,
 * built by bench/wan.sh against gmpi, MPICH and Open MPI alike.
 *
 *   wan [-r REPS] [-i ITERS] OP...
 *
 * OP: barrier, bcast8, bcast64k, allreduce8, allreduce64k, allgather8,
 * allgather64k, alltoall8 (bytes per rank, per block for alltoall; the
 * reductions sum doubles), or asp:N (all-pairs shortest
 * paths by Floyd-Warshall on N vertices, rows in blocks over the ranks,
 * one MPI_Bcast of the pivot row per iteration, as in MagPIe's ASP).
 *
 * A collective is timed as ITERS back-to-back calls (default 10;
 * broadcast number i from root i mod P) after a barrier and one warm-up
 * call; the time per call is the slowest rank's
 * loop time / ITERS, repeated REPS times (default 3), median printed on
 * rank 0 as "OP MS". asp prints "asp:N MS CHECKSUM" (the total time of
 * the N iterations, median of REPS, and a checksum of the distances to
 * compare implementations). Results are checked; a mismatch aborts. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs, reps = 3, iters = 10;

static void die(const char *msg)
{
    fprintf(stderr, "wan: rank %d: %s\n", rank, msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmpd);
    return v[n / 2];
}

static double *sbuf, *rbuf;

/* one call of op with n doubles (call number i: broadcasts rotate the
 * root, as common benchmark suites do, so back-to-back calls from one
 * root do not overlap) */
static void call(const char *op, int n, int i)
{
    if (!strcmp(op, "barrier"))
        MPI_Barrier(MPI_COMM_WORLD);
    else if (!strncmp(op, "bcast", 5))
        MPI_Bcast(sbuf, n, MPI_DOUBLE, i % nprocs, MPI_COMM_WORLD);
    else if (!strncmp(op, "allreduce", 9))
        MPI_Allreduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (!strncmp(op, "allgather", 9))
        MPI_Allgather(sbuf, n, MPI_DOUBLE, rbuf, n, MPI_DOUBLE, MPI_COMM_WORLD);
    else if (!strncmp(op, "alltoall", 8))
        MPI_Alltoall(sbuf, n, MPI_DOUBLE, rbuf, n, MPI_DOUBLE, MPI_COMM_WORLD);
    else
        die("unknown op");
}

static void check(const char *op, int n)
{
    if (!strncmp(op, "allreduce", 9)) {
        for (int i = 0; i < n; i++)
            sbuf[i] = rank + i;
        call(op, n, 0);
        for (int i = 0; i < n; i++)
            if (rbuf[i] != (double)nprocs * (nprocs - 1) / 2 + (double)nprocs * i)
                die("allreduce: wrong result");
    } else if (!strncmp(op, "allgather", 9)) {
        for (int i = 0; i < n; i++)
            sbuf[i] = rank * 1000 + i;
        call(op, n, 0);
        for (int r = 0; r < nprocs; r++)
            for (int i = 0; i < n; i++)
                if (rbuf[r * n + i] != r * 1000 + i)
                    die("allgather: wrong result");
    } else if (!strncmp(op, "bcast", 5)) {
        for (int i = 0; i < n; i++)
            sbuf[i] = rank == 0 ? i : -1;
        call(op, n, 0);
        for (int i = 0; i < n; i++)
            if (sbuf[i] != i)
                die("bcast: wrong result");
    }
}

static void bench(const char *op)
{
    int n = 1;
    if (strstr(op, "64k"))
        n = 8192;
    check(op, n);
    double t[64];
    for (int k = 0; k < reps && k < 64; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        call(op, n, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            call(op, n, i);
        double mine = (MPI_Wtime() - t0) / iters, worst;
        MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        t[k] = worst;
    }
    if (rank == 0)
        printf("%s %.2f\n", op, 1e3 * median(t, reps < 64 ? reps : 64));
    fflush(stdout);
}

static void asp(int n)
{
    if (n % nprocs)
        die("asp: N must be a multiple of the number of processes");
    int rows = n / nprocs, lo = rank * rows;
    int *d = malloc(sizeof(int) * rows * n), *row = malloc(sizeof(int) * n);
    double t[64];
    long sum = 0;
    for (int k = 0; k < reps && k < 64; k++) {
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < n; j++) {
                int gi = lo + i;
                d[i * n + j] = gi == j ? 0 : (gi * 7 + j * 13) % 17 == 0 ? (gi * 31 + j * 17) % 100 + 1 : 1 << 20;
            }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int p = 0; p < n; p++) {
            int owner = p / rows;
            if (owner == rank)
                memcpy(row, d + (p - lo) * n, sizeof(int) * n);
            MPI_Bcast(row, n, MPI_INT, owner, MPI_COMM_WORLD);
            for (int i = 0; i < rows; i++) {
                int dik = d[i * n + p];
                int *di = d + i * n;
                for (int j = 0; j < n; j++)
                    if (dik + row[j] < di[j])
                        di[j] = dik + row[j];
            }
        }
        double mine = MPI_Wtime() - t0, worst;
        MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        t[k] = worst;
        long s = 0;
        for (int i = 0; i < rows * n; i++)
            s += d[i];
        MPI_Reduce(&s, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("asp:%d %.1f %ld\n", n, 1e3 * median(t, reps < 64 ? reps : 64), sum);
    fflush(stdout);
    free(d);
    free(row);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a += 2) {
        if (a + 1 >= argc)
            die("option without value");
        if (!strcmp(argv[a], "-r"))
            reps = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "-i"))
            iters = atoi(argv[a + 1]);
        else
            die("usage: wan [-r REPS] [-i ITERS] OP...");
    }
    if (reps < 1 || iters < 1)
        die("bad -r or -i");
    sbuf = malloc(sizeof(double) * 8192 * nprocs);
    rbuf = malloc(sizeof(double) * 8192 * nprocs);
    for (int i = 0; i < 8192 * nprocs; i++)
        sbuf[i] = i;
    for (; a < argc; a++) {
        if (!strncmp(argv[a], "asp:", 4))
            asp(atoi(argv[a] + 4));
        else
            bench(argv[a]);
    }
    free(sbuf);
    free(rbuf);
    if (rank == 0)
        printf("done\n"); /* wan.sh may stop a launcher that hangs in finalize */
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
