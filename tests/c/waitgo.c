/* waitgo: a job that exchanges messages, then waits for the file
 * <dir>/go (at most 100 s), then exchanges and checks more messages
 * (eager and rendezvous, both ways) and a collective. Every rank writes
 * its pid to <dir>/rank<N>.pid once the first exchange is done (so its
 * connections exist). tests/scripts/tcp_refuse.sh attacks the ranks'
 * listening sockets while they wait. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIG (1 << 20)

static int exchange(int rank, int size, int round)
{
    int errs = 0, n, i, peer = (rank + 1) % size, from = (rank + size - 1) % size;
    int *out = malloc(BIG * sizeof(int)), *in = malloc(BIG * sizeof(int));
    MPI_Request r;
    for (n = 1; n <= BIG; n *= 64) {
        for (i = 0; i < n; i++)
            out[i] = rank * 1000003 + i + round;
        MPI_Irecv(in, n, MPI_INT, from, n, MPI_COMM_WORLD, &r);
        MPI_Send(out, n, MPI_INT, peer, n, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (i = 0; i < n; i++)
            if (in[i] != from * 1000003 + i + round) {
                errs++;
                break;
            }
    }
    free(out);
    free(in);
    return errs;
}

int main(int argc, char **argv)
{
    int rank, size, errs = 0, go = 0, sum = 0, t;
    char path[4096];
    FILE *f;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        fprintf(stderr, "usage: waitgo DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    errs += exchange(rank, size, 1);
    snprintf(path, sizeof path, "%s/rank%d.pid", argv[1], rank);
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
    if (rank == 0) {
        snprintf(path, sizeof path, "%s/go", argv[1]);
        for (t = 0; t < 2000 && !go; t++) {
            go = access(path, F_OK) == 0;
            if (!go)
                usleep(50000);
        }
    }
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!go) {
        fprintf(stderr, "waitgo: no go file\n");
        errs++;
    }
    errs += exchange(rank, size, 2);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2)
        errs++;
    MTest_Finalize(errs);
    return 0;
}
