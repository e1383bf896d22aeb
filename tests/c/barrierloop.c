/* barrierloop SECONDS: barriers and a ring exchange in a loop for at most
 * SECONDS, then " No Errors". tests/scripts/grid_emulate.sh cuts a site
 * off mid-loop and expects the job to end early, naming the lost host. */
#include "mtest.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, iter = 0, errs = 0;
    double limit, t0;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    limit = argc > 1 ? atof(argv[1]) : 5.0;
    t0 = MPI_Wtime();
    for (;;) {
        int go, out = rank, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT,
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in != (rank + size - 1) % size) {
            fprintf(stderr, "rank %d: ring got %d\n", rank, in);
            errs++;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        /* Rank 0's clock decides, so every rank stops after the same
         * iteration. */
        go = rank == 0 ? MPI_Wtime() - t0 < limit : 0;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
        iter++;
        if (!go)
            break;
    }
    if (rank == 0)
        printf("barrierloop: %d iterations\n", iter);
    MTest_Finalize(errs);
    return 0;
}
