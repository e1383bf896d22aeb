/* errfatal: under the default MPI_ERRORS_ARE_FATAL, a send to a rank that
 * does not exist ends the whole job. Rank 0 makes the bad call; the other
 * ranks wait for a message that never comes, so the launcher has to end
 * them. Run by tests/scripts/errfatal.sh, which expects a non-zero exit
 * and an error message naming MPI_Send. Printing " No Errors" would mean
 * the error was ignored. With the argument "abort" the same is checked
 * for MPI_ERRORS_ABORT set on a communicator (see below). */
#include "mtest.h"
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, buf = 1;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 1 && strcmp(argv[1], "abort") == 0) {
        /* "errfatal abort": MPI_ERRORS_ABORT on a duplicate of the world
         * (whose own handler returns) ends the job at a bad MPI_Comm_split_type
         * on the duplicate (split_type 12345; MPI_Comm_split takes any
         * negative colour, as MPICH does). */
        MPI_Comm dup, bad;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_ABORT);
        if (rank == 0) {
            MPI_Comm_split_type(dup, 12345, 0, MPI_INFO_NULL, &bad);
            fprintf(stderr, "errfatal: MPI_Comm_split_type returned; the error was not fatal\n");
            return 3;
        }
        MPI_Recv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fprintf(stderr, "errfatal: rank %d received a message that was never sent\n", rank);
        return 4;
    }
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
