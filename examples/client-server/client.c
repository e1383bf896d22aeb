/* client: a viewer. It finds the server by the port name in argv[1] (a
 * file written by the server) or, without argument, by the published
 * name "gmpi-viz", connects, receives FRAMES frames from every server
 * rank and prints a checksum of each.
 *
 *   mpirun -n 1 ./client [port.txt] */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define FRAMES 5
#define CELLS 1024

int main(int argc, char **argv)
{
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Init(&argc, &argv);
    if (argc > 1) {
        FILE *f = fopen(argv[1], "r");
        if (!f || !fgets(port, sizeof port, f)) {
            fprintf(stderr, "client: cannot read %s\n", argv[1]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        fclose(f);
        port[strcspn(port, "\n")] = 0;
    } else {
        MPI_Lookup_name("gmpi-viz", MPI_INFO_NULL, port);
    }
    MPI_Comm server;
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &server);
    int nserver;
    MPI_Comm_remote_size(server, &nserver);
    double field[CELLS];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int t = 0; t < FRAMES && rank == 0; t++) {
        double sum = 0;
        for (int r = 0; r < nserver; r++) {
            MPI_Recv(field, CELLS, MPI_DOUBLE, r, t, server, MPI_STATUS_IGNORE);
            for (int i = 0; i < CELLS; i++)
                sum += field[i];
        }
        printf("client: frame %d checksum %.1f\n", t, sum);
    }
    MPI_Comm_disconnect(&server);
    MPI_Finalize();
    return 0;
}
