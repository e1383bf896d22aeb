/* errfatal: under the default MPI_ERRORS_ARE_FATAL, a send to a rank that
 * does not exist ends the whole job. Rank 0 makes the bad call; the other
 * ranks wait for a message that never comes, so the launcher has to end
 * them. Run by tests/scripts/errfatal.sh, which expects a non-zero exit
 * and an error message naming MPI_Send. Printing " No Errors" would mean
 * the error was ignored. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, buf = 1;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Send(&buf, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD);
        fprintf(stderr, "errfatal: MPI_Send to rank %d returned; the error was not fatal\n",
                size + 1);
        return 3;
    }
    MPI_Recv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "errfatal: rank %d received a message that was never sent\n", rank);
    return 4;
}
