/* rma.c: one-sided benchmarks between rank 0 (origin) and rank 1
 * (target) of 2 ranks: put/get latency (8 B) and bandwidth (64 KiB,
 * 1 MiB) with fence and with lock/flush, and accumulate latency (one
 * double, MPI_SUM, lock/flush). The window comes from MPI_Win_allocate.
 * Prints "name bytes value" lines: latency in usec per operation
 * (including its synchronization), bandwidth in MB/s (10^6 B/s).
 * usage: rma [-r reps] [-s scale]; reports the median over reps. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 16 /* operations per epoch in bandwidth runs */
#define MAXB (1 << 20)

static int rank, reps = 3;
static double scale = 1;
static MPI_Win win;
static char *src;

enum { PUT, GET, ACC };

static double run(int kind, int lock, int bytes, int iters, int window)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (lock && rank == 0) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    if (!lock) MPI_Win_fence(0, win);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0)
            for (int w = 0; w < window; w++) {
                if (kind == PUT) MPI_Put(src, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
                if (kind == GET) MPI_Get(src, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
                if (kind == ACC) MPI_Accumulate(src, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, MPI_SUM, win);
            }
        if (lock) {
            if (rank == 0) MPI_Win_flush(1, win);
        } else
            MPI_Win_fence(0, win);
    }
    double t = MPI_Wtime() - t0;
    if (lock && rank == 0) MPI_Win_unlock(1, win);
    if (!lock) MPI_Win_fence(0, win);
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void bench(const char *name, int kind, int lock, int bytes)
{
    int lat = bytes <= 8;
    int window = lat ? 1 : WINDOW;
    int iters = lat ? 2000 : (bytes >= MAXB ? 20 : 100);
    iters = (int)(iters * scale);
    if (iters < 2) iters = 2;
    double v[64];
    run(kind, lock, bytes, iters / 10 + 1, window); /* warm up */
    for (int r = 0; r < reps && r < 64; r++) {
        double t = run(kind, lock, bytes, iters, window);
        v[r] = lat ? t * 1e6 / iters : (double)bytes * window * iters / t / 1e6;
    }
    qsort(v, reps, sizeof v[0], cmp);
    if (rank == 0) printf("%s %d %.3f\n", name, kind == ACC ? 8 : bytes, v[reps / 2]);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-r")) reps = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "-s")) scale = atof(argv[i + 1]);
    }
    if (reps < 1) reps = 1;
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "rma: run with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    void *base;
    MPI_Win_allocate(MAXB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    src = malloc(MAXB);
    memset(src, 1, MAXB);
    memset(base, 0, MAXB);
    const char *names[2][3] = {{"put_fence", "get_fence", "acc_fence"}, {"put_lock", "get_lock", "acc_lock"}};
    for (int lock = 0; lock < 2; lock++)
        for (int kind = PUT; kind <= GET; kind++) {
            bench(names[lock][kind], kind, lock, 8);
            bench(names[lock][kind], kind, lock, 65536);
            bench(names[lock][kind], kind, lock, MAXB);
        }
    bench("acc_lock", ACC, 1, 8);
    bench("acc_fence", ACC, 0, 8);
    MPI_Win_free(&win);
    free(src);
    MPI_Finalize();
    return 0;
}
