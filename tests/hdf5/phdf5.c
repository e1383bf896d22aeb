/* phdf5.c: a parallel-HDF5 program as scientists write one (built against
 * Debian's libhdf5-mpich-dev, run on gmpi by tests/scripts/hdf5.sh).
 *
 * It creates a file through the MPI-IO driver, then writes
 *   "rows":    a 2-D int dataset, each rank a block of rows (collective
 *              hyperslab write),
 *   "strided": a 1-D double dataset, rank r every size-th element from r
 *              (independent hyperslab write),
 *   "chunked": a 2-D chunked (4 x 5) int64 dataset, each rank a block of
 *              columns, so every rank touches every chunk (collective),
 *   "grow":    a chunked extendible dataset grown by H5Dset_extent and
 *              written past its first size (collective),
 * a file attribute (string) and dataset attributes (int array, double);
 * then reopens the file read-only and checks every value: the whole of each
 * dataset on every rank (independent) and each rank's own part again
 * (collective). It does all of that twice: with HDF5's defaults, then
 * with collective metadata reads and writes (H5Pset_all_coll_metadata_ops,
 * H5Pset_coll_metadata_write) and MPI-IO hints passed through the file
 * access property list. It prints " No Errors" when all is right.
 *
 * argv[1]: the file to create (removed at the end). */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, rank, size, pass;

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            if (errs++ < 20) {                                                                     \
                fprintf(stderr, "rank %d (pass %d): %s:%d: ", rank, pass, __FILE__, __LINE__);     \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)
/* An HDF5 call that must succeed (negative is failure). */
#define H(call)                                                                                    \
    ({                                                                                             \
        __typeof__(call) _r = (call);                                                              \
        if (_r < 0) {                                                                              \
            fprintf(stderr, "rank %d: %s:%d: %s failed\n", rank, __FILE__, __LINE__, #call);       \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                          \
        }                                                                                          \
        _r;                                                                                        \
    })

enum { RROWS = 5, COLS = 12, SPER = 7, CROWS = 9, CCOLS = 6, GROWS = 3 };

static int rows_val(int i, int j) { return 1000 * i + j; }
static double strided_val(int k) { return 0.5 * k - 3.0; }
static long long chunked_val(int i, int j) { return 100000LL * i + 7 * j + 1; }
static int grow_val(int i, int j) { return -(i * 31 + j); }

/* The file access properties of this pass. */
static hid_t fapl_for_pass(void)
{
    hid_t fapl = H(H5Pcreate(H5P_FILE_ACCESS));
    if (pass == 0) {
        H(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
        return fapl;
    }
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1024");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "automatic");
    H(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info));
    MPI_Info_free(&info);
    H(H5Pset_all_coll_metadata_ops(fapl, 1));
    H(H5Pset_coll_metadata_write(fapl, 1));
    return fapl;
}

static hid_t xfer(H5FD_mpio_xfer_t mode)
{
    hid_t p = H(H5Pcreate(H5P_DATASET_XFER));
    H(H5Pset_dxpl_mpio(p, mode));
    return p;
}

static void write_file(const char *name)
{
    hid_t fapl = fapl_for_pass();
    hid_t f = H(H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    H(H5Pclose(fapl));
    hid_t coll = xfer(H5FD_MPIO_COLLECTIVE), ind = xfer(H5FD_MPIO_INDEPENDENT);

    /* rows: block of RROWS rows per rank, collective. */
    hsize_t dims[2] = {(hsize_t)RROWS * size, COLS};
    hid_t fs = H(H5Screate_simple(2, dims, NULL));
    hid_t d = H(H5Dcreate2(f, "rows", H5T_NATIVE_INT, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    hsize_t start[2] = {(hsize_t)RROWS * rank, 0}, count[2] = {RROWS, COLS};
    H(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    hid_t ms = H(H5Screate_simple(2, count, NULL));
    int rbuf[RROWS][COLS];
    for (int i = 0; i < RROWS; i++)
        for (int j = 0; j < COLS; j++)
            rbuf[i][j] = rows_val(RROWS * rank + i, j);
    H(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, coll, rbuf));
    /* Dataset attributes: an int array and a double. */
    int units[3] = {7, 11, 13};
    hsize_t adim = 3;
    hid_t as = H(H5Screate_simple(1, &adim, NULL));
    hid_t a = H(H5Acreate2(d, "units", H5T_NATIVE_INT, as, H5P_DEFAULT, H5P_DEFAULT));
    H(H5Awrite(a, H5T_NATIVE_INT, units));
    H(H5Aclose(a));
    H(H5Sclose(as));
    as = H(H5Screate(H5S_SCALAR));
    double scale = 0.125;
    a = H(H5Acreate2(d, "scale", H5T_NATIVE_DOUBLE, as, H5P_DEFAULT, H5P_DEFAULT));
    H(H5Awrite(a, H5T_NATIVE_DOUBLE, &scale));
    H(H5Aclose(a));
    H(H5Sclose(as));
    H(H5Sclose(ms));
    H(H5Sclose(fs));
    H(H5Dclose(d));

    /* strided: rank r writes elements r, r+size, ... independently. */
    hsize_t n = (hsize_t)SPER * size;
    fs = H(H5Screate_simple(1, &n, NULL));
    d = H(H5Dcreate2(f, "strided", H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    hsize_t s0 = rank, stride = size, c0 = SPER;
    H(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &s0, &stride, &c0, NULL));
    ms = H(H5Screate_simple(1, &c0, NULL));
    double sbuf[SPER];
    for (int k = 0; k < SPER; k++)
        sbuf[k] = strided_val(rank + k * size);
    H(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, ind, sbuf));
    H(H5Sclose(ms));
    H(H5Sclose(fs));
    H(H5Dclose(d));

    /* chunked: CROWS x CCOLS*size, chunks 4 x 5, rank r has columns
     * [CCOLS*r, CCOLS*(r+1)). */
    hsize_t cd[2] = {CROWS, (hsize_t)CCOLS * size}, chunk[2] = {4, 5};
    fs = H(H5Screate_simple(2, cd, NULL));
    hid_t dcpl = H(H5Pcreate(H5P_DATASET_CREATE));
    H(H5Pset_chunk(dcpl, 2, chunk));
    d = H(H5Dcreate2(f, "chunked", H5T_NATIVE_LLONG, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    H(H5Pclose(dcpl));
    hsize_t cs[2] = {0, (hsize_t)CCOLS * rank}, cc[2] = {CROWS, CCOLS};
    H(H5Sselect_hyperslab(fs, H5S_SELECT_SET, cs, NULL, cc, NULL));
    ms = H(H5Screate_simple(2, cc, NULL));
    long long cbuf[CROWS][CCOLS];
    for (int i = 0; i < CROWS; i++)
        for (int j = 0; j < CCOLS; j++)
            cbuf[i][j] = chunked_val(i, CCOLS * rank + j);
    H(H5Dwrite(d, H5T_NATIVE_LLONG, ms, fs, coll, cbuf));
    H(H5Sclose(ms));
    H(H5Sclose(fs));
    H(H5Dclose(d));

    /* grow: starts at GROWS x size rows of 6, unlimited rows; extended to
     * twice that, and every rank writes its rows of both halves. */
    hsize_t g0[2] = {(hsize_t)GROWS * size, 6}, gmax[2] = {H5S_UNLIMITED, 6}, gch[2] = {2, 6};
    fs = H(H5Screate_simple(2, g0, gmax));
    dcpl = H(H5Pcreate(H5P_DATASET_CREATE));
    H(H5Pset_chunk(dcpl, 2, gch));
    d = H(H5Dcreate2(f, "grow", H5T_NATIVE_INT, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    H(H5Pclose(dcpl));
    H(H5Sclose(fs));
    hsize_t g1[2] = {2 * g0[0], 6};
    H(H5Dset_extent(d, g1));
    fs = H(H5Dget_space(d));
    hsize_t gs[2] = {(hsize_t)GROWS * rank, 0}, gc[2] = {GROWS, 6};
    H(H5Sselect_hyperslab(fs, H5S_SELECT_SET, gs, NULL, gc, NULL));
    gs[0] += g0[0];
    H(H5Sselect_hyperslab(fs, H5S_SELECT_OR, gs, NULL, gc, NULL));
    hsize_t gm = 2 * GROWS * 6;
    ms = H(H5Screate_simple(1, &gm, NULL));
    int gbuf[2 * GROWS * 6], k = 0;
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < GROWS; i++)
            for (int j = 0; j < 6; j++)
                gbuf[k++] = grow_val(h * (int)g0[0] + GROWS * rank + i, j);
    H(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, coll, gbuf));
    H(H5Sclose(ms));
    H(H5Sclose(fs));
    H(H5Dclose(d));

    /* sparse (second pass): a chunked dataset that only even ranks write,
     * collectively (the others select nothing), one chunk at a time
     * (H5FD_MPIO_CHUNK_MULTI_IO), under MPI atomic mode. */
    if (pass == 1) {
        H(H5Fset_mpi_atomicity(f, 1));
        hbool_t atomic = 0;
        H(H5Fget_mpi_atomicity(f, &atomic));
        CHECK(atomic, "MPI atomicity not in force after H5Fset_mpi_atomicity");
        hsize_t sn = 10 * (hsize_t)size, sch = 4;
        fs = H(H5Screate_simple(1, &sn, NULL));
        dcpl = H(H5Pcreate(H5P_DATASET_CREATE));
        H(H5Pset_chunk(dcpl, 1, &sch));
        d = H(H5Dcreate2(f, "sparse", H5T_NATIVE_INT, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT));
        H(H5Pclose(dcpl));
        hsize_t s1 = 10 * (hsize_t)rank, c1 = 10;
        int sp[10];
        for (int i = 0; i < 10; i++)
            sp[i] = rank * 10 + i + 1;
        ms = H(H5Screate_simple(1, &c1, NULL));
        if (rank % 2 == 0) {
            H(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &s1, NULL, &c1, NULL));
        } else {
            H(H5Sselect_none(fs));
            H(H5Sselect_none(ms));
        }
        hid_t multi = xfer(H5FD_MPIO_COLLECTIVE);
        H(H5Pset_dxpl_mpio_chunk_opt(multi, H5FD_MPIO_CHUNK_MULTI_IO));
        H(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, multi, sp));
        H(H5Pclose(multi));
        H(H5Sclose(ms));
        H(H5Sclose(fs));
        H(H5Dclose(d));
        H(H5Fset_mpi_atomicity(f, 0));
    }

    /* A file attribute (a fixed-length string). */
    const char *title = "gmpi parallel HDF5 check";
    hid_t st = H(H5Tcopy(H5T_C_S1));
    H(H5Tset_size(st, strlen(title) + 1));
    hid_t as2 = H(H5Screate(H5S_SCALAR));
    a = H(H5Acreate2(f, "title", st, as2, H5P_DEFAULT, H5P_DEFAULT));
    H(H5Awrite(a, st, title));
    H(H5Aclose(a));
    H(H5Sclose(as2));
    H(H5Tclose(st));

    H(H5Pclose(coll));
    H(H5Pclose(ind));
    H(H5Fflush(f, H5F_SCOPE_GLOBAL));
    H(H5Fclose(f));
}

static void read_file(const char *name)
{
    hid_t fapl = fapl_for_pass();
    hid_t f = H(H5Fopen(name, H5F_ACC_RDONLY, fapl));
    H(H5Pclose(fapl));
    hid_t coll = xfer(H5FD_MPIO_COLLECTIVE), ind = xfer(H5FD_MPIO_INDEPENDENT);

    /* File attribute. */
    hid_t a = H(H5Aopen(f, "title", H5P_DEFAULT));
    hid_t at = H(H5Aget_type(a));
    size_t tl = H5Tget_size(at);
    char title[64] = "";
    CHECK(tl > 0 && tl < sizeof title, "title attribute size %zu", tl);
    if (tl > 0 && tl < sizeof title) {
        H(H5Aread(a, at, title));
        CHECK(strcmp(title, "gmpi parallel HDF5 check") == 0, "title attribute: \"%s\"", title);
    }
    H(H5Tclose(at));
    H(H5Aclose(a));

    /* rows: all of it independently, then my block collectively. */
    hid_t d = H(H5Dopen2(f, "rows", H5P_DEFAULT));
    hid_t fs = H(H5Dget_space(d));
    hsize_t dims[2];
    CHECK(H5Sget_simple_extent_dims(fs, dims, NULL) == 2 && dims[0] == (hsize_t)RROWS * size &&
              dims[1] == COLS,
          "rows: extent %llu x %llu", (unsigned long long)dims[0], (unsigned long long)dims[1]);
    int *all = malloc(sizeof(int) * RROWS * size * COLS);
    H(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, ind, all));
    for (int i = 0; i < RROWS * size; i++)
        for (int j = 0; j < COLS; j++)
            CHECK(all[i * COLS + j] == rows_val(i, j), "rows[%d][%d] = %d, want %d", i, j,
                  all[i * COLS + j], rows_val(i, j));
    free(all);
    int mine[RROWS][COLS];
    memset(mine, 0, sizeof mine);
    hsize_t start[2] = {(hsize_t)RROWS * rank, 0}, count[2] = {RROWS, COLS};
    H(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    hid_t ms = H(H5Screate_simple(2, count, NULL));
    H(H5Dread(d, H5T_NATIVE_INT, ms, fs, coll, mine));
    for (int i = 0; i < RROWS; i++)
        for (int j = 0; j < COLS; j++)
            CHECK(mine[i][j] == rows_val(RROWS * rank + i, j), "rows (collective) [%d][%d] = %d",
                  RROWS * rank + i, j, mine[i][j]);
    H(H5Sclose(ms));
    H(H5Sclose(fs));
    int units[3] = {0};
    a = H(H5Aopen(d, "units", H5P_DEFAULT));
    H(H5Aread(a, H5T_NATIVE_INT, units));
    H(H5Aclose(a));
    CHECK(units[0] == 7 && units[1] == 11 && units[2] == 13, "units attribute: %d %d %d", units[0],
          units[1], units[2]);
    double scale = 0;
    a = H(H5Aopen(d, "scale", H5P_DEFAULT));
    H(H5Aread(a, H5T_NATIVE_DOUBLE, &scale));
    H(H5Aclose(a));
    CHECK(scale == 0.125, "scale attribute: %g", scale);
    H(H5Dclose(d));

    /* strided: all of it, then my elements collectively. */
    d = H(H5Dopen2(f, "strided", H5P_DEFAULT));
    int n = SPER * size;
    double *sv = malloc(sizeof(double) * n);
    H(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, ind, sv));
    for (int k = 0; k < n; k++)
        CHECK(sv[k] == strided_val(k), "strided[%d] = %g, want %g", k, sv[k], strided_val(k));
    free(sv);
    fs = H(H5Dget_space(d));
    hsize_t s0 = rank, stride = size, c0 = SPER;
    H(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &s0, &stride, &c0, NULL));
    ms = H(H5Screate_simple(1, &c0, NULL));
    double smine[SPER];
    H(H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, coll, smine));
    for (int k = 0; k < SPER; k++)
        CHECK(smine[k] == strided_val(rank + k * size), "strided (collective) [%d] = %g",
              rank + k * size, smine[k]);
    H(H5Sclose(ms));
    H(H5Sclose(fs));
    H(H5Dclose(d));

    /* chunked: all of it, then my columns collectively. */
    d = H(H5Dopen2(f, "chunked", H5P_DEFAULT));
    hid_t dcpl = H(H5Dget_create_plist(d));
    hsize_t chunk[2] = {0, 0};
    CHECK(H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 2, chunk) == 2 && chunk[0] == 4 &&
              chunk[1] == 5,
          "chunked: layout or chunk dims wrong (%llu x %llu)", (unsigned long long)chunk[0],
          (unsigned long long)chunk[1]);
    H(H5Pclose(dcpl));
    int w = CCOLS * size;
    long long *cv = malloc(sizeof(long long) * CROWS * w);
    H(H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, ind, cv));
    for (int i = 0; i < CROWS; i++)
        for (int j = 0; j < w; j++)
            CHECK(cv[i * w + j] == chunked_val(i, j), "chunked[%d][%d] = %lld, want %lld", i, j,
                  cv[i * w + j], chunked_val(i, j));
    free(cv);
    fs = H(H5Dget_space(d));
    hsize_t cs[2] = {0, (hsize_t)CCOLS * rank}, cc[2] = {CROWS, CCOLS};
    H(H5Sselect_hyperslab(fs, H5S_SELECT_SET, cs, NULL, cc, NULL));
    ms = H(H5Screate_simple(2, cc, NULL));
    long long cmine[CROWS][CCOLS];
    H(H5Dread(d, H5T_NATIVE_LLONG, ms, fs, coll, cmine));
    for (int i = 0; i < CROWS; i++)
        for (int j = 0; j < CCOLS; j++)
            CHECK(cmine[i][j] == chunked_val(i, CCOLS * rank + j), "chunked (collective) [%d][%d] = %lld",
                  i, CCOLS * rank + j, cmine[i][j]);
    H(H5Sclose(ms));
    H(H5Sclose(fs));
    H(H5Dclose(d));

    /* grow: the extended extent and all its rows. */
    d = H(H5Dopen2(f, "grow", H5P_DEFAULT));
    fs = H(H5Dget_space(d));
    hsize_t gd[2] = {0, 0};
    H5Sget_simple_extent_dims(fs, gd, NULL);
    CHECK(gd[0] == (hsize_t)2 * GROWS * size && gd[1] == 6, "grow: extent %llu x %llu",
          (unsigned long long)gd[0], (unsigned long long)gd[1]);
    H(H5Sclose(fs));
    int *gv = malloc(sizeof(int) * 2 * GROWS * size * 6);
    H(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, coll, gv));
    for (int i = 0; i < 2 * GROWS * size; i++)
        for (int j = 0; j < 6; j++)
            CHECK(gv[i * 6 + j] == grow_val(i, j), "grow[%d][%d] = %d, want %d", i, j, gv[i * 6 + j],
                  grow_val(i, j));
    free(gv);
    H(H5Dclose(d));

    if (pass == 1) {
        d = H(H5Dopen2(f, "sparse", H5P_DEFAULT));
        int *sv2 = malloc(sizeof(int) * 10 * size);
        H(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, coll, sv2));
        for (int i = 0; i < 10 * size; i++) {
            int want = (i / 10) % 2 == 0 ? i + 1 : 0;
            CHECK(sv2[i] == want, "sparse[%d] = %d, want %d", i, sv2[i], want);
        }
        free(sv2);
        H(H5Dclose(d));
    }

    hsize_t fsize = 0;
    H(H5Fget_filesize(f, &fsize));
    MPI_Offset msize = -1;
    MPI_File fh = MPI_FILE_NULL;
    MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    if (fh != MPI_FILE_NULL) {
        MPI_File_get_size(fh, &msize);
        MPI_File_close(&fh);
    }
    /* On a grid whose file systems differ (io_grid.sh), a process whose
     * machine does not see the file cannot open it alone: nobody in
     * MPI_COMM_SELF can forward for it. */
    const char *unseen = getenv("GMPI_IO_UNSEEN");
    if (fh == MPI_FILE_NULL && unseen != NULL && *unseen != '\0')
        msize = (MPI_Offset)fsize;
    CHECK(fsize > 0 && (MPI_Offset)fsize == msize, "file size: HDF5 says %llu, MPI_File_get_size %lld",
          (unsigned long long)fsize, (long long)msize);

    H(H5Pclose(coll));
    H(H5Pclose(ind));
    H(H5Fclose(f));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s FILE\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (pass = 0; pass < 2; pass++) {
        write_file(argv[1]);
        MPI_Barrier(MPI_COMM_WORLD);
        read_file(argv[1]);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_delete(argv[1], MPI_INFO_NULL);
        if (all == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", all);
    }
    MPI_Finalize();
    return all != 0;
}
