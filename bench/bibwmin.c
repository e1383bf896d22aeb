/* bibwmin.c: bidirectional (and one-way) bandwidth as the min and median
 * of many short timed windows, for A/B of two builds on a loaded machine
 * (the best window is one that ran while the two ranks had their cores).
 *
 *   mpirun -n 2 bibwmin [-n WINDOWS] [-w WINDOW] [-u] [-f] SIZE...
 *
 * Per SIZE: WINDOWS (default 200) windows, each after a barrier; in a
 * window both ranks post WINDOW (default 64, fewer for large sizes as in
 * mpibench.c: at most 16 MiB of receive buffers) receives and as many
 * sends of SIZE bytes and wait for all (-u: rank 0 sends, rank 1
 * receives and acknowledges with an empty message). By default every send
 * of a window sends the same buffer, as mpibench.c does; with -f each has
 * its own, rewritten before each window (outside the timed region), so
 * the data is fresh in the sender's cache as an application's would be.
 * Prints, on rank 0,
 *
 *   bibw SIZE BEST_MBS MEDIAN_MBS      (bw with -u)
 *
 * MB is 10^6 bytes; bibw counts both directions. The received bytes are
 * checked after the last window. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXWINDOW 64

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rank, np, nwin = 200, window = MAXWINDOW, uni = 0, fresh = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int first = 1;
    while (first < argc && argv[first][0] == '-') {
        if (!strcmp(argv[first], "-u")) {
            uni = 1;
            first++;
            continue;
        }
        if (!strcmp(argv[first], "-f")) {
            fresh = 1;
            first++;
            continue;
        }
        if (first + 1 >= argc)
            break;
        if (!strcmp(argv[first], "-n"))
            nwin = atoi(argv[first + 1]);
        else if (!strcmp(argv[first], "-w"))
            window = atoi(argv[first + 1]);
        first += 2;
    }
    if (np != 2 || nwin < 1 || window < 1 || window > MAXWINDOW || first >= argc) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -n 2 bibwmin [-n WINDOWS] [-w WINDOW] [-u] SIZE...\n");
        MPI_Finalize();
        return 2;
    }
    int peer = 1 - rank;
    double *t = malloc(sizeof(double) * nwin);
    for (int a = first; a < argc; a++) {
        long n = atol(argv[a]);
        int w = window;
        while (w > 1 && n * w > (16L << 20))
            w /= 2;
        char *sbuf = NULL, *rbuf = NULL;
        long sstride = fresh ? n : 0;
        if (n < 1 || posix_memalign((void **)&sbuf, 4096, fresh ? n * w : n) ||
            posix_memalign((void **)&rbuf, 4096, n * w))
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (long i = 0; i < n; i++)
            sbuf[i] = (char)(i * 7 + rank + 1);
        for (int k = 1; fresh && k < w; k++)
            memcpy(sbuf + k * n, sbuf, n);
        memset(rbuf, 0, n * w);
        MPI_Request req[2 * MAXWINDOW];
        for (int it = -nwin / 10 - 1; it < nwin; it++) {
            if (fresh) /* the same bytes, newly written */
                for (int k = 0; k < w; k++)
                    for (long i = 0; i < n; i += 64)
                        ((volatile char *)sbuf)[k * n + i] = (char)(i * 7 + rank + 1);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (!uni) {
                for (int k = 0; k < w; k++)
                    MPI_Irecv(rbuf + k * n, (int)n, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &req[k]);
                for (int k = 0; k < w; k++)
                    MPI_Isend(sbuf + k * sstride, (int)n, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &req[w + k]);
                MPI_Waitall(2 * w, req, MPI_STATUSES_IGNORE);
            } else if (rank == 0) {
                for (int k = 0; k < w; k++)
                    MPI_Isend(sbuf + k * sstride, (int)n, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &req[k]);
                MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
                MPI_Recv(NULL, 0, MPI_BYTE, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                for (int k = 0; k < w; k++)
                    MPI_Irecv(rbuf + k * n, (int)n, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &req[k]);
                MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
                MPI_Send(NULL, 0, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
            }
            if (it >= 0)
                t[it] = MPI_Wtime() - t0;
        }
        if (!uni || rank == 1)
            for (int k = 0; k < w; k++)
                for (long i = 0; i < n; i++)
                    if (rbuf[k * n + i] != (char)(i * 7 + peer + 1)) {
                        fprintf(stderr, "bibwmin: rank %d: size %ld message %d byte %ld wrong\n", rank, n, k, i);
                        MPI_Abort(MPI_COMM_WORLD, 1);
                    }
        qsort(t, nwin, sizeof(double), cmp);
        double bytes = (uni ? 1.0 : 2.0) * n * w;
        if (rank == 0)
            printf("%s %ld %.0f %.0f\n", uni ? "bw" : "bibw", n, bytes / t[0] / 1e6, bytes / t[nwin / 2] / 1e6);
        free(sbuf);
        free(rbuf);
    }
    free(t);
    MPI_Finalize();
    return 0;
}
