/* vmpi.c: MPICH-G2's three cases of small-message latency between ranks 0
 * and 1, plus bandwidth, for the vMPI comparison (bench/vmpi.sh). The same
 * source is built with gmpi's mpicc (ranks 0-1 on a vendor MPI machine,
 * rank 2, if any, on a TCP host) and with the vendor's own mpicc (the
 * vendor alone, 2 ranks).
 *
 *   specified          MPI_Recv from the partner, nothing else pending
 *   specified-pending  the same while an MPI_Irecv (tag 999) from another
 *                      process (rank 2, else the partner) stays pending
 *   multimethod        MPI_Recv from MPI_ANY_SOURCE (with a TCP peer in
 *                      the gmpi job, any method may deliver)
 *   bandwidth          ping-pong of BW_BYTES, MB/s (10^6 bytes/s), ITERS/100+50
 *                      round trips
 *
 * Each latency case is reported averaged over the run and, as CASE/batch,
 * as the best average of a batch of BATCH round trips (a loaded machine
 * deschedules one rank now and then; the batch shows the path's cost).
 *
 * usage: vmpi [ITERS] ; prints "case value unit" lines from rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL 8
#define BW_BYTES (4 << 20)

/* pingpong returns the one-way time averaged over the whole run, and in
 * *best the best average over a batch of BATCH round trips (on a loaded
 * machine, the time when both ranks had a core). */
#define BATCH 100
static double pingpong(int me, int peer, int src, int bytes, int iters, char *buf, double *best) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = 0, tb = 0;
    *best = 1e30;
    for (int i = -iters / 10 - 1; i < iters; i++) { /* warm-up first */
        if (i == 0)
            t0 = tb = MPI_Wtime();
        if (me == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
        if (i >= 0 && (i + 1) % BATCH == 0) {
            double t = MPI_Wtime();
            if ((t - tb) / BATCH / 2 < *best)
                *best = (t - tb) / BATCH / 2;
            tb = t;
        }
    }
    double all = (MPI_Wtime() - t0) / iters / 2; /* one way */
    if (*best > all)
        *best = all;
    return all;
}

int main(int argc, char **argv) {
    int me, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    char *buf = malloc(BW_BYTES);
    memset(buf, 1, BW_BYTES);
    if (me <= 1 && size >= 2) {
        int peer = 1 - me;
        double bspec, bpending, bmulti, bbw;
        double spec = pingpong(me, peer, peer, SMALL, iters, buf, &bspec);
        int other = size > 2 ? 2 : peer, dummy;
        MPI_Request pend;
        MPI_Irecv(&dummy, 1, MPI_INT, other, 999, MPI_COMM_WORLD, &pend);
        double pending = pingpong(me, peer, peer, SMALL, iters, buf, &bpending);
        double multi = pingpong(me, peer, MPI_ANY_SOURCE, SMALL, iters, buf, &bmulti);
        double bw = pingpong(me, peer, peer, BW_BYTES, iters / 100 + 50, buf, &bbw);
        (void)bbw; /* a batch of BATCH 4 MiB round trips is most of the run */
        if (size == 2) {
            int one = 1;
            MPI_Send(&one, 1, MPI_INT, peer, 999, MPI_COMM_WORLD);
        }
        MPI_Wait(&pend, MPI_STATUS_IGNORE);
        if (me == 0) {
            printf("specified %.3f us\n", spec * 1e6);
            printf("specified-pending %.3f us\n", pending * 1e6);
            printf("multimethod %.3f us\n", multi * 1e6);
            printf("specified/batch %.3f us\n", bspec * 1e6);
            printf("specified-pending/batch %.3f us\n", bpending * 1e6);
            printf("multimethod/batch %.3f us\n", bmulti * 1e6);
            printf("bandwidth %.1f MB/s\n", BW_BYTES / bw / 1e6);
        }
    } else {
        for (int k = 0; k < 4; k++) /* the four pingpong barriers */
            MPI_Barrier(MPI_COMM_WORLD);
        if (me == 2) {
            int one = 1;
            MPI_Send(&one, 1, MPI_INT, 0, 999, MPI_COMM_WORLD);
            MPI_Send(&one, 1, MPI_INT, 1, 999, MPI_COMM_WORLD);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
