/* io.c: MPI-IO bandwidth, the same program for gmpi, MPICH (ROMIO) and
 * Open MPI (OMPIO). usage: io DIR [MiB]   (default 256 MiB)
 *
 * Prints one line per measurement: "name MB/s bytes", the best of
 * three repetitions, each timed from a barrier to the slowest process's
 * end (the file is closed by neither; page cache warm after the first):
 *   coll_write / coll_read   block-distributed 3-D array of doubles with
 *                            subarray views, write_all / read_all
 *   indep_write / indep_read 1 KiB blocks interleaved among the processes
 *                            (vector view), independent write / read
 *   ordered_write            write_ordered of 1 MiB per process per call */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, np;

static double timed(void (*body)(MPI_File, void *, long), MPI_File fh, void *buf, long n)
{
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        body(fh, buf, n);
        t = MPI_Wtime() - t;
        double slow;
        MPI_Allreduce(&t, &slow, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (slow < best)
            best = slow;
    }
    return best;
}

static void coll_write(MPI_File fh, void *buf, long n) { MPI_File_write_at_all(fh, 0, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE); }
static void coll_read(MPI_File fh, void *buf, long n) { MPI_File_read_at_all(fh, 0, buf, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE); }
static void indep_write(MPI_File fh, void *buf, long n) { MPI_File_write_at(fh, 0, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE); }
static void indep_read(MPI_File fh, void *buf, long n) { MPI_File_read_at(fh, 0, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE); }
static void ordered_write(MPI_File fh, void *buf, long n)
{
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    for (int i = 0; i < 16; i++)
        MPI_File_write_ordered(fh, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
}

static void report(const char *name, double t, double bytes)
{
    if (rank == 0)
        printf("%s %.1f %.0f\n", name, bytes / t / 1e6, bytes);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: io DIR [MiB]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long mib = argc > 2 ? atol(argv[2]) : 256;
    char path[4096];
    snprintf(path, sizeof path, "%s/io.bench", argv[1]);
    MPI_File fh;

    /* 3-D array: gsizes[0] * 256 * 256 doubles = mib MiB. */
    int gsizes[3] = {(int)(mib * 1024 * 1024 / 8 / 256 / 256), 256, 256};
    int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3], lsizes[3], starts[3];
    MPI_Dims_create(np, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 3, coords);
    long local = 1;
    for (int d = 0; d < 3; d++) {
        lsizes[d] = gsizes[d] / dims[d];
        starts[d] = coords[d] * lsizes[d];
        if (coords[d] == dims[d] - 1)
            lsizes[d] = gsizes[d] - starts[d];
        local *= lsizes[d];
    }
    MPI_Datatype sub;
    MPI_Type_create_subarray(3, gsizes, lsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &sub);
    MPI_Type_commit(&sub);
    double *a = malloc(local * sizeof(double));
    for (long i = 0; i < local; i++)
        a[i] = rank + i * 1e-9;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, sub, "native", MPI_INFO_NULL);
    double total = (double)gsizes[0] * gsizes[1] * gsizes[2] * 8;
    report("coll_write", timed(coll_write, fh, a, local), total);
    report("coll_read", timed(coll_read, fh, a, local), total);
    MPI_File_close(&fh);
    free(a);

    /* Interleaved 1 KiB blocks, a quarter of the size. */
    long per = mib * 1024 * 1024 / 4 / np;
    MPI_Datatype blk, vec;
    MPI_Type_contiguous(1024, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, 1024L * np, &vec);
    MPI_Type_commit(&vec);
    char *b = malloc(per);
    memset(b, rank, per);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 1024L * rank, MPI_BYTE, vec, "native", MPI_INFO_NULL);
    report("indep_write", timed(indep_write, fh, b, per), (double)per * np);
    report("indep_read", timed(indep_read, fh, b, per), (double)per * np);
    MPI_File_close(&fh);

    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    report("ordered_write", timed(ordered_write, fh, b, 1 << 20), 16.0 * (1 << 20) * np);
    MPI_File_close(&fh);
    free(b);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Finalize();
    return 0;
}
