/* p2p_semantics: point-to-point behaviour beyond plain send/receive.
 *  - MPI_PROC_NULL on every send, receive, probe and persistent call
 *    (int and _c forms): success at once, receives report source
 *    MPI_PROC_NULL, tag MPI_ANY_TAG, count 0 and leave the buffer alone.
 *  - Zero-size messages (NULL buffers, derived types, synchronous mode).
 *  - Ready sends (Rsend, Irsend, Rsend_init; eager and rendezvous sizes)
 *    after the receiver announced its posted receive.
 *  - Synchronous sends complete only after the match: the receiver holds
 *    back its receive for a while and checks that a message the sender
 *    sends after its Ssend/Issend completed has not arrived before it
 *    posted the receive (a correct library can never fail this check).
 *  - The _c (MPI_Count) forms move data and report counts.
 *  - MPI_Finalize with a buffered send in flight and the buffer attached.
 * Pairs of ranks (even sender, odd receiver); any process count. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, errs, peer;

#define BIG (100 * 1024 / (int)sizeof(int)) /* ints: rendezvous size */

static void check_null_status(MPI_Status *st, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    MTEST_CHECK(errs, st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && n == 0,
                "%s: source %d tag %d count %d", what, st->MPI_SOURCE, st->MPI_TAG, n);
}

static void proc_null(void)
{
    int v = 5, flag = 0, i;
    MPI_Request r[12];
    MPI_Status st, sts[12];
    MPI_Message msg;

#define OK(call) MTEST_CHECK(errs, (call) == MPI_SUCCESS, "%s failed", #call)
    OK(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    OK(MPI_Ssend(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    OK(MPI_Rsend(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    OK(MPI_Bsend(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD)); /* no buffer needed */
    OK(MPI_Send_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    OK(MPI_Ssend_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    OK(MPI_Rsend_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    OK(MPI_Bsend_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    st.MPI_SOURCE = 77;
    OK(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv");
    st.MPI_SOURCE = 77;
    OK(MPI_Recv_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv_c");
    OK(MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, &v, 1, MPI_INT, MPI_PROC_NULL, 0,
                    MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv");
    OK(MPI_Sendrecv_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, &v, 1, MPI_INT, MPI_PROC_NULL, 0,
                      MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv_c");
    OK(MPI_Sendrecv_replace(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
                            &st));
    check_null_status(&st, "Sendrecv_replace");
    OK(MPI_Sendrecv_replace_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0,
                              MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv_replace_c");
    OK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Probe");
    OK(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st));
    MTEST_CHECK(errs, flag, "Iprobe PROC_NULL: flag 0");
    check_null_status(&st, "Iprobe");
    OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    OK(MPI_Mrecv_c(&v, 1, MPI_INT, &msg, &st));
    check_null_status(&st, "Mrecv_c NO_PROC");

    OK(MPI_Isend(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]));
    OK(MPI_Issend(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]));
    OK(MPI_Irsend(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[2]));
    OK(MPI_Ibsend(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[3]));
    OK(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[4]));
    OK(MPI_Isend_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[5]));
    OK(MPI_Issend_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[6]));
    OK(MPI_Irsend_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[7]));
    OK(MPI_Ibsend_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[8]));
    OK(MPI_Irecv_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[9]));
    OK(MPI_Waitall(10, r, sts));
    check_null_status(&sts[4], "Irecv");
    check_null_status(&sts[9], "Irecv_c");

    OK(MPI_Send_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]));
    OK(MPI_Ssend_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]));
    OK(MPI_Rsend_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[2]));
    OK(MPI_Bsend_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[3]));
    OK(MPI_Recv_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[4]));
    OK(MPI_Send_init_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[5]));
    OK(MPI_Ssend_init_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[6]));
    OK(MPI_Rsend_init_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[7]));
    OK(MPI_Bsend_init_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[8]));
    OK(MPI_Recv_init_c(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[9]));
    OK(MPI_Startall(10, r));
    OK(MPI_Waitall(10, r, sts));
    check_null_status(&sts[4], "Recv_init");
    check_null_status(&sts[9], "Recv_init_c");
    for (i = 0; i < 10; i++)
        MPI_Request_free(&r[i]);
    MTEST_CHECK(errs, v == 5, "a PROC_NULL receive wrote the buffer: %d", v);
}

static void zero_size(void)
{
    MPI_Status st;
    MPI_Request r;
    MPI_Datatype vec;
    int buf[4] = {9, 9, 9, 9}, n = -1;
    MPI_Count nc = -1;

    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    if (rank % 2 == 0) {
        MPI_Send(NULL, 0, MPI_INT, peer, 1, MPI_COMM_WORLD);
        MPI_Ssend(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
        MPI_Send_c(buf, 0, vec, peer, 3, MPI_COMM_WORLD);
        MPI_Issend(NULL, 0, MPI_INT, peer, 4, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(buf, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        MTEST_CHECK(errs, n == 0 && buf[0] == 9, "zero-size Recv: count %d buf %d", n, buf[0]);
        MPI_Recv(NULL, 0, MPI_INT, peer, 2, MPI_COMM_WORLD, &st);
        MTEST_CHECK(errs, st.MPI_TAG == 2 && st.MPI_SOURCE == peer, "zero-size Ssend: tag %d",
                    st.MPI_TAG);
        MPI_Recv_c(buf, 2, vec, peer, 3, MPI_COMM_WORLD, &st);
        MPI_Get_count_c(&st, vec, &nc);
        MTEST_CHECK(errs, nc == 0 && buf[0] == 9, "zero-size vector: count %ld", (long)nc);
        MPI_Recv(buf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        MTEST_CHECK(errs, n == 0 && st.MPI_TAG == 4, "zero-size Issend: count %d tag %d", n,
                    st.MPI_TAG);
    }
    MPI_Type_free(&vec);
}

/* The receiver posts, then tells the sender; the ready sends follow. */
static void ready(void)
{
    int *big = malloc(BIG * sizeof(int)), small = 0, go = 0, i, k;
    MPI_Request r[3], pr;

    if (rank % 2 == 1) {
        for (k = 0; k < 2; k++) {
            memset(big, 0, BIG * sizeof(int));
            small = 0;
            MPI_Irecv(&small, 1, MPI_INT, peer, 20, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(big, BIG, MPI_INT, peer, 21, MPI_COMM_WORLD, &r[1]);
            MPI_Irecv(&go, 1, MPI_INT, peer, 22, MPI_COMM_WORLD, &r[2]);
            MPI_Send(&go, 1, MPI_INT, peer, 23, MPI_COMM_WORLD); /* receives are posted */
            MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
            MTEST_CHECK(errs, small == 10 + k && go == 30 + k, "ready: small %d go %d", small,
                        go);
            for (i = 0; i < BIG; i++)
                if (big[i] != i + k) {
                    MTEST_CHECK(errs, 0, "ready rendezvous [%d] = %d", i, big[i]);
                    break;
                }
        }
    } else {
        int v3 = 30;
        MPI_Rsend_init(&v3, 1, MPI_INT, peer, 22, MPI_COMM_WORLD, &pr);
        for (k = 0; k < 2; k++) {
            for (i = 0; i < BIG; i++)
                big[i] = i + k;
            small = 10 + k;
            v3 = 30 + k;
            MPI_Recv(&go, 1, MPI_INT, peer, 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (k == 0) {
                MPI_Rsend(&small, 1, MPI_INT, peer, 20, MPI_COMM_WORLD);
                MPI_Irsend(big, BIG, MPI_INT, peer, 21, MPI_COMM_WORLD, &r[0]);
            } else {
                MPI_Rsend_c(&small, 1, MPI_INT, peer, 20, MPI_COMM_WORLD);
                MPI_Irsend_c(big, BIG, MPI_INT, peer, 21, MPI_COMM_WORLD, &r[0]);
            }
            MPI_Start(&pr);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
            MPI_Wait(&pr, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&pr);
    }
    free(big);
}

/* Ssend/Issend/Ssend_init (eager and rendezvous sizes) must not complete
 * before the receiver posts: after each completes, the sender sends a
 * "done" message; the receiver, before posting the receive, lets time
 * pass and checks that "done" has not arrived. */
static void synchronous(void)
{
    int *big = malloc(BIG * sizeof(int)), v = 1, done = 0, k, flag;
    MPI_Request r, dr;
    MPI_Status st;

    for (k = 0; k < 4; k++) {
        int count = (k % 2) ? BIG : 1;
        if (rank % 2 == 0) {
            big[0] = k;
            if (k < 2) {
                MPI_Ssend(big, count, MPI_INT, peer, 40, MPI_COMM_WORLD);
            } else if (k == 2) {
                MPI_Issend(big, count, MPI_INT, peer, 40, MPI_COMM_WORLD, &r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            } else {
                MPI_Ssend_init(big, count, MPI_INT, peer, 40, MPI_COMM_WORLD, &r);
                MPI_Start(&r);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
                MPI_Request_free(&r);
            }
            MPI_Send(&v, 1, MPI_INT, peer, 41, MPI_COMM_WORLD);
        } else {
            int i;
            MPI_Irecv(&done, 1, MPI_INT, peer, 41, MPI_COMM_WORLD, &dr);
            for (i = 0; i < 20; i++) {
                usleep(10000);
                MPI_Test(&dr, &flag, &st);
                MTEST_CHECK(errs, !flag, "case %d: the synchronous send completed before the "
                            "receive was posted", k);
                if (flag)
                    break;
            }
            MPI_Recv(big, count, MPI_INT, peer, 40, MPI_COMM_WORLD, &st);
            MTEST_CHECK(errs, big[0] == k, "synchronous case %d got %d", k, big[0]);
            if (!flag)
                MPI_Wait(&dr, MPI_STATUS_IGNORE);
        }
    }
    free(big);
}

/* _c forms move data; Get_count_c and Get_elements_c report it. */
static void large_count_forms(void)
{
    int *buf = malloc(BIG * sizeof(int)), i;
    MPI_Status st;
    MPI_Count nc = 0, ne = 0;
    MPI_Request r;

    if (rank % 2 == 0) {
        for (i = 0; i < BIG; i++)
            buf[i] = 7 * i;
        MPI_Send_c(buf, (MPI_Count)BIG, MPI_INT, peer, 50, MPI_COMM_WORLD);
        MPI_Isend_c(buf, 3, MPI_INT, peer, 51, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Sendrecv_replace_c(buf, 5, MPI_INT, peer, 52, peer, 53, MPI_COMM_WORLD, &st);
        MTEST_CHECK(errs, buf[0] == -1 && buf[4] == -5, "Sendrecv_replace_c got %d %d", buf[0],
                    buf[4]);
    } else {
        MPI_Recv_c(buf, (MPI_Count)BIG, MPI_INT, peer, 50, MPI_COMM_WORLD, &st);
        MPI_Get_count_c(&st, MPI_INT, &nc);
        MPI_Get_elements_c(&st, MPI_INT, &ne);
        MTEST_CHECK(errs, nc == BIG && ne == BIG, "Recv_c: count %ld elements %ld", (long)nc,
                    (long)ne);
        for (i = 0; i < BIG; i++)
            if (buf[i] != 7 * i) {
                MTEST_CHECK(errs, 0, "Send_c/Recv_c [%d] = %d", i, buf[i]);
                break;
            }
        MPI_Irecv_c(buf, 10, MPI_INT, peer, 51, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, &st);
        MPI_Get_count_c(&st, MPI_INT, &nc);
        MTEST_CHECK(errs, nc == 3 && buf[2] == 14, "Irecv_c: count %ld", (long)nc);
        for (i = 0; i < 5; i++)
            buf[i] = -(i + 1);
        MPI_Sendrecv_c(buf, 5, MPI_INT, peer, 53, buf + 5, 5, MPI_INT, peer, 52, MPI_COMM_WORLD,
                       &st);
        MTEST_CHECK(errs, buf[5] == 0 && buf[9] == 28, "Sendrecv_c got %d %d", buf[5], buf[9]);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    static char bbuf[BIG * sizeof(int) + MPI_BSEND_OVERHEAD];
    int *big;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    peer = rank ^ 1;
    if (peer >= size)
        peer = -1;

    proc_null();
    if (peer >= 0) {
        zero_size();
        ready();
        synchronous();
        large_count_forms();
    }
    /* A buffered rendezvous send still in flight at MPI_Finalize, with
     * the buffer still attached: Finalize waits for it and detaches. */
    big = malloc(BIG * sizeof(int));
    if (peer >= 0 && rank % 2 == 0) {
        int i;
        for (i = 0; i < BIG; i++)
            big[i] = i ^ 0x5a5a;
        MPI_Buffer_attach(bbuf, sizeof bbuf);
        MPI_Bsend(big, BIG, MPI_INT, peer, 60, MPI_COMM_WORLD);
        memset(big, 0, BIG * sizeof(int)); /* the buffered copy is what is sent */
    } else if (peer >= 0) {
        int i;
        usleep(50000);
        MPI_Recv(big, BIG, MPI_INT, peer, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < BIG; i++)
            if (big[i] != (i ^ 0x5a5a)) {
                MTEST_CHECK(errs, 0, "Bsend at Finalize: [%d] = %d", i, big[i]);
                break;
            }
    }
    MTest_Finalize(errs);
    free(big);
    return MTestReturnValue(errs);
}
