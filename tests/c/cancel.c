/* cancel: MPI_Cancel of sends and receives.
 *  - A send not yet matched at the receiver is cancelled: MPI_Wait
 *    completes, MPI_Test_cancelled says true, and the receiver never sees
 *    the message (Iprobe after a barrier finds nothing, and a later message
 *    with the same envelope is the one received). Eager standard sends
 *    (complete locally before the cancel), synchronous sends, rendezvous
 *    sends (> 64 KiB), buffered sends (the buffer space comes back) and
 *    started persistent sends (which can be started again afterwards).
 *  - A send the receiver already received cannot be cancelled: Wait
 *    completes normally and Test_cancelled says false.
 *  - A posted receive is cancelled; a receive already satisfied is not.
 *  - Cancelling a send to oneself.
 * Ranks pair up (even sender, odd receiver); any process count works. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static int rank, size, errs;
static int peer; /* partner of the pair, -1 without one */

#define BIG (100 * 1024) /* bytes: rendezvous */

static int cancelled(MPI_Status *st)
{
    int flag = -1;
    MPI_Test_cancelled(st, &flag);
    return flag;
}

/* Sender side: start one send per kind, cancel each, wait. */
static void cancel_unmatched_sender(void)
{
    static char big[BIG];
    int small = 1, small2 = 2, one = 3, i;
    MPI_Request req[5];
    MPI_Status st;
    const char *what[5] = {"Isend eager", "Issend", "Isend rendezvous", "Send_init+Start",
                           "Ibsend rendezvous"};
    static char bbuf[BIG + MPI_BSEND_OVERHEAD];
    void *p;
    int n;

    memset(big, 'x', sizeof big);
    MPI_Buffer_attach(bbuf, sizeof bbuf);
    MPI_Isend(&small, 1, MPI_INT, peer, 30, MPI_COMM_WORLD, &req[0]);
    MPI_Issend(&small2, 1, MPI_INT, peer, 30, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(big, BIG, MPI_CHAR, peer, 31, MPI_COMM_WORLD, &req[2]);
    MPI_Send_init(&one, 1, MPI_INT, peer, 32, MPI_COMM_WORLD, &req[3]);
    MPI_Start(&req[3]);
    MPI_Ibsend(big, BIG, MPI_CHAR, peer, 33, MPI_COMM_WORLD, &req[4]);
    /* The buffer is full now. */
    MTEST_CHECK(errs, MPI_Bsend(big, BIG, MPI_CHAR, peer, 34, MPI_COMM_WORLD) != MPI_SUCCESS,
                "Bsend into a full buffer succeeded");
    for (i = 0; i < 5; i++)
        MPI_Cancel(&req[i]);
    for (i = 0; i < 5; i++) {
        MPI_Wait(&req[i], &st);
        MTEST_CHECK(errs, cancelled(&st) == 1, "%s to %d: not cancelled", what[i], peer);
    }
    MTEST_CHECK(errs, req[3] != MPI_REQUEST_NULL, "Wait freed the persistent request");
    /* The cancelled buffered send gave its space back. */
    MTEST_CHECK(errs, MPI_Bsend(big, BIG, MPI_CHAR, peer, 34, MPI_COMM_WORLD) == MPI_SUCCESS,
                "Bsend after cancelling the buffered send failed");
    /* Real messages with the same envelopes, and the persistent request
     * once more (after the barrier: the receiver posts its receives only
     * then, so the cancelled messages found none). */
    MPI_Barrier(MPI_COMM_WORLD);
    small = 100;
    MPI_Send(&small, 1, MPI_INT, peer, 30, MPI_COMM_WORLD);
    big[0] = 'y';
    MPI_Send(big, BIG, MPI_CHAR, peer, 31, MPI_COMM_WORLD);
    one = 300;
    MPI_Start(&req[3]);
    MPI_Wait(&req[3], &st);
    MTEST_CHECK(errs, cancelled(&st) == 0, "restarted persistent send says cancelled");
    MPI_Request_free(&req[3]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Buffer_detach(&p, &n); /* the Bsend of tag 34 is received: no hang */
}

static void cancel_unmatched_receiver(void)
{
    int v = 0, flag = 1;
    static char big[BIG];
    MPI_Status st;

    /* The sender cancelled everything before this barrier and sends the
     * real messages after it; they are the only ones here. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(&v, 1, MPI_INT, peer, 30, MPI_COMM_WORLD, &st);
    MTEST_CHECK(errs, v == 100, "tag 30: got %d, a cancelled message", v);
    MPI_Recv(big, BIG, MPI_CHAR, peer, 31, MPI_COMM_WORLD, &st);
    MTEST_CHECK(errs, big[0] == 'y', "tag 31: got the cancelled message");
    MPI_Recv(&v, 1, MPI_INT, peer, 32, MPI_COMM_WORLD, &st);
    MTEST_CHECK(errs, v == 300, "tag 32: got %d, the cancelled persistent send", v);
    MPI_Recv(big, BIG, MPI_CHAR, peer, 34, MPI_COMM_WORLD, &st);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iprobe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    MTEST_CHECK(errs, !flag, "a cancelled message arrived: tag %d", st.MPI_TAG);
}

/* The receiver receives first and says so; then the sender cancels. */
static void cancel_matched(void)
{
    static char big[BIG];
    int v = 7, ack, i;
    MPI_Request req[3];
    MPI_Status st;

    if (rank % 2 == 0) {
        MPI_Isend(&v, 1, MPI_INT, peer, 40, MPI_COMM_WORLD, &req[0]);
        MPI_Issend(&v, 1, MPI_INT, peer, 41, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(big, BIG, MPI_CHAR, peer, 42, MPI_COMM_WORLD, &req[2]);
        MPI_Recv(&ack, 1, MPI_INT, peer, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < 3; i++) {
            MPI_Cancel(&req[i]);
            MPI_Wait(&req[i], &st);
            MTEST_CHECK(errs, cancelled(&st) == 0, "matched send %d says cancelled", i);
        }
    } else {
        MPI_Recv(&v, 1, MPI_INT, peer, 40, MPI_COMM_WORLD, &st);
        MPI_Recv(&v, 1, MPI_INT, peer, 41, MPI_COMM_WORLD, &st);
        MPI_Recv(big, BIG, MPI_CHAR, peer, 42, MPI_COMM_WORLD, &st);
        MPI_Send(&ack, 1, MPI_INT, peer, 43, MPI_COMM_WORLD);
    }
}

static void cancel_recv(void)
{
    int v = -1, flag = 0;
    MPI_Request req;
    MPI_Status st;

    /* Nobody sends tag 50. */
    MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MTEST_CHECK(errs, cancelled(&st) == 1 && v == -1, "posted Irecv not cancelled");

    /* Persistent receive. */
    MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, 51, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MTEST_CHECK(errs, cancelled(&st) == 1, "persistent receive not cancelled");
    MPI_Request_free(&req);

    /* Already satisfied: not cancelled, data there. */
    MPI_Irecv(&v, 1, MPI_INT, rank, 52, MPI_COMM_WORLD, &req);
    flag = 55;
    MPI_Send(&flag, 1, MPI_INT, rank, 52, MPI_COMM_WORLD);
    flag = 0;
    while (!flag)
        MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MTEST_CHECK(errs, cancelled(&st) == 0 && v == 55, "satisfied receive: cancelled %d, v %d",
                cancelled(&st), v);
}

/* Sends to oneself: cancel, then check that nothing is there. */
static void cancel_self(void)
{
    int v = 1, flag = 1, i;
    MPI_Request req[2];
    MPI_Status st;
    static char big[BIG];

    MPI_Isend(&v, 1, MPI_INT, rank, 60, MPI_COMM_WORLD, &req[0]);
    MPI_Issend(big, BIG, MPI_CHAR, rank, 61, MPI_COMM_WORLD, &req[1]);
    for (i = 0; i < 2; i++) {
        MPI_Cancel(&req[i]);
        MPI_Wait(&req[i], &st);
        MTEST_CHECK(errs, cancelled(&st) == 1, "self send %d not cancelled", i);
    }
    MPI_Iprobe(rank, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    MTEST_CHECK(errs, !flag, "cancelled self message still there (tag %d)", st.MPI_TAG);
    /* Second message with the same envelope behind an unreceived one:
     * the cancel finds it anyway; the first one stays. */
    v = 1;
    MPI_Send(&v, 1, MPI_INT, rank, 62, MPI_COMM_WORLD);
    v = 2;
    MPI_Isend(&v, 1, MPI_INT, rank, 62, MPI_COMM_WORLD, &req[0]);
    MPI_Cancel(&req[0]);
    MPI_Wait(&req[0], &st);
    MTEST_CHECK(errs, cancelled(&st) == 1, "second self message not cancelled");
    v = 0;
    MPI_Recv(&v, 1, MPI_INT, rank, 62, MPI_COMM_WORLD, &st);
    MTEST_CHECK(errs, v == 1, "self: received %d, want the first message", v);
    MPI_Iprobe(rank, 62, MPI_COMM_WORLD, &flag, &st);
    MTEST_CHECK(errs, !flag, "cancelled second self message still there");
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    peer = rank ^ 1;
    if (peer >= size)
        peer = -1;

    cancel_self();
    cancel_recv();
    MPI_Barrier(MPI_COMM_WORLD);
    if (peer < 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank % 2 == 0) {
        cancel_unmatched_sender();
    } else {
        cancel_unmatched_receiver();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (peer >= 0)
        cancel_matched();
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
