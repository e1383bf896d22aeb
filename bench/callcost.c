/* callcost.c: what one small blocking send and one small blocking receive
 * cost the calling core, without the time a message takes to cross to the
 * other core (which ping-pong latency is mostly made of, and which swings
 * with where the two ranks land). For comparing two builds of one library,
 * or the ABI fronts of gmpi (bench/fronts.sh -c), on a loaded machine.
 *
 *   callcost [-n BATCH] [-k ROUNDS] [-b BYTES] [-w USEC]
 *
 * Two ranks. Each round, rank 1 says "go" (an empty message), rank 0 times
 * BATCH sends of BYTES (default 8) back to back (a shared-memory ring holds
 * them all: no send waits), while rank 1 waits USEC microseconds (default
 * 50), enough for all of them to arrive, then times BATCH receives of
 * messages already there. Time is clock_gettime(CLOCK_MONOTONIC) around
 * each batch, the same code for every library. Output on rank 0, ns per
 * call over ROUNDS rounds (default 2000):
 *
 *   send BYTES MIN MEDIAN
 *   recv BYTES MIN MEDIAN
 *
 * The minimum is what the code costs; the median shows how noisy the run
 * was. A receive still pays for reading lines the other core wrote, and a
 * send for taking lines the other core read: both the same for every front
 * of one library. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rank, size, batch = 32, rounds = 2000, bytes = 8, wait_us = 50;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i + 1 < argc; i += 2) {
        int v = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "-n"))
            batch = v;
        else if (!strcmp(argv[i], "-k"))
            rounds = v;
        else if (!strcmp(argv[i], "-b"))
            bytes = v;
        else if (!strcmp(argv[i], "-w"))
            wait_us = v;
        else
            batch = 0;
    }
    if (size != 2 || batch < 1 || batch > 1024 || rounds < 1 || bytes < 0 || bytes > 1024 || wait_us < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: callcost [-n BATCH<=1024] [-k ROUNDS] [-b BYTES<=1024] [-w USEC], 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm pair;
    MPI_Comm_dup(MPI_COMM_WORLD, &pair);
    char *buf = calloc((size_t)batch, (size_t)bytes + 1);
    double *t = malloc(sizeof(double) * (size_t)rounds);
    if (!buf || !t)
        MPI_Abort(MPI_COMM_WORLD, 2);
    /* Warm up the lane (the communicator registers on first use). */
    for (int i = 0; i < 100; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 1, pair);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, pair, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, pair, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 1, pair);
        }
    }
    for (int k = 0; k < rounds; k++) {
        if (rank == 0) {
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, pair, MPI_STATUS_IGNORE);
            double t0 = now_ns();
            for (int i = 0; i < batch; i++)
                MPI_Send(buf + (size_t)i * bytes, bytes, MPI_BYTE, 1, 1, pair);
            t[k] = (now_ns() - t0) / batch;
        } else {
            MPI_Send(NULL, 0, MPI_BYTE, 0, 2, pair);
            double until = now_ns() + wait_us * 1e3;
            while (now_ns() < until)
                ;
            double t0 = now_ns();
            for (int i = 0; i < batch; i++)
                MPI_Recv(buf + (size_t)i * bytes, bytes, MPI_BYTE, 0, 1, pair, MPI_STATUS_IGNORE);
            t[k] = (now_ns() - t0) / batch;
        }
    }
    qsort(t, (size_t)rounds, sizeof *t, cmp);
    double mine[2] = {t[0], t[rounds / 2]}, other[2];
    if (rank == 1)
        MPI_Send(mine, 2, MPI_DOUBLE, 0, 3, pair);
    else {
        MPI_Recv(other, 2, MPI_DOUBLE, 1, 3, pair, MPI_STATUS_IGNORE);
        printf("send %d %.1f %.1f\n", bytes, mine[0], mine[1]);
        printf("recv %d %.1f %.1f\n", bytes, other[0], other[1]);
    }
    MPI_Comm_free(&pair);
    free(buf);
    free(t);
    MPI_Finalize();
    return 0;
}
