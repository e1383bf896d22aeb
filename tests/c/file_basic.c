/* MPI-IO files: open/close/delete and their error classes from real
 * causes, access modes, sizes, hints, atomicity, error handlers, handle
 * conversion and data representations (MPI_Register_datarep). Files live
 * in a directory rank 0 makes under $TMPDIR (or /tmp) and removes. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mtest.h"

static int errs = 0, rank, size;
static char dir[PATH_MAX];

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            errs++;                                                                                \
            fprintf(stderr, "rank %d line %d: ", rank, __LINE__);                                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

static int cls(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

#define EXPECT_CLASS(call, want)                                                                   \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(cls(rc_) == (want), "%s returned class %d, want %s (%d)", #call, cls(rc_), #want,    \
              (want));                                                                             \
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

static char *path(const char *name)
{
    static char buf[8][PATH_MAX];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, PATH_MAX, "%s/%s", dir, name);
    return p;
}

static int handler_calls;
static MPI_File handler_file;
static int handler_code;
static void file_handler(MPI_File *fh, int *code, ...)
{
    handler_calls++;
    handler_file = *fh;
    handler_code = *code;
}

/* "swap4": 4-byte items stored byte-swapped; conversion functions count
 * their calls and fail on demand. */
static int conv_fail, conv_calls;
static void swap4(char *d, const char *s, MPI_Count n)
{
    for (MPI_Count i = 0; i < n; i++) {
        d[4 * i] = s[4 * i + 3];
        d[4 * i + 1] = s[4 * i + 2];
        d[4 * i + 2] = s[4 * i + 1];
        d[4 * i + 3] = s[4 * i];
    }
}
static int swap_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position,
                     void *extra)
{
    conv_calls++;
    if (conv_fail)
        return MPI_ERR_OTHER;
    CHECK(dt == MPI_INT, "read conversion got datatype 0x%x", (unsigned)dt);
    CHECK(*(int *)extra == 42, "extra_state not passed");
    swap4((char *)userbuf + 4 * position, filebuf, count);
    return MPI_SUCCESS;
}
static int swap_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position,
                      void *extra)
{
    conv_calls++;
    if (conv_fail)
        return MPI_ERR_OTHER;
    swap4(filebuf, (char *)userbuf + 4 * position, count);
    return MPI_SUCCESS;
}
static int swap_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    MPI_Aint lb;
    MPI_Type_get_extent(dt, &lb, extent);
    return MPI_SUCCESS;
}

static void errors_from_causes(void)
{
    MPI_File fh;
    /* Missing file, missing directory. */
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path("missing"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                 MPI_ERR_NO_SUCH_FILE);
    CHECK(fh == MPI_FILE_NULL, "failed open left a handle");
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path("nodir/f"), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                               MPI_INFO_NULL, &fh),
                 MPI_ERR_NO_SUCH_FILE);
    EXPECT_CLASS(MPI_File_delete(path("missing"), MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    /* Existing file with MPI_MODE_EXCL. */
    OK(MPI_File_open(MPI_COMM_WORLD, path("exists"), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close did not set MPI_FILE_NULL");
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path("exists"),
                               MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                 MPI_ERR_FILE_EXISTS);
    /* Wrong access modes. */
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path("exists"), MPI_MODE_RDONLY | MPI_MODE_RDWR,
                               MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE);
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path("exists"), 0, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path("exists"), MPI_MODE_RDONLY | MPI_MODE_CREATE,
                               MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE);
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path("exists"), MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL,
                               MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE);
    /* A file without write permission opened for writing. */
    if (geteuid() != 0) {
        if (rank == 0) {
            FILE *f = fopen(path("ro"), "w");
            fclose(f);
            chmod(path("ro"), 0444);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path("ro"), MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                     MPI_ERR_ACCESS);
    } else if (access("/sys/devices/system/cpu/online", R_OK) == 0) {
        /* Root passes permission checks, but a read-only sysfs attribute
         * refuses a write open to anyone (EACCES). */
        EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, "/sys/devices/system/cpu/online", MPI_MODE_RDWR,
                                   MPI_INFO_NULL, &fh),
                     MPI_ERR_ACCESS);
    }
    /* Writing a file opened read-only, reading one opened write-only. */
    int v = 1;
    MPI_Status st;
    OK(MPI_File_open(MPI_COMM_WORLD, path("exists"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    EXPECT_CLASS(MPI_File_write_at(fh, 0, &v, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
    EXPECT_CLASS(MPI_File_write_all(fh, &v, 1, MPI_INT, &st), MPI_ERR_READ_ONLY);
    EXPECT_CLASS(MPI_File_set_size(fh, 0), MPI_ERR_READ_ONLY);
    OK(MPI_File_close(&fh));
    OK(MPI_File_open(MPI_COMM_WORLD, path("exists"), MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    EXPECT_CLASS(MPI_File_read_at(fh, 0, &v, 1, MPI_INT, &st), MPI_ERR_ACCESS);
    EXPECT_CLASS(MPI_File_read_at(fh, -1, &v, 1, MPI_INT, &st), MPI_ERR_ARG); /* as ROMIO: offset first */
    EXPECT_CLASS(MPI_File_write_at(fh, 0, &v, -1, MPI_INT, &st), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_File_write_at(fh, -1, &v, 1, MPI_INT, &st), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_File_write_at(fh, 0, &v, 1, MPI_DATATYPE_NULL, &st), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    OK(MPI_File_close(&fh));
    /* Only shared-pointer access on a sequential file. */
    OK(MPI_File_open(MPI_COMM_WORLD, path("exists"), MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                     MPI_INFO_NULL, &fh));
    EXPECT_CLASS(MPI_File_write_at(fh, 0, &v, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION);
    OK(MPI_File_write_ordered(fh, &v, 1, MPI_INT, &st));
    OK(MPI_File_close(&fh));
    /* A directory is not a file. */
    EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, dir, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_BAD_FILE);
    /* A full device. */
    if (access("/dev/full", W_OK) == 0) {
        OK(MPI_File_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
        EXPECT_CLASS(MPI_File_write(fh, &v, 1, MPI_INT, &st), MPI_ERR_NO_SPACE);
        OK(MPI_File_close(&fh));
    }
    /* A running program cannot be opened for writing. */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, exe, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
                     MPI_ERR_FILE_IN_USE);
    }
    /* Bad handles. */
    MPI_File null = MPI_FILE_NULL;
    EXPECT_CLASS(MPI_File_close(&null), MPI_ERR_FILE);
    EXPECT_CLASS(MPI_File_sync(MPI_FILE_NULL), MPI_ERR_FILE);
}

static void basics(void)
{
    MPI_File fh;
    MPI_Info info, used;
    MPI_Offset sz;
    int amode, flag, v[4] = {1, 2, 3, 4};
    MPI_Status st;

    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_Info_set(info, "romio_ds_write", "disable");
    MPI_Info_set(info, "gmpi_no_such_hint", "1");
    OK(MPI_File_open(MPI_COMM_WORLD, path("basic"), MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_UNIQUE_OPEN,
                     info, &fh));
    OK(MPI_File_get_info(fh, &used));
    char val[MPI_MAX_INFO_VAL + 1];
    MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "1048576") == 0, "cb_buffer_size in force: %s", flag ? val : "(none)");
    MPI_Info_get(used, "romio_ds_write", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "disable") == 0, "romio_ds_write in force: %s", flag ? val : "(none)");
    MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && atoi(val) >= 1, "cb_nodes not reported");
    MPI_Info_get(used, "gmpi_no_such_hint", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(!flag, "an unknown hint is reported");
    /* Collective buffering: ROMIO's default (automatic), or what
     * GMPI_IO_HINTS says (the testlist runs this with enable and disable). */
    const char *want = "automatic", *env = getenv("GMPI_IO_HINTS");
    if (env && strstr(env, "romio_cb_write=enable"))
        want = "enable";
    else if (env && strstr(env, "romio_cb_write=disable"))
        want = "disable";
    MPI_Info_get(used, "romio_cb_write", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, want) == 0, "romio_cb_write in force: %s, want %s", flag ? val : "(none)", want);
    MPI_Info_get(used, "romio_cb_read", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, want) == 0, "romio_cb_read in force: %s, want %s", flag ? val : "(none)", want);
    MPI_Info_free(&used);
    MPI_Info_set(info, "ind_rd_buffer_size", "8192");
    OK(MPI_File_set_info(fh, info));
    OK(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "ind_rd_buffer_size", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "8192") == 0, "ind_rd_buffer_size after set_info: %s", flag ? val : "(none)");
    MPI_Info_free(&used);
    MPI_Info_free(&info);

    OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_UNIQUE_OPEN), "amode %d", amode);
    MPI_Group g, wg;
    int res;
    OK(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &res);
    CHECK(res == MPI_IDENT, "file group is not the communicator's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    OK(MPI_File_set_size(fh, 1000));
    OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 1000, "size after set_size(1000): %lld", (long long)sz);
    OK(MPI_File_preallocate(fh, 4000));
    OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 4000, "size after preallocate(4000): %lld", (long long)sz);
    OK(MPI_File_preallocate(fh, 10));
    OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 4000, "preallocate shrank the file: %lld", (long long)sz);
    OK(MPI_File_set_size(fh, 16));
    OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 16, "size after set_size(16): %lld", (long long)sz);

    OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0, "atomic mode on by default");
    OK(MPI_File_set_atomicity(fh, 1));
    OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomic mode not set");
    if (rank == 0)
        OK(MPI_File_write_at(fh, 0, v, 4, MPI_INT, &st));
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_sync(fh));
    int r[4] = {0};
    OK(MPI_File_read_at(fh, 0, r, 4, MPI_INT, &st));
    CHECK(r[0] == 1 && r[3] == 4, "atomic write not seen: %d %d", r[0], r[3]);
    OK(MPI_File_set_atomicity(fh, 0));

    /* Handle conversion. */
    MPI_Fint f = MPI_File_c2f(fh);
    CHECK(MPI_File_f2c(f) == fh, "MPI_File_f2c(MPI_File_c2f(fh)) != fh");
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0, "c2f(MPI_FILE_NULL) != 0");
    CHECK(MPI_File_f2c(0) == MPI_FILE_NULL, "f2c(0) != MPI_FILE_NULL");

    /* Error handlers: files return errors by default; a user handler
     * gets the file and the code. */
    MPI_Errhandler eh, got;
    OK(MPI_File_get_errhandler(fh, &got));
    CHECK(got == MPI_ERRORS_RETURN, "default file error handler is not MPI_ERRORS_RETURN");
    OK(MPI_File_create_errhandler(file_handler, &eh));
    OK(MPI_File_set_errhandler(fh, eh));
    handler_calls = 0;
    int rc = MPI_File_read_at(fh, -5, r, 1, MPI_INT, &st);
    CHECK(handler_calls == 1 && handler_file == fh && handler_code == rc && cls(rc) == MPI_ERR_ARG,
          "user file handler: %d calls, code %d (rc %d)", handler_calls, handler_code, rc);
    OK(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_IO, "call_errhandler did not call the handler");
    OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    OK(MPI_File_close(&fh));

    /* The handler of MPI_FILE_NULL applies to opens. */
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
    handler_calls = 0;
    rc = MPI_File_open(MPI_COMM_WORLD, path("missing"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(handler_calls == 1 && handler_file == MPI_FILE_NULL && cls(rc) == MPI_ERR_NO_SUCH_FILE,
          "MPI_FILE_NULL's handler not called on a failed open (%d calls)", handler_calls);
    OK(MPI_File_open(MPI_COMM_WORLD, path("basic"), MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                     MPI_INFO_NULL, &fh));
    OK(MPI_File_get_errhandler(fh, &got));
    CHECK(got == eh, "an opened file did not inherit MPI_FILE_NULL's handler");
    MPI_Errhandler_free(&got);
    OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&eh);
    /* Append mode and delete on close. */
    OK(MPI_File_close(&fh));
    struct stat sb;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(stat(path("basic"), &sb) != 0 && errno == ENOENT, "MPI_MODE_DELETE_ON_CLOSE left the file");

    OK(MPI_File_open(MPI_COMM_WORLD, path("app"), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    if (rank == 0)
        OK(MPI_File_write(fh, v, 3, MPI_INT, &st));
    OK(MPI_File_close(&fh));
    OK(MPI_File_open(MPI_COMM_WORLD, path("app"), MPI_MODE_APPEND | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Offset pos;
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 12, "individual pointer after open with MPI_MODE_APPEND: %lld", (long long)pos);
    OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 12, "shared pointer after open with MPI_MODE_APPEND: %lld", (long long)pos);
    /* write_ordered need not wait for the others to enter it: process 0
     * may claim its range (and move the pointer) while another process
     * still reads the pointer above. */
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_write_ordered(fh, &rank, 1, MPI_INT, &st));
    OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_File_sync(fh));
    OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 12 + 4 * size, "size after an appended write_ordered: %lld", (long long)sz);
    OK(MPI_File_close(&fh));
    if (rank == 0)
        OK(MPI_File_delete(path("app"), MPI_INFO_NULL));
}

/* View shapes, as ROMIO checks them (MPI_ERR_IO): etype and filetype
 * blocks at nondecreasing, non-negative displacements; blocks that overlap
 * only when the file is open read only. */
static MPI_Datatype two_blocks(int d0, int b0, int d1, int b1)
{
    int bl[2] = {b0, b1}, dp[2] = {d0, d1};
    MPI_Datatype t;
    MPI_Type_indexed(2, bl, dp, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

static void view_shapes(void)
{
    MPI_File fh;
    MPI_Datatype neg = two_blocks(-2, 1, 2, 1), dec = two_blocks(3, 1, 0, 1), ovl = two_blocks(0, 3, 1, 1);
    for (int ro = 0; ro < 2; ro++) {
        OK(MPI_File_open(MPI_COMM_WORLD, path("shapes"), ro ? MPI_MODE_RDONLY : MPI_MODE_CREATE | MPI_MODE_RDWR,
                         MPI_INFO_NULL, &fh));
        EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, neg, "native", MPI_INFO_NULL), MPI_ERR_IO);
        EXPECT_CLASS(MPI_File_set_view(fh, 0, neg, neg, "native", MPI_INFO_NULL), MPI_ERR_IO);
        EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, dec, "native", MPI_INFO_NULL), MPI_ERR_IO);
        EXPECT_CLASS(MPI_File_set_view(fh, 0, dec, dec, "native", MPI_INFO_NULL), MPI_ERR_IO);
        EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, ovl, "native", MPI_INFO_NULL), ro ? MPI_SUCCESS : MPI_ERR_IO);
        EXPECT_CLASS(MPI_File_set_view(fh, 0, ovl, ovl, "native", MPI_INFO_NULL), ro ? MPI_SUCCESS : MPI_ERR_IO);
        OK(MPI_File_close(&fh));
    }
    MPI_Type_free(&neg);
    MPI_Type_free(&dec);
    MPI_Type_free(&ovl);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        OK(MPI_File_delete(path("shapes"), MPI_INFO_NULL));
}

static void datareps(void)
{
    int extra = 42;
    MPI_File fh;
    MPI_Status st;
    int v[8], r[8], i;
    unsigned char raw[32];
    EXPECT_CLASS(MPI_Register_datarep("native", swap_read, swap_write, swap_extent, &extra),
                 MPI_ERR_DUP_DATAREP);
    OK(MPI_Register_datarep("swap4", swap_read, swap_write, swap_extent, &extra));
    EXPECT_CLASS(MPI_Register_datarep("swap4", swap_read, swap_write, swap_extent, &extra),
                 MPI_ERR_DUP_DATAREP);
    OK(MPI_File_open(MPI_COMM_WORLD, path("rep"), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no_such_rep", MPI_INFO_NULL),
                 MPI_ERR_UNSUPPORTED_DATAREP);
    const char *reps[] = {"native", "internal", "external32", "swap4"};
    for (int w = 0; w < 4; w++) {
        for (i = 0; i < 8; i++)
            v[i] = 0x01020304 * (rank + 1) + i;
        OK(MPI_File_set_view(fh, 32 * rank, MPI_INT, MPI_INT, (char *)reps[w], MPI_INFO_NULL));
        char got[MPI_MAX_DATAREP_STRING];
        MPI_Offset disp;
        MPI_Datatype et, ft;
        OK(MPI_File_get_view(fh, &disp, &et, &ft, got));
        CHECK(disp == 32 * rank && et == MPI_INT && ft == MPI_INT && strcmp(got, reps[w]) == 0,
              "get_view: %lld %s", (long long)disp, got);
        MPI_Aint ext;
        OK(MPI_File_get_type_extent(fh, MPI_INT, &ext));
        CHECK(ext == 4, "type extent of MPI_INT in %s: %ld", reps[w], (long)ext);
        conv_calls = 0;
        OK(MPI_File_write_all(fh, v, 8, MPI_INT, &st));
        CHECK(w != 3 || conv_calls > 0, "the write conversion function was not called");
        OK(MPI_File_sync(fh));
        MPI_Barrier(MPI_COMM_WORLD);
        OK(MPI_File_sync(fh));
        /* The bytes in the file. */
        OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
        OK(MPI_File_read_at(fh, 32 * rank, raw, 32, MPI_BYTE, &st));
        int big = w >= 2;
        for (i = 0; i < 8; i++) {
            uint32_t x = (uint32_t)v[i], y;
            if (big)
                y = (uint32_t)raw[4 * i] << 24 | (uint32_t)raw[4 * i + 1] << 16 |
                    (uint32_t)raw[4 * i + 2] << 8 | raw[4 * i + 3];
            else
                memcpy(&y, raw + 4 * i, 4);
            CHECK(x == y, "%s: int %d in the file is 0x%08x, wrote 0x%08x", reps[w], i, y, x);
        }
        /* Read back through every representation that stores the same
         * bytes. */
        for (int rr = 0; rr < 4; rr++) {
            if ((rr >= 2) != big)
                continue;
            memset(r, 0, sizeof r);
            OK(MPI_File_set_view(fh, 32 * rank, MPI_INT, MPI_INT, (char *)reps[rr], MPI_INFO_NULL));
            OK(MPI_File_read_at_all(fh, 0, r, 8, MPI_INT, &st));
            CHECK(memcmp(r, v, sizeof v) == 0, "written as %s, read as %s: differs", reps[w], reps[rr]);
        }
    }
    /* A failing conversion. */
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "swap4", MPI_INFO_NULL));
    conv_fail = 1;
    EXPECT_CLASS(MPI_File_read_at(fh, 0, r, 2, MPI_INT, &st), MPI_ERR_CONVERSION);
    conv_fail = 0;
    /* external32 of long: 4 bytes in the file. */
    OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    MPI_Aint ext;
    OK(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
    CHECK(ext == 4, "external32 extent of MPI_LONG: %ld", (long)ext);
    OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        OK(MPI_File_delete(path("rep"), MPI_INFO_NULL));
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/gmpi-file-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);

    errors_from_causes();
    basics();
    view_shapes();
    datareps();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        const char *left[] = {"exists", "ro", "basic", "app", "rep"};
        for (size_t i = 0; i < sizeof left / sizeof *left; i++) {
            chmod(path(left[i]), 0644);
            unlink(path(left[i]));
        }
        CHECK(rmdir(dir) == 0, "cannot remove %s: %s (files left behind?)", dir, strerror(errno));
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
