/* overflow_err: arguments that only go wrong once multiplied or added -
 * counts times extents that overflow or exceed the message limit,
 * MPI_Aint displacements near the end of the range, NULL buffers with a
 * positive count - in point-to-point, collectives, one-sided, I/O,
 * pack and datatype constructors. Each call must fail with the class the
 * standard names where it names one (MPI_ERR_COUNT, MPI_ERR_BUFFER), and
 * otherwise with some error other than MPI_ERR_INTERN (which would be a
 * Go panic caught at the boundary); none may succeed or crash. */
#include "mtest_err.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define AINT_MAX ((MPI_Aint)INTPTR_MAX)
#define AINT_MIN ((MPI_Aint)INTPTR_MIN)

static int fails_not_intern(int rc, const char *call, int line)
{
    int cls = -1;
    if (rc == MPI_SUCCESS) {
        fprintf(stderr, "line %d: %s succeeded\n", line, call);
        return 1;
    }
    MPI_Error_class(rc, &cls);
    if (cls == MPI_ERR_INTERN || cls == MPI_ERR_OTHER) {
        char s[MPI_MAX_ERROR_STRING];
        int n;
        MPI_Error_string(rc, s, &n);
        fprintf(stderr, "line %d: %s: class %d (%s)\n", line, call, cls, s);
        return 1;
    }
    return 0;
}
#define NOT_INTERN(errs, call) ((errs) += fails_not_intern((call), #call, __LINE__))

int main(int argc, char **argv)
{
    int errs = 0, rank;
    int buf[16] = {0}, out[16];
    MPI_Datatype big, t;
    MPI_Win win;
    MPI_File fh;
    char path[64];

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    /* 2^20 doubles: INT_MAX of them is 2^54 bytes. */
    MPI_Type_contiguous(1 << 20, MPI_DOUBLE, &big);
    MPI_Type_commit(&big);

    /* NULL buffers with a positive count. */
    EXPECT_ERR(errs, MPI_Allreduce(buf, NULL, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Allreduce", NULL);
    EXPECT_ERR(errs, MPI_Allreduce(NULL, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Allreduce", NULL);
    EXPECT_ERR(errs, MPI_Reduce_local(buf, NULL, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "MPI_Reduce_local", NULL);
    EXPECT_ERR(errs, MPI_Bcast(NULL, 4, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bcast", NULL);
    EXPECT_ERR(errs, MPI_Send(NULL, 1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Send", NULL);

    /* Counts that overflow with the extent or exceed the message limit. */
    EXPECT_ERR(errs, MPI_Send(buf, INT32_MAX, big, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send", NULL);
    EXPECT_ERR(errs, MPI_Send_c(buf, (MPI_Count)1 << 62, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send_c", NULL);
    EXPECT_ERR(errs, MPI_Bcast(buf, INT32_MAX, big, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Bcast", NULL);
    EXPECT_ERR(errs, MPI_Allreduce(buf, out, INT32_MAX, big, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Allreduce", NULL);
    EXPECT_ERR(errs, MPI_Reduce_local_c(buf, out, (MPI_Count)1 << 61, MPI_INT, MPI_SUM), MPI_ERR_COUNT, "MPI_Reduce_local_c", NULL);
    {
        int size;
        MPI_Count csize;
        NOT_INTERN(errs, MPI_Pack_size(INT32_MAX, big, MPI_COMM_WORLD, &size));
        NOT_INTERN(errs, MPI_Pack_size_c((MPI_Count)1 << 62, MPI_DOUBLE, MPI_COMM_WORLD, &csize));
        MPI_Aint pos = 0;
        NOT_INTERN(errs, MPI_Pack(buf, INT32_MAX, big, out, sizeof out, (int[]){0}, MPI_COMM_WORLD));
        NOT_INTERN(errs, MPI_Pack_external("external32", buf, INT32_MAX, big, out, sizeof out, &pos));
    }

    /* Datatype constructors whose extent or bounds overflow MPI_Aint. */
    NOT_INTERN(errs, MPI_Type_create_hvector(INT32_MAX, 2, AINT_MAX / 4, MPI_INT, &t));
    NOT_INTERN(errs, MPI_Type_vector(INT32_MAX, INT32_MAX, INT32_MAX, big, &t));
    NOT_INTERN(errs, MPI_Type_contiguous(INT32_MAX, big, &t) == MPI_SUCCESS
                         ? (MPI_Type_contiguous(INT32_MAX, t, &t))
                         : MPI_ERR_COUNT);
    {
        int bl[2] = {1, 1};
        MPI_Aint d[2] = {0, AINT_MAX - 2};
        MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
        NOT_INTERN(errs, MPI_Type_create_struct(2, bl, d, ty, &t));
        MPI_Aint d2[2] = {AINT_MIN, AINT_MAX - 8};
        NOT_INTERN(errs, MPI_Type_create_hindexed(2, bl, d2, MPI_INT, &t));
    }
    NOT_INTERN(errs, MPI_Type_create_resized(MPI_INT, AINT_MAX, AINT_MAX, &t));
    NOT_INTERN(errs, MPI_Type_create_resized(MPI_INT, AINT_MIN, -1, &t));

    /* One-sided: counts and target displacements that overflow. */
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    EXPECT_ERR(errs, MPI_Put_c(out, (MPI_Count)1 << 62, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_COUNT, "MPI_Put_c", NULL);
    EXPECT_ERR(errs, MPI_Put(out, INT32_MAX, big, 0, 0, 1, MPI_INT, win), MPI_ERR_COUNT, "MPI_Put", NULL);
    NOT_INTERN(errs, MPI_Put(out, 1, MPI_INT, 0, AINT_MAX, 1, MPI_INT, win));
    NOT_INTERN(errs, MPI_Put(out, 1, MPI_INT, 0, AINT_MAX / 2, 1, MPI_INT, win));
    NOT_INTERN(errs, MPI_Get(out, 1, MPI_INT, 0, -1, 1, MPI_INT, win));
    NOT_INTERN(errs, MPI_Accumulate(out, 1, MPI_INT, 0, AINT_MAX / 4, 1, MPI_INT, MPI_SUM, win));
    NOT_INTERN(errs, MPI_Get(out, 1, MPI_INT, 0, 0, INT32_MAX, big, win));
    NOT_INTERN(errs, MPI_Fetch_and_op(buf, out, MPI_INT, 0, AINT_MAX, MPI_SUM, win));
    NOT_INTERN(errs, MPI_Compare_and_swap(buf, buf + 1, out, MPI_INT, 0, AINT_MIN, win));
    MPI_Win_unlock(0, win);
    MPI_Win_free(&win);

    /* I/O: counts that overflow, offsets past the end of the range. */
    snprintf(path, sizeof path, "/tmp/overflow_err-%d-%d.dat", (int)getpid(), rank);
    if (MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) == MPI_SUCCESS) {
        unlink(path);
        EXPECT_ERR(errs, MPI_File_write_c(fh, buf, (MPI_Count)1 << 62, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT,
                   "MPI_File_write_c", NULL);
        EXPECT_ERR(errs, MPI_File_write(fh, buf, INT32_MAX, big, MPI_STATUS_IGNORE), MPI_ERR_COUNT, "MPI_File_write", NULL);
        EXPECT_ERR(errs, MPI_File_write(fh, NULL, 4, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_BUFFER, "MPI_File_write", NULL);
        NOT_INTERN(errs, MPI_File_write_at(fh, (MPI_Offset)INT64_MAX - 2, buf, 4, MPI_INT, MPI_STATUS_IGNORE));
        NOT_INTERN(errs, MPI_File_read_at(fh, -5, out, 4, MPI_INT, MPI_STATUS_IGNORE));
        NOT_INTERN(errs, MPI_File_set_view(fh, INT64_MAX, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) == MPI_SUCCESS
                             ? MPI_File_write(fh, buf, 4, MPI_INT, MPI_STATUS_IGNORE)
                             : MPI_ERR_ARG);
        NOT_INTERN(errs, MPI_File_seek(fh, INT64_MAX, MPI_SEEK_CUR) == MPI_SUCCESS
                             ? MPI_File_seek(fh, INT64_MAX, MPI_SEEK_CUR)
                             : MPI_ERR_ARG);
        MPI_File_close(&fh);
    } else {
        fprintf(stderr, "cannot open %s\n", path);
        errs++;
    }

    MPI_Type_free(&big);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
