/* partitioned: MPI 4.0 partitioned point-to-point. Ring neighbours send
 * and receive PARTS partitions of N ints, several Start/Wait rounds of the
 * same requests, partitions marked ready in scrambled order by Pready,
 * Pready_range and Pready_list, arrival polled with Parrived, completion by
 * Wait and Test; two partitioned pairs with the same tag pair up in init
 * order; partitioned and ordinary messages never match; errors. */
#include "mtest.h"

#include <stdlib.h>

#define PARTS 8
#define N 3000 /* ints per partition: the whole message needs rendezvous */

static int val(int src, int p, int i, int round) { return src * 1000000 + p * 10000 + i + round; }

int main(int argc, char **argv)
{
    int errs = 0, rank, size, right, left, round, p, i, flag;
    int *sbuf, *rbuf, *sbuf2, *rbuf2;
    MPI_Request sreq, rreq, sreq2, rreq2;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    sbuf = malloc(sizeof(int) * PARTS * N);
    rbuf = malloc(sizeof(int) * PARTS * N);
    sbuf2 = malloc(sizeof(int) * PARTS);
    rbuf2 = malloc(sizeof(int) * PARTS);

    MPI_Psend_init(sbuf, PARTS, N, MPI_INT, right, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq);
    MPI_Precv_init(rbuf, PARTS, N, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq);
    /* A second pair with the same tag, initialised after the first: it
     * must meet the second receive even when it is ready first. */
    MPI_Psend_init(sbuf2, PARTS, 1, MPI_INT, right, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq2);
    MPI_Precv_init(rbuf2, PARTS, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq2);

    for (round = 0; round < 4; round++) {
        for (i = 0; i < PARTS * N; i++)
            rbuf[i] = -1;
        for (p = 0; p < PARTS; p++)
            rbuf2[p] = -1, sbuf2[p] = val(rank, p, 0, -round);
        MPI_Start(&rreq);
        MPI_Start(&rreq2);
        MPI_Start(&sreq);
        MPI_Start(&sreq2);
        /* An ordinary message with the same tag: it must not be taken by
         * the partitioned receives, nor they by this receive. */
        {
            int x = rank, y = -1;
            MPI_Sendrecv(&x, 1, MPI_INT, right, 7, &y, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, y == left, "round %d: ordinary message got %d", round, y);
        }
        MPI_Pready_range(0, PARTS - 1, sreq2);
        for (p = PARTS - 1; p >= 0; p--) { /* fill and mark in reverse order */
            for (i = 0; i < N; i++)
                sbuf[p * N + i] = val(rank, p, i, round);
            if (round % 3 == 0)
                MPI_Pready(p, sreq);
            else if (p == 0) {
                int list[PARTS];
                for (i = 0; i < PARTS; i++)
                    list[i] = (i * 5 + round) % PARTS;
                MPI_Pready_list(PARTS, list, sreq);
            }
        }
        for (p = 0; p < PARTS; p++) {
            do
                MPI_Parrived(rreq, p, &flag);
            while (!flag);
        }
        if (round % 2)
            MPI_Wait(&rreq, MPI_STATUS_IGNORE);
        else
            do
                MPI_Test(&rreq, &flag, MPI_STATUS_IGNORE);
            while (!flag);
        MPI_Wait(&rreq2, MPI_STATUS_IGNORE);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        MPI_Wait(&sreq2, MPI_STATUS_IGNORE);
        for (p = 0; p < PARTS; p++) {
            MTEST_CHECK(errs, rbuf2[p] == val(left, p, 0, -round), "round %d: pair 2 [%d] = %d",
                        round, p, rbuf2[p]);
            for (i = 0; i < N; i++)
                if (rbuf[p * N + i] != val(left, p, i, round)) {
                    MTEST_CHECK(errs, 0, "round %d: partition %d [%d] = %d", round, p, i,
                                rbuf[p * N + i]);
                    break;
                }
        }
    }

    /* Errors. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    {
        int rc, cls;
        MPI_Request r;
        rc = MPI_Pready(0, sreq); /* inactive */
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_REQUEST, "Pready on inactive request: class %d", cls);
        MPI_Start(&sreq);
        rc = MPI_Pready(PARTS, sreq);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_ARG, "Pready of partition %d: class %d", PARTS, cls);
        MPI_Pready(1, sreq);
        rc = MPI_Pready(1, sreq);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_ARG, "Pready twice: class %d", cls);
        rc = MPI_Pready(0, rreq);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_REQUEST, "Pready on a receive: class %d", cls);
        rc = MPI_Parrived(sreq, 0, &flag);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_REQUEST, "Parrived on a send: class %d", cls);
        rc = MPI_Parrived(rreq, 0, &flag); /* inactive */
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_REQUEST, "Parrived on inactive request: class %d", cls);
        rc = MPI_Pready_range(3, 2, sreq);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_ARG, "Pready_range 3..2: class %d", cls);
        rc = MPI_Precv_init(rbuf, PARTS, N, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &r);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_RANK, "Precv_init from ANY_SOURCE: class %d", cls);
        rc = MPI_Precv_init(rbuf, PARTS, N, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &r);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_TAG, "Precv_init with ANY_TAG: class %d", cls);
        rc = MPI_Psend_init(sbuf, -1, N, MPI_INT, right, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_ARG, "negative partitions: class %d", cls);
        rc = MPI_Psend_init(sbuf, PARTS, -1, MPI_INT, right, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_COUNT, "negative count: class %d", cls);
        rc = MPI_Psend_init(sbuf, PARTS, N, MPI_INT, right, 7, MPI_COMM_WORLD, MPI_INFO_NULL, NULL);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_ARG, "NULL request: class %d", cls);
        /* Finish the started send so the neighbour's receive completes. */
        MPI_Start(&rreq);
        for (p = 0; p < PARTS; p++)
            if (p != 1)
                MPI_Pready(p, sreq);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        MPI_Wait(&rreq, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&sreq);
    MPI_Request_free(&rreq);
    MPI_Request_free(&sreq2);
    MPI_Request_free(&rreq2);
    free(sbuf);
    free(rbuf);
    free(sbuf2);
    free(rbuf2);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
