/* dyn.c: the cost of dynamic processes, for bench/dyn.sh. Plain MPI, built
 * against each implementation.
 *
 *   dyn connect N     (2 processes) rank 0 opens a port and accepts on
 *                     MPI_COMM_SELF, rank 1 connects to it (the port name
 *                     travels over MPI_COMM_WORLD); each round is one
 *                     accept/connect, one message each way over the new
 *                     intercommunicator, and MPI_Comm_disconnect. Prints
 *                     "connect US" (the median round, microseconds, at rank 1)
 *   dyn spawn K N     (1 process) N rounds of MPI_Comm_spawn of K copies of
 *                     this program, which reply once through the parent
 *                     intercommunicator and disconnect; prints "spawn K US"
 *                     (the median round: spawn, the reply, disconnect)
 * Output: one line, then " No Errors" when every check passed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n)
{
    qsort(t, n, sizeof *t, cmp);
    return t[n / 2];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            MPI_Send(&rank, 1, MPI_INT, 0, 1, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    int rank, size, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc >= 3 && strcmp(argv[1], "connect") == 0 && size == 2) {
        int n = atoi(argv[2]);
        double *t = calloc(n, sizeof *t);
        char port[MPI_MAX_PORT_NAME] = "";
        if (rank == 0)
            MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            MPI_Comm inter;
            int v = i, w = -1;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
                MPI_Recv(&w, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
                MPI_Send(&w, 1, MPI_INT, 0, 0, inter);
            } else {
                MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
                MPI_Send(&v, 1, MPI_INT, 0, 0, inter);
                MPI_Recv(&w, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
            }
            MPI_Comm_disconnect(&inter);
            t[i] = (MPI_Wtime() - t0) * 1e6;
            if (w != i)
                errs++;
        }
        if (rank == 0)
            MPI_Close_port(port);
        if (rank == 1)
            printf("connect %.1f\n", median(t, n));
        MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        free(t);
    } else if (argc >= 4 && strcmp(argv[1], "spawn") == 0 && size == 1) {
        int k = atoi(argv[2]), n = atoi(argv[3]);
        double *t = calloc(n, sizeof *t);
        int *codes = calloc(k, sizeof *codes);
        for (int i = 0; i < n; i++) {
            MPI_Comm inter;
            int v = -1;
            double t0 = MPI_Wtime();
            MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, k, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, codes);
            MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
            MPI_Comm_disconnect(&inter);
            t[i] = (MPI_Wtime() - t0) * 1e6;
            for (int c = 0; c < k; c++)
                errs += codes[c] != MPI_SUCCESS;
            errs += v != 0;
        }
        printf("spawn %d %.1f\n", k, median(t, n));
        free(t);
        free(codes);
    } else {
        if (rank == 0)
            fprintf(stderr, "usage: dyn connect N (2 processes) | dyn spawn K N (1 process)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0 && errs == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errs != 0;
}
