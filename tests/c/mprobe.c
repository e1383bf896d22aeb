/* mprobe: matched probe and receive. MPI_Mprobe takes the message out of
 * the matching engine (a later Iprobe/Recv does not see it, and a later
 * message with the same envelope goes to the next receive), MPI_Mrecv and
 * MPI_Imrecv (and _c) receive exactly it; ANY_SOURCE/ANY_TAG from several
 * senders with per-sender order kept; MPI_Improbe with flag false;
 * rendezvous-size messages (> 64 KiB); zero-size messages; MPI_PROC_NULL
 * gives MPI_MESSAGE_NO_PROC, whose receive completes at once with an
 * MPI_PROC_NULL status. Needs at least 2 processes. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static int rank, size, errs;

#define BIG (200 * 1024 / (int)sizeof(int)) /* ints in a rendezvous message */
#define PER 20                               /* messages per sender */

static void basic(void)
{
    int v[3], flag;
    MPI_Message msg;
    MPI_Status st;

    if (rank == 0) {
        v[0] = 11, v[1] = 12, v[2] = 13;
        MPI_Send(v, 3, MPI_INT, 1, 5, MPI_COMM_WORLD);
        v[0] = 21;
        MPI_Send(v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else if (rank == 1) {
        int n = -1;
        MPI_Mprobe(0, 5, MPI_COMM_WORLD, &msg, &st);
        MTEST_CHECK(errs, msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC,
                    "Mprobe message %#x", (unsigned)msg);
        MTEST_CHECK(errs, st.MPI_SOURCE == 0 && st.MPI_TAG == 5, "Mprobe status %d %d",
                    st.MPI_SOURCE, st.MPI_TAG);
        MPI_Get_count(&st, MPI_INT, &n);
        MTEST_CHECK(errs, n == 3, "Mprobe count %d", n);
        /* The second message is the one the next receive gets. */
        MPI_Probe(0, 5, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        MTEST_CHECK(errs, n == 1, "Probe after Mprobe sees count %d (want the 2nd message)", n);
        memset(v, 0, sizeof v);
        MPI_Recv(v, 3, MPI_INT, 0, 5, MPI_COMM_WORLD, &st);
        MTEST_CHECK(errs, v[0] == 21, "Recv after Mprobe got %d", v[0]);
        MPI_Iprobe(0, 5, MPI_COMM_WORLD, &flag, &st);
        MTEST_CHECK(errs, !flag, "Iprobe sees a message already bound by Mprobe");
        memset(v, 0, sizeof v);
        MPI_Mrecv(v, 3, MPI_INT, &msg, &st);
        MTEST_CHECK(errs, msg == MPI_MESSAGE_NULL, "Mrecv left message %#x", (unsigned)msg);
        MTEST_CHECK(errs, v[0] == 11 && v[1] == 12 && v[2] == 13, "Mrecv got %d %d %d", v[0],
                    v[1], v[2]);
        MTEST_CHECK(errs, st.MPI_SOURCE == 0 && st.MPI_TAG == 5, "Mrecv status %d %d",
                    st.MPI_SOURCE, st.MPI_TAG);
    }
}

/* Improbe with nothing there; then with a message. */
static void improbe(void)
{
    int flag = 1, v = 0;
    MPI_Message msg = (MPI_Message)12345;
    MPI_Status st;
    MPI_Request req;

    MPI_Improbe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, &msg, &st);
    MTEST_CHECK(errs, flag == 0, "Improbe on an unused tag: flag %d", flag);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        v = 77;
        MPI_Send(&v, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
    } else if (rank == 1) {
        flag = 0;
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
        MTEST_CHECK(errs, st.MPI_SOURCE == 0 && st.MPI_TAG == 6, "Improbe status %d %d",
                    st.MPI_SOURCE, st.MPI_TAG);
        MPI_Imrecv_c(&v, 1, MPI_INT, &msg, &req);
        MTEST_CHECK(errs, msg == MPI_MESSAGE_NULL, "Imrecv_c left message %#x", (unsigned)msg);
        MPI_Wait(&req, &st);
        MTEST_CHECK(errs, v == 77 && st.MPI_SOURCE == 0, "Imrecv_c got %d from %d", v,
                    st.MPI_SOURCE);
    }
}

/* Every other rank sends PER messages to rank 0 with varying lengths;
 * rank 0 receives them all with Mprobe(ANY_SOURCE, ANY_TAG) + Mrecv into
 * a buffer sized from the status, checking per-sender order. */
static void any_source(void)
{
    int i;
    if (rank != 0) {
        for (i = 0; i < PER; i++) {
            int len = 1 + (i * 7 + rank) % 50, j;
            int *buf = malloc(len * sizeof(int));
            for (j = 0; j < len; j++)
                buf[j] = rank * 100000 + i * 100 + j;
            MPI_Send(buf, len, MPI_INT, 0, i % 3, MPI_COMM_WORLD);
            free(buf);
        }
    } else {
        int *next = calloc(size, sizeof(int)), total = (size - 1) * PER, k;
        for (k = 0; k < total; k++) {
            MPI_Message msg;
            MPI_Status st;
            int n, j, src, seq, *buf;
            MPI_Count nc;
            MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
            src = st.MPI_SOURCE;
            MPI_Get_count(&st, MPI_INT, &n);
            MPI_Get_count_c(&st, MPI_INT, &nc);
            MTEST_CHECK(errs, nc == n, "Get_count_c %ld vs %d", (long)nc, n);
            buf = malloc((n + 1) * sizeof(int));
            if (k % 2)
                MPI_Mrecv(buf, n, MPI_INT, &msg, &st);
            else
                MPI_Mrecv_c(buf, n, MPI_INT, &msg, &st);
            seq = next[src]++;
            MTEST_CHECK(errs, st.MPI_SOURCE == src && st.MPI_TAG == seq % 3,
                        "message %d from %d: tag %d", seq, src, st.MPI_TAG);
            MTEST_CHECK(errs, n == 1 + (seq * 7 + src) % 50, "message %d from %d: %d ints", seq,
                        src, n);
            for (j = 0; j < n; j++)
                if (buf[j] != src * 100000 + seq * 100 + j) {
                    MTEST_CHECK(errs, 0, "message %d from %d: [%d] = %d", seq, src, j, buf[j]);
                    break;
                }
            free(buf);
        }
        for (i = 1; i < size; i++)
            MTEST_CHECK(errs, next[i] == PER, "got %d messages from %d", next[i], i);
        free(next);
    }
}

/* Rendezvous-size messages: Mprobe sees the RTS; the data moves only on
 * Mrecv/Imrecv. */
static void large(void)
{
    int *buf = malloc(BIG * sizeof(int)), i, n, it;
    MPI_Message msg;
    MPI_Status st;
    MPI_Request req;

    for (it = 0; it < 2; it++) {
        if (rank == 0) {
            for (i = 0; i < BIG; i++)
                buf[i] = i * 3 + it;
            MPI_Send(buf, BIG, MPI_INT, 1, 7, MPI_COMM_WORLD);
        } else if (rank == 1) {
            memset(buf, 0, BIG * sizeof(int));
            MPI_Mprobe(0, 7, MPI_COMM_WORLD, &msg, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            MTEST_CHECK(errs, n == BIG, "large Mprobe count %d", n);
            if (it == 0) {
                MPI_Mrecv(buf, BIG, MPI_INT, &msg, &st);
            } else {
                MPI_Imrecv(buf, BIG, MPI_INT, &msg, &req);
                MPI_Wait(&req, &st);
            }
            MPI_Get_count(&st, MPI_INT, &n);
            MTEST_CHECK(errs, n == BIG && st.MPI_SOURCE == 0, "large Mrecv count %d src %d", n,
                        st.MPI_SOURCE);
            for (i = 0; i < BIG; i++)
                if (buf[i] != i * 3 + it) {
                    MTEST_CHECK(errs, 0, "large message %d: [%d] = %d", it, i, buf[i]);
                    break;
                }
        }
    }
    /* A derived (non-contiguous) receive type on a matched message. */
    if (rank == 0) {
        for (i = 0; i < 2 * 1000; i++)
            buf[i] = i;
        MPI_Send(buf, 1000, MPI_INT, 1, 8, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Datatype vec;
        MPI_Type_vector(1000, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        for (i = 0; i < 2 * 1000; i++)
            buf[i] = -1;
        MPI_Mprobe(0, 8, MPI_COMM_WORLD, &msg, &st);
        MPI_Mrecv(buf, 1, vec, &msg, &st);
        for (i = 0; i < 1000; i++)
            if (buf[2 * i] != i || buf[2 * i + 1] != -1) {
                MTEST_CHECK(errs, 0, "vector Mrecv: [%d] = %d, [%d] = %d", 2 * i, buf[2 * i],
                            2 * i + 1, buf[2 * i + 1]);
                break;
            }
        MPI_Type_free(&vec);
    }
    free(buf);
}

static void zero_and_procnull(void)
{
    MPI_Message msg;
    MPI_Status st;
    MPI_Request req;
    int flag = 0, n = -1, v = 5;

    if (rank == 0) {
        MPI_Send(NULL, 0, MPI_INT, 1, 9, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Mprobe(0, 9, MPI_COMM_WORLD, &msg, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        MTEST_CHECK(errs, n == 0, "zero-size Mprobe count %d", n);
        MPI_Mrecv(NULL, 0, MPI_INT, &msg, &st);
        MTEST_CHECK(errs, st.MPI_SOURCE == 0 && st.MPI_TAG == 9, "zero-size Mrecv status %d %d",
                    st.MPI_SOURCE, st.MPI_TAG);
    }

    MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st);
    MTEST_CHECK(errs, msg == MPI_MESSAGE_NO_PROC, "Mprobe PROC_NULL gave %#x", (unsigned)msg);
    MTEST_CHECK(errs, st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
                "Mprobe PROC_NULL status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    MPI_Get_count(&st, MPI_INT, &n);
    MTEST_CHECK(errs, n == 0, "Mprobe PROC_NULL count %d", n);
    st.MPI_SOURCE = 1234;
    MPI_Mrecv(&v, 1, MPI_INT, &msg, &st);
    MTEST_CHECK(errs, msg == MPI_MESSAGE_NULL, "Mrecv NO_PROC left %#x", (unsigned)msg);
    MTEST_CHECK(errs, st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && v == 5,
                "Mrecv NO_PROC status %d %d, buffer %d", st.MPI_SOURCE, st.MPI_TAG, v);

    MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
    MTEST_CHECK(errs, flag && msg == MPI_MESSAGE_NO_PROC, "Improbe PROC_NULL: flag %d msg %#x",
                flag, (unsigned)msg);
    MPI_Imrecv(&v, 1, MPI_INT, &msg, &req);
    MPI_Test(&req, &flag, &st);
    MTEST_CHECK(errs, flag && req == MPI_REQUEST_NULL, "Imrecv NO_PROC not complete at once");
    MTEST_CHECK(errs, st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv NO_PROC status source %d",
                st.MPI_SOURCE);
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "mprobe needs at least 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    basic();
    MPI_Barrier(MPI_COMM_WORLD);
    improbe();
    MPI_Barrier(MPI_COMM_WORLD);
    any_source();
    MPI_Barrier(MPI_COMM_WORLD);
    large();
    MPI_Barrier(MPI_COMM_WORLD);
    zero_and_procnull();
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
