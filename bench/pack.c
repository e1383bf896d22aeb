/* pack.c: MPI_Pack/MPI_Unpack throughput of derived datatypes, run as a
 * single process. Types: a vector of N doubles with stride 2 (one strided
 * loop), a vector of N/4 blocks of 4 doubles (stride 8), and an indexed
 * type of N/4 blocks of irregular length 1..7 ints at irregular
 * displacements. Prints one line per (type, direction): name, bytes of
 * data, best time and MB/s. bench/pack.sh builds this against gmpi and
 * MPICH and prints the ratios. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)
#define REPS 20

static double best(int unpack, void *mem, MPI_Datatype t, char *buf, int bytes)
{
    double b = 1e30;
    for (int r = 0; r < REPS; r++) {
        int pos = 0;
        double t0 = MPI_Wtime();
        if (unpack)
            MPI_Unpack(buf, bytes, &pos, mem, 1, t, MPI_COMM_WORLD);
        else
            MPI_Pack(mem, 1, t, buf, bytes, &pos, MPI_COMM_WORLD);
        double dt = MPI_Wtime() - t0;
        if (pos != bytes) {
            fprintf(stderr, "position %d, want %d\n", pos, bytes);
            exit(1);
        }
        if (dt < b)
            b = dt;
    }
    return b;
}

static void run(const char *name, void *mem, MPI_Datatype t)
{
    int size;
    MPI_Type_commit(&t);
    MPI_Type_size(t, &size);
    char *buf = malloc(size);
    double p = best(0, mem, t, buf, size);
    double u = best(1, mem, t, buf, size);
    printf("%-16s pack   %10d %10.6f s %10.1f MB/s\n", name, size, p, size / p / 1e6);
    printf("%-16s unpack %10d %10.6f s %10.1f MB/s\n", name, size, u, size / u / 1e6);
    free(buf);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double *d = calloc(8 * (size_t)N, sizeof(double));
    MPI_Datatype t;
    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &t);
    run("vector-1x8B", d, t);
    MPI_Type_vector(N / 4, 4, 8, MPI_DOUBLE, &t);
    run("vector-4x8B", d, t);
    int n = N / 4, *bl = malloc(n * sizeof(int)), *disp = malloc(n * sizeof(int));
    srand(1);
    for (int i = 0, at = 0; i < n; i++) {
        bl[i] = 1 + rand() % 7;
        disp[i] = at;
        at += bl[i] + 1 + rand() % 5;
    }
    MPI_Type_indexed(n, bl, disp, MPI_INT, &t);
    run("indexed-int", d, t);
    free(bl);
    free(disp);
    free(d);
    MPI_Finalize();
    return 0;
}
