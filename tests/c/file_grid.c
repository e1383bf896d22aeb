/* MPI-IO across sites that do not share a file system: file_grid DIR,
 * where DIR is a grid file "filesystems" directory that only some
 * machines list (mpirun tells the others in GMPI_IO_UNSEEN; under
 * --emulate it is really hidden from their hosts, which
 * FILE_GRID_HIDDEN=1 makes the test check). Every rank writes its block
 * of a 3-D array through a subarray view with MPI_File_write_all and reads
 * its neighbour's back with read_all and a split collective; independent
 * access, the size and sync of a rank that does not see DIR go through a
 * proxy that does; ordered access goes through the shared pointer, and
 * write_shared too; a rank that sees DIR checks the whole file at the
 * end. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "mtest.h"

static int errs = 0, rank, size;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            errs++;                                                                                \
            fprintf(stderr, "rank %d line %d: ", rank, __LINE__);                                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

#define OK(call)                                                                                   \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            char s_[MPI_MAX_ERROR_STRING];                                                         \
            int l_;                                                                                \
            MPI_Error_string(rc_, s_, &l_);                                                        \
            CHECK(0, "%s failed: %s", #call, s_);                                                  \
        }                                                                                          \
    } while (0)

enum { NX = 6, NY = 10, NZ = 48 }; /* NZ divisible by 1..4 ranks */

static MPI_Datatype block_of(int r, int *count)
{
    int sizes[3] = {NX, NY, NZ}, sub[3] = {NX, NY, NZ / size}, start[3] = {0, 0, r * (NZ / size)};
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    *count = NX * NY * (NZ / size);
    return t;
}

/* The value of global element (x, y, z). */
static int val(int x, int y, int z) { return 1000000 + (x * NY + y) * NZ + z; }

static void fill(int r, int *buf)
{
    int k = 0;
    for (int x = 0; x < NX; x++)
        for (int y = 0; y < NY; y++)
            for (int z = r * (NZ / size); z < (r + 1) * (NZ / size); z++)
                buf[k++] = val(x, y, z);
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        fprintf(stderr, "usage: file_grid DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *unseen = getenv("GMPI_IO_UNSEEN");
    int blind = unseen != NULL && strstr(unseen, argv[1]) != NULL;
    char path[PATH_MAX], marker[PATH_MAX];
    snprintf(path, sizeof path, "%s/grid.dat", argv[1]);
    snprintf(marker, sizeof marker, "%s/marker", argv[1]);
    const char *hidden = getenv("FILE_GRID_HIDDEN");
    if (hidden && strcmp(hidden, "1") == 0) {
        /* The emulator hides DIR from the hosts that do not see it. */
        struct stat st;
        int rc = stat(marker, &st);
        if (blind)
            CHECK(rc != 0 && errno == ENOENT, "a blind rank sees %s", marker);
        else
            CHECK(rc == 0, "a rank that should see %s does not: %s", marker, strerror(errno));
    }
    int nblind = 0;
    MPI_Allreduce(&blind, &nblind, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d of %d ranks do not see %s\n", nblind, size, argv[1]);

    MPI_File fh;
    OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    int count;
    MPI_Datatype mine = block_of(rank, &count), next = block_of((rank + 1) % size, &count);
    int *buf = malloc(sizeof(int) * count), *got = malloc(sizeof(int) * count),
        *want = malloc(sizeof(int) * count);
    fill(rank, buf);
    fill((rank + 1) % size, want);

    /* Collective write of my block, read back of my neighbour's. */
    MPI_Status st;
    OK(MPI_File_set_view(fh, 0, MPI_INT, mine, "native", MPI_INFO_NULL));
    OK(MPI_File_write_all(fh, buf, count, MPI_INT, &st));
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == count, "write_all wrote %d ints, want %d", n, count);
    OK(MPI_File_sync(fh));
    OK(MPI_File_set_view(fh, 0, MPI_INT, next, "native", MPI_INFO_NULL));
    memset(got, 0, sizeof(int) * count);
    OK(MPI_File_read_at_all(fh, 0, got, count, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == count && memcmp(got, want, sizeof(int) * count) == 0,
          "read_at_all: %d ints, first %d want %d", n, got[0], want[0]);
    /* The same through a split collective. */
    memset(got, 0, sizeof(int) * count);
    OK(MPI_File_read_all_begin(fh, got, count, MPI_INT));
    OK(MPI_File_read_all_end(fh, got, &st));
    CHECK(memcmp(got, want, sizeof(int) * count) == 0, "read_all_begin/end: wrong data");

    /* Independent access: a rank that does not see the file goes through
     * a proxy that does (the size, a noncontiguous read with data sieving,
     * then a rewrite of its own block, read back collectively). */
    MPI_Offset fsize = -1;
    OK(MPI_File_get_size(fh, &fsize));
    CHECK(fsize == (MPI_Offset)sizeof(int) * NX * NY * NZ, "get_size: %lld", (long long)fsize);
    memset(got, 0, sizeof(int) * count);
    OK(MPI_File_read_at(fh, 0, got, count, MPI_INT, &st));
    CHECK(memcmp(got, want, sizeof(int) * count) == 0, "independent read_at: wrong data");
    OK(MPI_File_set_view(fh, 0, MPI_INT, mine, "native", MPI_INFO_NULL));
    for (int i = 0; i < count; i++)
        buf[i] = -buf[i];
    OK(MPI_File_write_at(fh, 0, buf, count, MPI_INT, &st));
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_sync(fh));
    OK(MPI_File_set_view(fh, 0, MPI_INT, next, "native", MPI_INFO_NULL));
    OK(MPI_File_read_all(fh, got, count, MPI_INT, &st));
    for (int i = 0; i < count; i++)
        want[i] = -want[i];
    CHECK(memcmp(got, want, sizeof(int) * count) == 0, "read_all after independent writes: wrong data");
    /* Rewrite the array as it was, collectively. */
    OK(MPI_File_set_view(fh, 0, MPI_INT, mine, "native", MPI_INFO_NULL));
    for (int i = 0; i < count; i++)
        buf[i] = -buf[i];
    OK(MPI_File_write_at_all(fh, 0, buf, count, MPI_INT, &st));

    /* Ordered access after the array: rank r writes r+1 ints r. */
    MPI_Offset base = sizeof(int) * NX * NY * NZ;
    OK(MPI_File_set_view(fh, base, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int ord[8];
    for (int i = 0; i <= rank; i++)
        ord[i] = rank;
    OK(MPI_File_write_ordered(fh, ord, rank + 1, MPI_INT, &st));
    OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    memset(ord, -1, sizeof ord);
    OK(MPI_File_read_ordered(fh, ord, rank + 1, MPI_INT, &st));
    for (int i = 0; i <= rank; i++)
        CHECK(ord[i] == rank, "read_ordered: int %d is %d, want %d", i, ord[i], rank);
    /* Individual shared-pointer writes: each rank's value once, after. */
    MPI_Offset sp;
    OK(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == size * (size + 1) / 2, "shared position %lld after read_ordered", (long long)sp);
    MPI_Barrier(MPI_COMM_WORLD);
    int one = 100 + rank;
    OK(MPI_File_write_shared(fh, &one, 1, MPI_INT, &st));
    OK(MPI_File_close(&fh));

    /* A rank that sees DIR checks the whole file. */
    int first = blind ? size : rank, checker;
    MPI_Allreduce(&first, &checker, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == checker) {
        int total = NX * NY * NZ + size * (size + 1) / 2 + size;
        int *all = malloc(sizeof(int) * total);
        OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
        OK(MPI_File_read_at(fh, 0, all, total, MPI_INT, &st));
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == total, "the file holds %d ints, want %d", n, total);
        int bad = 0;
        for (int x = 0; x < NX; x++)
            for (int y = 0; y < NY; y++)
                for (int z = 0; z < NZ; z++)
                    bad += all[(x * NY + y) * NZ + z] != val(x, y, z);
        int k = NX * NY * NZ;
        for (int r = 0; r < size; r++)
            for (int i = 0; i <= r; i++)
                bad += all[k++] != r;
        int seen = 0;
        for (int r = 0; r < size; r++, k++)
            if (all[k] >= 100 && all[k] < 100 + size)
                seen |= 1 << (all[k] - 100);
        CHECK(seen == (1 << size) - 1, "write_shared: not every rank's value is in the file");
        CHECK(bad == 0, "%d ints of the file are wrong", bad);
        OK(MPI_File_close(&fh));
        free(all);
    }
    MPI_Type_free(&mine);
    MPI_Type_free(&next);
    free(buf);
    free(got);
    free(want);
    MTest_Finalize(errs);
    return 0;
}
