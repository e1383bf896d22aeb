/* isendrecv: MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0), and their
 * _c forms: ring exchanges with contiguous and strided data, eager and
 * rendezvous sizes, completion by Wait, Test and Waitall, wildcards,
 * MPI_PROC_NULL on either side, truncation, and argument errors. */
#include "mtest.h"

#include <stdlib.h>

#define BIG (200 * 1024)

static int rank, size, right, left;

static int val(int src, int i, int round) { return src * 100000 + i * 7 + round; }

static void check_status(int *errs, MPI_Status *st, int src, int tag, int count, const char *what)
{
    int n;
    MPI_Get_count(st, MPI_INT, &n);
    MTEST_CHECK(*errs, st->MPI_SOURCE == src && st->MPI_TAG == tag && n == count,
                "%s: status source %d tag %d count %d, want %d %d %d", what, st->MPI_SOURCE,
                st->MPI_TAG, n, src, tag, count);
}

int main(int argc, char **argv)
{
    int errs = 0, round, i, flag;
    int *sbuf, *rbuf;
    MPI_Request req, reqs[2];
    MPI_Status st, sts[2];

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    sbuf = malloc(BIG * sizeof(int));
    rbuf = malloc(BIG * sizeof(int));

    /* Ring shifts of several sizes (eager and rendezvous), Wait/Test. */
    for (round = 0; round < 6; round++) {
        int n = round % 2 ? BIG : 1 + round * 10;
        for (i = 0; i < n; i++)
            sbuf[i] = val(rank, i, round), rbuf[i] = -1;
        MPI_Isendrecv(sbuf, n, MPI_INT, right, round, rbuf, BIG, MPI_INT, left, round,
                      MPI_COMM_WORLD, &req);
        if (round % 3 == 2) {
            do
                MPI_Test(&req, &flag, &st);
            while (!flag);
        } else {
            MPI_Wait(&req, &st);
        }
        MTEST_CHECK(errs, req == MPI_REQUEST_NULL, "round %d: request not freed", round);
        check_status(&errs, &st, left, round, n, "ring");
        for (i = 0; i < n; i++)
            if (rbuf[i] != val(left, i, round)) {
                MTEST_CHECK(errs, 0, "round %d: rbuf[%d] = %d", round, i, rbuf[i]);
                break;
            }
    }

    /* Replace, with a strided datatype (every other int), both ways round. */
    {
        MPI_Datatype vec;
        MPI_Type_vector(1000, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        for (i = 0; i < 2000; i++)
            sbuf[i] = (i % 2) ? -7 : val(rank, i / 2, 9);
        MPI_Isendrecv_replace(sbuf, 1, vec, right, 9, left, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, &st);
        MTEST_CHECK(errs, st.MPI_SOURCE == left && st.MPI_TAG == 9, "replace: status %d %d",
                    st.MPI_SOURCE, st.MPI_TAG);
        for (i = 0; i < 2000; i++) {
            int want = (i % 2) ? -7 : val(left, i / 2, 9);
            if (sbuf[i] != want) {
                MTEST_CHECK(errs, 0, "replace: buf[%d] = %d, want %d", i, sbuf[i], want);
                break;
            }
        }
        MPI_Type_free(&vec);
    }

    /* Large-count forms, ANY_SOURCE, and two at once with Waitall. */
    {
        int s2[2] = {rank, 1}, r2[2] = {-1, -1}, s3[1] = {rank * 3};
        MPI_Isendrecv_c(s2, (MPI_Count)2, MPI_INT, right, 20, r2, (MPI_Count)2, MPI_INT,
                        MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isendrecv_replace_c(s3, (MPI_Count)1, MPI_INT, left, 21, right, 21, MPI_COMM_WORLD,
                                &reqs[1]);
        MPI_Waitall(2, reqs, sts);
        MTEST_CHECK(errs, r2[0] == left && r2[1] == 1 && sts[0].MPI_SOURCE == left,
                    "isendrecv_c: got %d %d from %d", r2[0], r2[1], sts[0].MPI_SOURCE);
        MTEST_CHECK(errs, s3[0] == right * 3 && sts[1].MPI_SOURCE == right,
                    "isendrecv_replace_c: got %d from %d", s3[0], sts[1].MPI_SOURCE);
    }

    /* MPI_PROC_NULL on either side. */
    {
        int x = rank, y = -5;
        MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0,
                      MPI_COMM_WORLD, &req);
        MPI_Wait(&req, &st);
        MTEST_CHECK(errs, y == -5 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
                    "proc_null both: y %d status %d %d", y, st.MPI_SOURCE, st.MPI_TAG);
        /* Send only to the right, receive only from the left, in two calls
         * that pair up around the ring. */
        MPI_Isendrecv(&x, 1, MPI_INT, right, 30, &y, 1, MPI_INT, MPI_PROC_NULL, 30,
                      MPI_COMM_WORLD, &reqs[0]);
        MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 30, &y, 1, MPI_INT, left, 30,
                      MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, sts);
        MTEST_CHECK(errs, y == left && sts[1].MPI_SOURCE == left &&
                              sts[0].MPI_SOURCE == MPI_PROC_NULL,
                    "proc_null one side: y %d, statuses %d %d", y, sts[0].MPI_SOURCE,
                    sts[1].MPI_SOURCE);
    }

    /* Errors, returned rather than fatal. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    {
        int x = 1, y[4], rc, cls;
        rc = MPI_Isendrecv(&x, 1, MPI_INT, size, 0, y, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &req);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_RANK, "bad dest: class %d", cls);
        rc = MPI_Isendrecv(&x, 1, MPI_INT, right, -3, y, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &req);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_TAG, "bad send tag: class %d", cls);
        rc = MPI_Isendrecv(&x, 1, MPI_INT, right, 0, y, -1, MPI_INT, left, 0, MPI_COMM_WORLD, &req);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_COUNT, "negative recv count: class %d", cls);
        rc = MPI_Isendrecv(&x, 1, MPI_INT, right, 0, y, 1, MPI_INT, left, 0, MPI_COMM_NULL, &req);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_COMM, "null comm: class %d", cls);
        rc = MPI_Isendrecv(&x, 1, MPI_INT, right, 0, y, 1, MPI_INT, left, 0, MPI_COMM_WORLD, NULL);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_ARG, "null request: class %d", cls);
        rc = MPI_Isendrecv_replace(&x, 1, MPI_DATATYPE_NULL, right, 0, left, 0, MPI_COMM_WORLD,
                                   &req);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_TYPE, "null type: class %d", cls);
        /* Truncation: 4 ints into room for 1, reported by Wait and status. */
        {
            int four[4] = {1, 2, 3, 4};
            MPI_Isendrecv(four, 4, MPI_INT, right, 40, y, 1, MPI_INT, left, 40, MPI_COMM_WORLD,
                          &req);
            rc = MPI_Wait(&req, &st);
            MPI_Error_class(rc, &cls);
            MTEST_CHECK(errs, cls == MPI_ERR_TRUNCATE, "truncation: class %d", cls);
        }
    }
    free(sbuf);
    free(rbuf);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
