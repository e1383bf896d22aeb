/* abort: rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while the other ranks
 * block in a receive that no one will match. Run by
 * tests/scripts/abort.sh, which expects the job to end quickly with a
 * non-zero status (7 ideally) and a message naming rank 1. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, buf;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "abort needs at least 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        /* Print nothing naming the rank: the script looks for the
         * launcher's message. */
        printf("calling MPI_Abort(MPI_COMM_WORLD, 7)\n");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 7);
        fprintf(stderr, "abort: MPI_Abort returned\n");
        return 5;
    }
    MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "abort: rank %d received a message that was never sent\n", rank);
    return 4;
}
