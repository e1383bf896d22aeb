/* cpi: the classic computation of pi by the midpoint rule, with the
 * intervals spread over the ranks; MPI_Bcast sends n and MPI_Reduce sums
 * the parts. Checks the result against M_PI. */
#include "mtest.h"

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static double f(double a)
{
    return 4.0 / (1.0 + a * a);
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size, n = 0, i, namelen;
    double mypi, pi = 0, h, sum, x, t0 = 0;
    char name[MPI_MAX_PROCESSOR_NAME];

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &namelen);
    fprintf(stderr, "Process %d of %d is on %s\n", rank, size, name);

    if (rank == 0) {
        n = 1000000;
        t0 = MPI_Wtime();
    }
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MTEST_CHECK(errs, n == 1000000, "n after MPI_Bcast is %d", n);

    h = 1.0 / (double)n;
    sum = 0.0;
    for (i = rank + 1; i <= n; i += size) {
        x = h * ((double)i - 0.5);
        sum += f(x);
    }
    mypi = h * sum;

    MPI_Reduce(&mypi, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double err = fabs(pi - M_PI);
        printf("pi is approximately %.16f, Error is %.16f\n", pi, err);
        printf("wall clock time = %f\n", MPI_Wtime() - t0);
        fflush(stdout);
        MTEST_CHECK(errs, err < 1e-12, "pi = %.16f, error %g", pi, err);
    }

    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
