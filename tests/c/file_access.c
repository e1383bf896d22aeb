/* MPI-IO data access: every read and write call (explicit offsets,
 * individual and shared pointers; blocking, nonblocking, collective,
 * split collective, ordered; _c forms) through contiguous, vector,
 * subarray, darray and struct views, with contiguous and noncontiguous
 * memory types; partial reads at the end of the file; positions, seeks
 * and byte offsets. The file is a global array of ints whose element k
 * holds k; each process's view selects its share of it. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mtest.h"

static int errs = 0, rank, size;
static char dir[PATH_MAX], fname[PATH_MAX];

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            errs++;                                                                                \
            if (errs < 30) {                                                                       \
                fprintf(stderr, "rank %d line %d: ", rank, __LINE__);                              \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fprintf(stderr, "\n");                                                             \
            }                                                                                      \
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

#define M 96 /* ints per process */

/* A view: the filetype of this process, its displacement, and the
 * global index of the i-th int of its stream. */
struct view {
    const char *name;
    MPI_Offset disp;
    MPI_Datatype ftype;
    long (*index)(int i);
};

static long idx_contig(int i) { return (long)rank * M + i; }
static long idx_vector(int i) { return (long)(i / 4) * size * 4 + rank * 4 + i % 4; }
static long idx_subarray(int i) { return (long)(i / 6) * (6 * size) + rank * 6 + i % 6; }
static long idx_darray(int i) { return (long)(i / 2) * size * 2 + rank * 2 + i % 2; }
static long idx_struct(int i) { return (long)(i / 3) * size * 3 + rank * 3 + i % 3; }

static int nviews;
static struct view views[5];

static void make_views(void)
{
    MPI_Datatype t, u;
    views[0] = (struct view){"contiguous", (MPI_Offset)rank * M * 4, MPI_INT, idx_contig};

    MPI_Type_vector(1, 4, 4, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, 4 * size * 4, &u);
    MPI_Type_free(&t);
    MPI_Type_commit(&u);
    views[1] = (struct view){"vector", (MPI_Offset)rank * 16, u, idx_vector};

    int sizes[2] = {M / 6, 6 * size}, subs[2] = {M / 6, 6}, starts[2] = {0, 6 * rank};
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &u);
    MPI_Type_commit(&u);
    views[2] = (struct view){"subarray", 0, u, idx_subarray};

    int gs = M * size, dist = MPI_DISTRIBUTE_CYCLIC, darg = 2, ps = size;
    MPI_Type_create_darray(size, rank, 1, &gs, &dist, &darg, &ps, MPI_ORDER_C, MPI_INT, &u);
    MPI_Type_commit(&u);
    views[3] = (struct view){"darray", 0, u, idx_darray};

    /* struct: one int and two more right after it, resized to leave
     * room for the other processes' blocks. */
    int bl[2] = {1, 2};
    MPI_Aint dp[2] = {0, 4};
    MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, bl, dp, ty, &t);
    MPI_Type_create_resized(t, 0, 3 * 4 * size, &u);
    MPI_Type_free(&t);
    MPI_Type_commit(&u);
    views[4] = (struct view){"struct", (MPI_Offset)rank * 12, u, idx_struct};
    nviews = 5;
}

/* Memory types: plain ints, or every other int of a twice-as-long array. */
static MPI_Datatype strided;

enum { W_AT, W_AT_ALL, W_IND, W_ALL, W_IAT, W_IAT_ALL, W_I, W_IALL, W_AT_BEGIN, W_BEGIN, W_AT_C, W_ALL_C, W_IAT_C, NW };
static const char *wnames[NW] = {"write_at", "write_at_all", "write", "write_all", "iwrite_at", "iwrite_at_all", "iwrite", "iwrite_all", "write_at_all_begin", "write_all_begin", "write_at_c", "write_all_c", "iwrite_at_c"};
enum { R_AT, R_AT_ALL, R_IND, R_ALL, R_IAT, R_IAT_ALL, R_I, R_IALL, R_AT_BEGIN, R_BEGIN, R_AT_C, R_ALL_C, R_IALL_C, NR };
static const char *rnames[NR] = {"read_at", "read_at_all", "read", "read_all", "iread_at", "iread_at_all", "iread", "iread_all", "read_at_all_begin", "read_all_begin", "read_at_c", "read_all_c", "iread_all_c"};

/* do_write writes count ints of buf (type dt) at stream position 0 with
 * method m; the individual pointer is at 0. */
static void do_write(MPI_File fh, int m, void *buf, int count, MPI_Datatype dt)
{
    MPI_Status st;
    MPI_Request rq;
    int flag = 0;
    switch (m) {
    case W_AT: OK(MPI_File_write_at(fh, 0, buf, count, dt, &st)); break;
    case W_AT_ALL: OK(MPI_File_write_at_all(fh, 0, buf, count, dt, &st)); break;
    case W_IND: OK(MPI_File_write(fh, buf, count, dt, &st)); break;
    case W_ALL: OK(MPI_File_write_all(fh, buf, count, dt, &st)); break;
    case W_IAT: OK(MPI_File_iwrite_at(fh, 0, buf, count, dt, &rq)); OK(MPI_Wait(&rq, &st)); break;
    case W_IAT_ALL:
        OK(MPI_File_iwrite_at_all(fh, 0, buf, count, dt, &rq));
        while (!flag)
            OK(MPI_Test(&rq, &flag, &st));
        break;
    case W_I: OK(MPI_File_iwrite(fh, buf, count, dt, &rq)); OK(MPI_Waitall(1, &rq, &st)); break;
    case W_IALL: OK(MPI_File_iwrite_all(fh, buf, count, dt, &rq)); OK(MPI_Wait(&rq, &st)); break;
    case W_AT_BEGIN:
        OK(MPI_File_write_at_all_begin(fh, 0, buf, count, dt));
        OK(MPI_File_write_at_all_end(fh, buf, &st));
        break;
    case W_BEGIN:
        OK(MPI_File_write_all_begin(fh, buf, count, dt));
        OK(MPI_File_write_all_end(fh, buf, &st));
        break;
    case W_AT_C: OK(MPI_File_write_at_c(fh, 0, buf, (MPI_Count)count, dt, &st)); break;
    case W_ALL_C: OK(MPI_File_write_all_c(fh, buf, (MPI_Count)count, dt, &st)); break;
    case W_IAT_C: OK(MPI_File_iwrite_at_c(fh, 0, buf, (MPI_Count)count, dt, &rq)); OK(MPI_Wait(&rq, &st)); break;
    }
    int n;
    MPI_Get_count(&st, dt, &n);
    CHECK(n == count, "%s: status count %d, want %d", wnames[m], n, count);
}

static void do_read(MPI_File fh, int m, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    MPI_Request rq;
    int idx;
    switch (m) {
    case R_AT: OK(MPI_File_read_at(fh, 0, buf, count, dt, st)); break;
    case R_AT_ALL: OK(MPI_File_read_at_all(fh, 0, buf, count, dt, st)); break;
    case R_IND: OK(MPI_File_read(fh, buf, count, dt, st)); break;
    case R_ALL: OK(MPI_File_read_all(fh, buf, count, dt, st)); break;
    case R_IAT: OK(MPI_File_iread_at(fh, 0, buf, count, dt, &rq)); OK(MPI_Waitany(1, &rq, &idx, st)); break;
    case R_IAT_ALL: OK(MPI_File_iread_at_all(fh, 0, buf, count, dt, &rq)); OK(MPI_Wait(&rq, st)); break;
    case R_I: OK(MPI_File_iread(fh, buf, count, dt, &rq)); OK(MPI_Wait(&rq, st)); break;
    case R_IALL: OK(MPI_File_iread_all(fh, buf, count, dt, &rq)); OK(MPI_Wait(&rq, st)); break;
    case R_AT_BEGIN:
        OK(MPI_File_read_at_all_begin(fh, 0, buf, count, dt));
        OK(MPI_File_read_at_all_end(fh, buf, st));
        break;
    case R_BEGIN:
        OK(MPI_File_read_all_begin(fh, buf, count, dt));
        OK(MPI_File_read_all_end(fh, buf, st));
        break;
    case R_AT_C: OK(MPI_File_read_at_c(fh, 0, buf, (MPI_Count)count, dt, st)); break;
    case R_ALL_C: OK(MPI_File_read_all_c(fh, buf, (MPI_Count)count, dt, st)); break;
    case R_IALL_C: OK(MPI_File_iread_all_c(fh, buf, (MPI_Count)count, dt, &rq)); OK(MPI_Wait(&rq, st)); break;
    }
}

static void check_file(MPI_File fh, const char *what)
{
    /* Everyone reads the whole file as bytes through the default view. */
    long n = (long)M * size;
    int *all = malloc(n * sizeof(int));
    MPI_Status st;
    OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    OK(MPI_File_read_at(fh, 0, all, (int)(n * sizeof(int)), MPI_BYTE, &st));
    for (long k = 0; k < n; k++)
        if (all[k] != k) {
            CHECK(0, "%s: int %ld of the file is %d", what, k, all[k]);
            break;
        }
    free(all);
}

static void access_all(MPI_File fh)
{
    int data[2 * M], got[2 * M + 8];
    char what[128];
    for (int vi = 0; vi < nviews; vi++) {
        struct view *v = &views[vi];
        for (int m = 0; m < NW; m++) {
            int memstrided = (m + vi) % 2;
            MPI_Datatype mt = memstrided ? strided : MPI_INT;
            int count = M;
            memset(data, 0xff, sizeof data);
            for (int i = 0; i < M; i++)
                data[memstrided ? 2 * i : i] = (int)v->index(i);
            OK(MPI_File_set_size(fh, 0));
            OK(MPI_File_set_view(fh, v->disp, MPI_INT, v->ftype, "native", MPI_INFO_NULL));
            do_write(fh, m, data, count, mt);
            OK(MPI_File_sync(fh));
            MPI_Barrier(MPI_COMM_WORLD);
            OK(MPI_File_sync(fh));
            snprintf(what, sizeof what, "%s view, %s, %s memory", v->name, wnames[m], memstrided ? "strided" : "contiguous");
            check_file(fh, what);
            /* Read back with a read method (all of them over the loop). */
            int r = (m + vi) % NR;
            memset(got, 0, sizeof got);
            OK(MPI_File_set_view(fh, v->disp, MPI_INT, v->ftype, "native", MPI_INFO_NULL));
            MPI_Status st;
            do_read(fh, r, got, count, mt, &st);
            int n;
            MPI_Get_count(&st, mt, &n);
            CHECK(n == count, "%s view, %s: count %d, want %d", v->name, rnames[r], n, count);
            for (int i = 0; i < M; i++) {
                int k = memstrided ? 2 * i : i;
                if (got[k] != v->index(i)) {
                    CHECK(0, "%s view, %s, %s memory: int %d is %d, want %ld", v->name, rnames[r],
                          memstrided ? "strided" : "contiguous", i, got[k], v->index(i));
                    break;
                }
                if (memstrided && got[k + 1] != 0) {
                    CHECK(0, "%s view, %s: a hole of the memory type was written", v->name, rnames[r]);
                    break;
                }
            }
            /* Positions: the individual pointer moved only for the
             * individual-pointer calls. */
            MPI_Offset pos, byte;
            OK(MPI_File_get_position(fh, &pos));
            int moved = r == R_IND || r == R_ALL || r == R_I || r == R_IALL || r == R_BEGIN || r == R_ALL_C || r == R_IALL_C;
            CHECK(pos == (moved ? M : 0), "%s view, %s: position %lld", v->name, rnames[r], (long long)pos);
            OK(MPI_File_get_byte_offset(fh, 5, &byte));
            CHECK(byte == 4 * v->index(5), "%s view: byte offset of etype 5 is %lld, want %ld", v->name,
                  (long long)byte, 4 * v->index(5));
        }
    }
}

static void partial_and_seek(MPI_File fh)
{
    /* The file holds M*size ints 0.. in order (from the last check). */
    long n = (long)M * size;
    int buf[16];
    MPI_Status st;
    int count, elems;
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    OK(MPI_File_read_at(fh, n - 3, buf, 8, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    MPI_Get_elements(&st, MPI_INT, &elems);
    CHECK(count == 3 && elems == 3, "read at the end: count %d, elements %d, want 3", count, elems);
    CHECK(buf[0] == n - 3 && buf[2] == n - 1, "read at the end: %d %d", buf[0], buf[2]);
    /* Every rank reads the same last ints (an interleaved collective
     * access, through the aggregators): the buffer past what the file
     * holds stays as it was. */
    for (int i = 0; i < 16; i++)
        buf[i] = -7;
    OK(MPI_File_read_at_all(fh, n - 3, buf, 4, pair, &st));
    MPI_Get_count(&st, pair, &count);
    MPI_Get_elements(&st, pair, &elems);
    CHECK(count == MPI_UNDEFINED && elems == 3, "pairs at the end: count %d, elements %d", count, elems);
    CHECK(buf[2] == n - 1 && buf[3] == -7 && buf[7] == -7 && buf[8] == -7,
          "pairs at the end: the buffer past the file's end was written: %d %d %d", buf[3], buf[7], buf[8]);
    OK(MPI_File_read_at(fh, n + 10, buf, 4, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0, "read past the end: count %d", count);
    /* Nonblocking collective at the end: rank r asks for 8 ints from
     * n - 3 - r, and gets 3 + r of them (at most 8). */
    MPI_Request rq;
    int from = rank < 5 ? rank : 5;
    for (int i = 0; i < 16; i++)
        buf[i] = -7;
    OK(MPI_File_iread_at_all(fh, n - 3 - from, buf, 8, MPI_INT, &rq));
    OK(MPI_Wait(&rq, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 3 + from, "iread_at_all at the end: count %d, want %d", count, 3 + from);
    CHECK(buf[0] == n - 3 - from && buf[count - 1] == n - 1, "iread_at_all at the end: %d .. %d", buf[0],
          buf[count > 0 ? count - 1 : 0]);
    CHECK(count >= 8 || buf[count] == -7, "iread_at_all at the end wrote past the file's end: %d", buf[count]);
    /* Seeks. */
    MPI_Offset pos;
    OK(MPI_File_seek(fh, 10, MPI_SEEK_SET));
    OK(MPI_File_seek(fh, 5, MPI_SEEK_CUR));
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 15, "position after seeks: %lld", (long long)pos);
    OK(MPI_File_read(fh, buf, 2, MPI_INT, &st));
    CHECK(buf[0] == 15 && buf[1] == 16, "read after seek: %d %d", buf[0], buf[1]);
    OK(MPI_File_seek(fh, -2, MPI_SEEK_END));
    OK(MPI_File_read(fh, buf, 4, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 2 && buf[0] == n - 2, "read after seek from the end: %d ints, %d", count, buf[0]);
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == n, "position at the end: %lld", (long long)pos);
    /* seek_shared, get_position_shared, read_shared. */
    OK(MPI_File_seek_shared(fh, 7, MPI_SEEK_SET));
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 7, "shared position: %lld", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_read_shared(fh, buf, 1, MPI_INT, &st));
    CHECK(buf[0] >= 7 && buf[0] < 7 + size, "read_shared got %d", buf[0]);
    int mine = buf[0], sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == 7 * size + size * (size - 1) / 2, "read_shared ranges overlap (sum %d)", sum);
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 7 + size, "shared position after read_shared: %lld", (long long)pos);
    MPI_Type_free(&pair);
}

static void ordered(MPI_File fh)
{
    int buf[8], got[8];
    MPI_Status st;
    OK(MPI_File_set_size(fh, 0));
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    for (int i = 0; i <= rank; i++)
        buf[i] = rank;
    /* Ranks 0..size-1 write rank+1 copies of their rank, in rank order,
     * twice: blocking and split. */
    OK(MPI_File_write_ordered(fh, buf, rank + 1, MPI_INT, &st));
    OK(MPI_File_write_ordered_begin(fh, buf, rank + 1, MPI_INT));
    OK(MPI_File_write_ordered_end(fh, buf, &st));
    MPI_Offset pos;
    int per = size * (size + 1) / 2;
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 2 * per, "shared pointer after two write_ordered: %lld", (long long)pos);
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    int *all = malloc(2 * per * sizeof(int));
    OK(MPI_File_read_at(fh, 0, all, 2 * per, MPI_INT, &st));
    for (int rep = 0, k = 0; rep < 2; rep++)
        for (int r = 0; r < size; r++)
            for (int i = 0; i <= r; i++, k++)
                CHECK(all[k] == r, "write_ordered: int %d is %d, want %d", k, all[k], r);
    free(all);
    OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    memset(got, 0xff, sizeof got);
    OK(MPI_File_read_ordered(fh, got, rank + 1, MPI_INT, &st));
    OK(MPI_File_read_ordered_begin(fh, got + rank + 1, rank + 1, MPI_INT));
    OK(MPI_File_read_ordered_end(fh, got + rank + 1, &st));
    for (int i = 0; i < 2 * (rank + 1); i++)
        CHECK(got[i] == rank, "read_ordered: int %d is %d", i, got[i]);
    /* write_shared: every process gets its own slot. */
    OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    MPI_Request rq;
    OK(MPI_File_iwrite_shared(fh, &rank, 1, MPI_INT, &rq));
    OK(MPI_Wait(&rq, &st));
    OK(MPI_File_write_shared_c(fh, &rank, 1, MPI_INT, &st));
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    int seen[64] = {0};
    int tail[128];
    OK(MPI_File_read_at(fh, 2 * per, tail, 2 * size, MPI_INT, &st));
    for (int i = 0; i < 2 * size; i++)
        if (tail[i] >= 0 && tail[i] < size)
            seen[tail[i]]++;
    for (int r = 0; r < size; r++)
        CHECK(seen[r] == 2, "write_shared: rank %d wrote %d ints, want 2", r, seen[r]);
    OK(MPI_File_iread_shared(fh, got, 0, MPI_INT, &rq));
    OK(MPI_Wait(&rq, &st));
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/gmpi-fileacc-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(fname, sizeof fname, "%s/data", dir);
    MPI_Type_vector(1, 1, 2, MPI_INT, &strided);
    MPI_Datatype t = strided;
    MPI_Type_create_resized(t, 0, 8, &strided);
    MPI_Type_free(&t);
    MPI_Type_commit(&strided);
    make_views();

    /* Collective buffering and data sieving in each mode (automatic is
     * the default); the enable pass uses 256-byte rounds. */
    const char *modes[][2] = {{"automatic", "automatic"}, {"enable", "enable"}, {"disable", "disable"}};
    for (int k = 0; k < 3; k++) {
        MPI_Info info;
        MPI_File fh;
        MPI_Info_create(&info);
        MPI_Info_set(info, "romio_cb_write", (char *)modes[k][0]);
        MPI_Info_set(info, "romio_cb_read", (char *)modes[k][0]);
        MPI_Info_set(info, "romio_ds_write", (char *)modes[k][1]);
        MPI_Info_set(info, "romio_ds_read", (char *)modes[k][1]);
        if (k == 1)
            MPI_Info_set(info, "cb_buffer_size", "256"); /* many rounds */
        OK(MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
        MPI_Info_free(&info);
        access_all(fh);
        check_file(fh, "final");
        partial_and_seek(fh);
        ordered(fh);
        OK(MPI_File_close(&fh));
    }
    for (int i = 1; i < nviews; i++)
        MPI_Type_free(&views[i].ftype);
    MPI_Type_free(&strided);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        OK(MPI_File_delete(fname, MPI_INFO_NULL));
        CHECK(rmdir(dir) == 0, "cannot remove %s: %s (files left behind?)", dir, strerror(errno));
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
