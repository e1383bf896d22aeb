/* status: what receives report. Wildcard receives (MPI_ANY_SOURCE,
 * MPI_ANY_TAG) and the status fields, MPI_Get_count for several datatypes
 * (MPI_UNDEFINED when the bytes are not a whole number of elements),
 * MPI_STATUS_IGNORE, MPI_PROC_NULL, zero-byte messages, the largest tag,
 * and non-overtaking order for one source and tag with mixed sizes. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

/* MPI_ERROR is only required to be set by the multiple-completion calls;
 * a receive may leave it alone, but must not put anything but
 * MPI_SUCCESS there when it succeeds. */
#define ERROR_SENTINEL (-424242)

static int error_ok(const MPI_Status *st)
{
    return st->MPI_ERROR == MPI_SUCCESS || st->MPI_ERROR == ERROR_SENTINEL;
}

static void reset(MPI_Status *st)
{
    st->MPI_SOURCE = -77;
    st->MPI_TAG = -77;
    st->MPI_ERROR = ERROR_SENTINEL;
}

/* Phase 1: every rank but 0 sends rank+1 ints with tag 10+rank; rank 0
 * takes them with MPI_ANY_SOURCE and MPI_ANY_TAG. */
static int wildcards(int rank, int size)
{
    int errs = 0, i, j;
    int buf[64];

    if (rank != 0) {
        for (i = 0; i <= rank; i++)
            buf[i] = rank * 100 + i;
        MPI_Send(buf, rank + 1, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD);
        return 0;
    }
    {
        int *seen = calloc(size, sizeof(int));
        for (j = 1; j < size; j++) {
            MPI_Status st;
            int count = -1, src;
            reset(&st);
            memset(buf, 0xff, sizeof buf);
            MPI_Recv(buf, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            src = st.MPI_SOURCE;
            MTEST_CHECK(errs, src > 0 && src < size, "wildcard receive: source %d", src);
            if (src <= 0 || src >= size)
                continue;
            MTEST_CHECK(errs, !seen[src], "source %d received twice", src);
            seen[src] = 1;
            MTEST_CHECK(errs, st.MPI_TAG == 10 + src, "source %d: tag %d, want %d", src, st.MPI_TAG,
                        10 + src);
            MTEST_CHECK(errs, error_ok(&st), "source %d: MPI_ERROR %d", src, st.MPI_ERROR);
            MPI_Get_count(&st, MPI_INT, &count);
            MTEST_CHECK(errs, count == src + 1, "source %d: count %d, want %d", src, count, src + 1);
            for (i = 0; i <= src && i < 64; i++)
                MTEST_CHECK(errs, buf[i] == src * 100 + i, "source %d: buf[%d] = %d", src, i,
                            buf[i]);
            MTEST_CHECK(errs, buf[src + 1] == -1, "source %d: wrote past the message", src);
        }
        free(seen);
    }
    return errs;
}

/* Phase 2 (ranks 0 and 1): counts in several datatypes. */
static int counts(int rank)
{
    int errs = 0;
    char bytes[64];
    MPI_Status st;
    int count;

    if (rank == 1) {
        memset(bytes, 7, sizeof bytes);
        MPI_Send(bytes, 12, MPI_BYTE, 0, 20, MPI_COMM_WORLD);
        MPI_Send(bytes, 16, MPI_BYTE, 0, 21, MPI_COMM_WORLD);
        MPI_Send(bytes, 5, MPI_CHAR, 0, 22, MPI_COMM_WORLD);
        return 0;
    }
    if (rank != 0)
        return 0;

    reset(&st);
    MPI_Recv(bytes, 64, MPI_BYTE, 1, 20, MPI_COMM_WORLD, &st);
    MTEST_CHECK(errs, st.MPI_SOURCE == 1 && st.MPI_TAG == 20 && error_ok(&st),
                "12 bytes: source %d tag %d error %d", st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
    MPI_Get_count(&st, MPI_BYTE, &count);
    MTEST_CHECK(errs, count == 12, "12 bytes as MPI_BYTE: %d", count);
    MPI_Get_count(&st, MPI_CHAR, &count);
    MTEST_CHECK(errs, count == 12, "12 bytes as MPI_CHAR: %d", count);
    MPI_Get_count(&st, MPI_SHORT, &count);
    MTEST_CHECK(errs, count == 6, "12 bytes as MPI_SHORT: %d", count);
    MPI_Get_count(&st, MPI_INT, &count);
    MTEST_CHECK(errs, count == 3, "12 bytes as MPI_INT: %d", count);
    MPI_Get_count(&st, MPI_FLOAT, &count);
    MTEST_CHECK(errs, count == 3, "12 bytes as MPI_FLOAT: %d", count);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    MTEST_CHECK(errs, count == MPI_UNDEFINED, "12 bytes as MPI_DOUBLE: %d, want MPI_UNDEFINED",
                count);
    MPI_Get_count(&st, MPI_LONG, &count);
    MTEST_CHECK(errs, count == MPI_UNDEFINED, "12 bytes as MPI_LONG: %d, want MPI_UNDEFINED", count);

    reset(&st);
    MPI_Recv(bytes, 64, MPI_BYTE, 1, 21, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    MTEST_CHECK(errs, count == 2, "16 bytes as MPI_DOUBLE: %d", count);
    MPI_Get_count(&st, MPI_LONG_LONG, &count);
    MTEST_CHECK(errs, count == 2, "16 bytes as MPI_LONG_LONG: %d", count);
    MPI_Get_count(&st, MPI_INT, &count);
    MTEST_CHECK(errs, count == 4, "16 bytes as MPI_INT: %d", count);

    /* Received as MPI_CHAR, counted as MPI_INT: 5 bytes is not whole. */
    reset(&st);
    MPI_Recv(bytes, 64, MPI_CHAR, MPI_ANY_SOURCE, 22, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_CHAR, &count);
    MTEST_CHECK(errs, count == 5, "5 chars as MPI_CHAR: %d", count);
    MPI_Get_count(&st, MPI_INT, &count);
    MTEST_CHECK(errs, count == MPI_UNDEFINED, "5 chars as MPI_INT: %d, want MPI_UNDEFINED", count);
    return errs;
}

/* Phase 3 (ranks 0 and 1): MPI_STATUS_IGNORE, zero-byte messages, the
 * largest tag. */
static int specials(int rank)
{
    int errs = 0, buf[10], i, flag = 0, count, *tag_ub_p = NULL, tag_ub;
    MPI_Status st;

    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub_p, &flag);
    MTEST_CHECK(errs, flag && tag_ub_p && *tag_ub_p >= 32767, "MPI_TAG_UB: flag %d value %d", flag,
                tag_ub_p ? *tag_ub_p : -1);
    tag_ub = (flag && tag_ub_p) ? *tag_ub_p : 32767;

    if (rank == 1) {
        for (i = 0; i < 10; i++)
            buf[i] = i + 1;
        MPI_Send(buf, 10, MPI_INT, 0, 30, MPI_COMM_WORLD);
        MPI_Send(NULL, 0, MPI_INT, 0, 31, MPI_COMM_WORLD);
        MPI_Send(buf, 0, MPI_DOUBLE, 0, 32, MPI_COMM_WORLD);
        MPI_Send(buf, 1, MPI_INT, 0, tag_ub, MPI_COMM_WORLD);
        return errs;
    }
    if (rank != 0)
        return errs;

    memset(buf, 0, sizeof buf);
    MPI_Recv(buf, 10, MPI_INT, 1, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (i = 0; i < 10; i++)
        MTEST_CHECK(errs, buf[i] == i + 1, "MPI_STATUS_IGNORE receive: buf[%d] = %d", i, buf[i]);

    for (i = 0; i < 10; i++)
        buf[i] = -3;
    reset(&st);
    MPI_Recv(buf, 10, MPI_INT, 1, 31, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    MTEST_CHECK(errs, count == 0 && st.MPI_SOURCE == 1 && st.MPI_TAG == 31 && error_ok(&st),
                "zero-byte message: count %d source %d tag %d", count, st.MPI_SOURCE, st.MPI_TAG);
    MTEST_CHECK(errs, buf[0] == -3, "zero-byte message wrote the buffer");

    reset(&st);
    MPI_Recv(buf, 10, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    MTEST_CHECK(errs, count == 0 && st.MPI_SOURCE == 1 && st.MPI_TAG == 32,
                "zero-count double message: count %d source %d tag %d", count, st.MPI_SOURCE,
                st.MPI_TAG);

    reset(&st);
    MPI_Recv(buf, 10, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MTEST_CHECK(errs, st.MPI_TAG == tag_ub && buf[0] == 1, "tag MPI_TAG_UB: tag %d, value %d",
                st.MPI_TAG, buf[0]);
    return errs;
}

/* MPI_PROC_NULL: sends do nothing, receives complete at once. */
static int proc_null(void)
{
    int errs = 0, buf[4] = {5, 6, 7, 8}, count = -1, rc;
    MPI_Status st;

    rc = MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "send to MPI_PROC_NULL returned %d", rc);
    reset(&st);
    rc = MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "receive from MPI_PROC_NULL returned %d", rc);
    MTEST_CHECK(errs, st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL receive: source %d",
                st.MPI_SOURCE);
    MTEST_CHECK(errs, st.MPI_TAG == MPI_ANY_TAG, "MPI_PROC_NULL receive: tag %d", st.MPI_TAG);
    MPI_Get_count(&st, MPI_INT, &count);
    MTEST_CHECK(errs, count == 0, "MPI_PROC_NULL receive: count %d", count);
    MTEST_CHECK(errs, buf[0] == 5 && buf[3] == 8, "MPI_PROC_NULL receive wrote the buffer");
    rc = MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "receive from MPI_PROC_NULL, status ignored: %d", rc);
    return errs;
}

/* Phase 4 (ranks 0 and 1): rank 1 sends NMSG messages with one tag,
 * alternating small and large, so eager and rendezvous messages mix;
 * rank 0 must get them in order, whether it names the source and tag or
 * uses wildcards. */
#define NMSG 40
#define BIG (256 * 1024)
static int ordering(int rank)
{
    int errs = 0, m;
    int *buf = malloc(BIG * sizeof(int));

    if (rank == 1) {
        for (m = 0; m < NMSG; m++) {
            int n = (m % 3 == 2) ? BIG : (m % 3 == 1 ? 100 : 1), i;
            for (i = 0; i < n; i++)
                buf[i] = m * 7 + i;
            MPI_Send(buf, n, MPI_INT, 0, 40, MPI_COMM_WORLD);
        }
    } else if (rank == 0) {
        for (m = 0; m < NMSG; m++) {
            int n = (m % 3 == 2) ? BIG : (m % 3 == 1 ? 100 : 1), count = -1;
            MPI_Status st;
            reset(&st);
            if (m < NMSG / 2)
                MPI_Recv(buf, BIG, MPI_INT, 1, 40, MPI_COMM_WORLD, &st);
            else
                MPI_Recv(buf, BIG, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &count);
            MTEST_CHECK(errs, count == n && buf[0] == m * 7 && buf[n - 1] == m * 7 + n - 1,
                        "message %d: count %d (want %d), first %d (want %d): out of order?", m,
                        count, n, buf[0], m * 7);
            MTEST_CHECK(errs, st.MPI_SOURCE == 1 && st.MPI_TAG == 40, "message %d: source %d tag %d",
                        m, st.MPI_SOURCE, st.MPI_TAG);
        }
    }
    free(buf);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    errs += proc_null();
    if (size >= 2) {
        errs += wildcards(rank, size);
        MPI_Barrier(MPI_COMM_WORLD);
        errs += counts(rank);
        MPI_Barrier(MPI_COMM_WORLD);
        errs += specials(rank);
        MPI_Barrier(MPI_COMM_WORLD);
        errs += ordering(rank);
    } else {
        printf("status: 1 process, only the MPI_PROC_NULL checks run\n");
    }

    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
