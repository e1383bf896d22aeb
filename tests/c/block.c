/* block: every rank writes its pid to <dir>/rank<N>.pid and then blocks
 * forever in MPI_Recv. tests/scripts/kill.sh kills one rank with SIGKILL
 * and checks that the launcher ends the rest and cleans up. */
#include "mtest.h"

#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, buf;
    char path[4096];
    FILE *f;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2) {
        fprintf(stderr, "usage: block DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Every rank is up (and has its transports set up) before any pid
     * file appears. */
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/rank%d.pid.tmp", argv[1], rank);
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
    {
        char final[4096];
        snprintf(final, sizeof final, "%s/rank%d.pid", argv[1], rank);
        rename(path, final);
    }
    MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 777, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "block: rank %d received a message that was never sent\n", rank);
    return 4;
}
