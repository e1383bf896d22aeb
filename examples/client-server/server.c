/* server: accepts viewers one after another and streams each a few frames
 * of a (toy) simulation. Rank 0 opens a port, prints it, writes it to the
 * file given as argv[1] (if any) and publishes it as "gmpi-viz"; every
 * rank of the server job takes part in each accept. A viewer that dies
 * mid-stream is reported and the server waits for the next one.
 *
 *   mpirun -n 2 ./server port.txt [NVIEWERS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define FRAMES 5
#define CELLS 1024

int main(int argc, char **argv)
{
    int rank, size;
    char port[MPI_MAX_PORT_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nviewers = argc > 2 ? atoi(argv[2]) : 3;
    if (rank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        printf("server: port %s\n", port);
        fflush(stdout);
        MPI_Publish_name("gmpi-viz", MPI_INFO_NULL, port);
        if (argc > 1) {
            FILE *f = fopen(argv[1], "w");
            fprintf(f, "%s\n", port);
            fclose(f);
        }
    }
    double field[CELLS];
    for (int v = 0; v < nviewers; v++) {
        MPI_Comm viewer;
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &viewer);
        MPI_Comm_set_errhandler(viewer, MPI_ERRORS_RETURN);
        int ok = 1;
        for (int t = 0; t < FRAMES && ok; t++) {
            for (int i = 0; i < CELLS; i++)
                field[i] = rank * CELLS + i + t * 0.5;
            /* Every server rank sends its part of the field to viewer rank 0. */
            ok = MPI_Send(field, CELLS, MPI_DOUBLE, 0, t, viewer) == MPI_SUCCESS;
        }
        if (rank == 0)
            printf("server: viewer %d %s\n", v, ok ? "served" : "lost");
        if (ok)
            MPI_Comm_disconnect(&viewer);
        else
            MPI_Comm_free(&viewer);
    }
    if (rank == 0) {
        MPI_Unpublish_name("gmpi-viz", MPI_INFO_NULL, port);
        MPI_Close_port(port);
    }
    MPI_Finalize();
    return 0;
}
