/* Tiny MPI program for the MPICH interoperability test: built with
 * mpicc.mpich and run under gmpi's mpirun, whose PMI-1 server MPICH's
 * library must accept. Rank ABORT_RANK (argv[1], if given) calls
 * MPI_Abort(MPI_COMM_WORLD, 3). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && rank == atoi(argv[1]))
        MPI_Abort(MPI_COMM_WORLD, 3);
    sum = rank;
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (argc > 1)
        sleep(30);
    printf("hello %d of %d sum %d\n", rank, size, sum);
    MPI_Finalize();
    return 0;
}
