/* p2p_more: the rest of point-to-point completion. Waitany, Waitsome,
 * Testall, Testany, Testsome, Request_free (a freed active request still
 * completes), Request_get_status, Sendrecv_replace, persistent requests
 * (Send_init/Ssend_init/Rsend_init/Recv_init, Start/Startall; the handle
 * survives completion and goes inactive), Status_set_elements(_x),
 * Status_set_cancelled/Test_cancelled, buffered sends (Bsend, Ibsend,
 * Bsend_init with Buffer_attach/detach), MPI_Cancel of a pending receive
 * and of a send (which may or may not be cancelled), and error classes under
 * MPI_ERRORS_RETURN. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* Persistent ring: every rank sends to the right and receives from the
 * left, ten times, with Startall/Waitall; then the same with Ssend_init
 * and Rsend_init and Start/Wait. */
static int persistent(void)
{
    int errs = 0, it, sbuf, rbuf, flag;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request reqs[2];
    MPI_Status sts[2], st;

    MPI_Recv_init(&rbuf, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &reqs[0]);
    MPI_Send_init(&sbuf, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &reqs[1]);
    /* Inactive before the first Start: Wait and Test return at once. */
    st.MPI_SOURCE = 99;
    MPI_Wait(&reqs[0], &st);
    MTEST_CHECK(errs, reqs[0] != MPI_REQUEST_NULL, "inactive Wait freed the request");
    MTEST_CHECK(errs, st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
                "inactive Wait: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    for (it = 0; it < 10; it++) {
        sbuf = rank * 1000 + it;
        rbuf = -1;
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, sts);
        MTEST_CHECK(errs, rbuf == left * 1000 + it, "iteration %d: got %d", it, rbuf);
        MTEST_CHECK(errs, sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 5,
                    "iteration %d: source %d tag %d", it, sts[0].MPI_SOURCE, sts[0].MPI_TAG);
        MTEST_CHECK(errs, reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL,
                    "iteration %d: Waitall freed a persistent request", it);
    }
    /* Inactive again: Test says done with an empty status,
     * Request_get_status too. */
    flag = 0;
    MPI_Test(&reqs[0], &flag, &st);
    MTEST_CHECK(errs, flag && st.MPI_SOURCE == MPI_ANY_SOURCE, "inactive Test: flag %d", flag);
    flag = 0;
    MPI_Request_get_status(reqs[1], &flag, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, flag, "inactive Request_get_status: flag 0");
    /* Start/Wait one at a time, Test until done. */
    for (it = 0; it < 3; it++) {
        sbuf = rank + 7 * it;
        MPI_Start(&reqs[0]);
        MPI_Start(&reqs[1]);
        flag = 0;
        while (!flag)
            MPI_Test(&reqs[0], &flag, &st);
        MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
        MTEST_CHECK(errs, rbuf == left + 7 * it, "Start/Test %d: got %d", it, rbuf);
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    MTEST_CHECK(errs, reqs[0] == MPI_REQUEST_NULL, "Request_free left the handle");

    /* Synchronous and ready persistent sends. */
    MPI_Recv_init(&rbuf, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &reqs[0]);
    MPI_Ssend_init(&sbuf, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &reqs[1]);
    for (it = 0; it < 3; it++) {
        sbuf = -rank - it;
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        MTEST_CHECK(errs, rbuf == -left - it, "Ssend_init %d: got %d", it, rbuf);
    }
    MPI_Request_free(&reqs[1]);
    MPI_Rsend_init(&sbuf, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &reqs[1]);
    for (it = 0; it < 3; it++) {
        sbuf = rank * 3 + it;
        MPI_Start(&reqs[0]);
        MPI_Barrier(MPI_COMM_WORLD); /* the receive is posted everywhere */
        MPI_Start(&reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        MTEST_CHECK(errs, rbuf == left * 3 + it, "Rsend_init %d: got %d", it, rbuf);
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);

    /* MPI_PROC_NULL persistent receive. */
    MPI_Recv_init(&rbuf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Start(&reqs[0]);
    MPI_Wait(&reqs[0], &st);
    MTEST_CHECK(errs, st.MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL Recv_init: source %d",
                st.MPI_SOURCE);
    MPI_Request_free(&reqs[0]);
    return errs;
}

/* Rank 0 receives one message from every other rank with the given
 * multiple-completion call (0 Waitany, 1 Testany, 2 Waitsome, 3 Testsome);
 * one extra slot holds MPI_REQUEST_NULL. */
static int gather_with(int how)
{
    int errs = 0, i, n = size - 1, left = n;
    int tag = 20 + how;
    if (rank != 0) {
        int v = rank * 10 + how;
        MPI_Send(&v, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
        return 0;
    }
    int *buf = calloc(size, sizeof(int)), *seen = calloc(size, sizeof(int));
    int *idx = calloc(size, sizeof(int));
    MPI_Request *reqs = malloc(size * sizeof(MPI_Request));
    MPI_Status *sts = malloc(size * sizeof(MPI_Status));
    reqs[0] = MPI_REQUEST_NULL;
    for (i = 1; i < size; i++)
        MPI_Irecv(&buf[i], 1, MPI_INT, i, tag, MPI_COMM_WORLD, &reqs[i]);
    while (left > 0) {
        int k, out = 0, flag = 0;
        switch (how) {
        case 0:
            MPI_Waitany(size, reqs, &idx[0], &sts[0]);
            out = 1;
            break;
        case 1:
            MPI_Testany(size, reqs, &idx[0], &flag, &sts[0]);
            out = flag && idx[0] != MPI_UNDEFINED;
            break;
        case 2:
            MPI_Waitsome(size, reqs, &out, idx, sts);
            break;
        case 3:
            MPI_Testsome(size, reqs, &out, idx, sts);
            break;
        }
        MTEST_CHECK(errs, out != MPI_UNDEFINED && out >= 0, "how %d: outcount %d", how, out);
        if (out == MPI_UNDEFINED || out < 0)
            break;
        for (k = 0; k < out; k++) {
            int j = idx[k];
            MTEST_CHECK(errs, j >= 1 && j < size, "how %d: index %d", how, j);
            if (j < 1 || j >= size)
                continue;
            MTEST_CHECK(errs, !seen[j], "how %d: index %d twice", how, j);
            seen[j] = 1;
            MTEST_CHECK(errs, reqs[j] == MPI_REQUEST_NULL, "how %d: request %d not freed", how, j);
            MTEST_CHECK(errs, sts[k].MPI_SOURCE == j && sts[k].MPI_TAG == tag,
                        "how %d: status source %d tag %d", how, sts[k].MPI_SOURCE, sts[k].MPI_TAG);
            MTEST_CHECK(errs, buf[j] == j * 10 + how, "how %d: from %d got %d", how, j, buf[j]);
            left--;
        }
    }
    /* All null now: the any/some calls say MPI_UNDEFINED. */
    {
        int out = 0, flag = 0;
        MPI_Status st;
        MPI_Waitany(size, reqs, &out, &st);
        MTEST_CHECK(errs, out == MPI_UNDEFINED, "Waitany on nulls: index %d", out);
        MPI_Testany(size, reqs, &out, &flag, &st);
        MTEST_CHECK(errs, flag && out == MPI_UNDEFINED, "Testany on nulls: flag %d index %d",
                    flag, out);
        MPI_Waitsome(size, reqs, &out, idx, sts);
        MTEST_CHECK(errs, out == MPI_UNDEFINED, "Waitsome on nulls: outcount %d", out);
        MPI_Testsome(size, reqs, &out, idx, sts);
        MTEST_CHECK(errs, out == MPI_UNDEFINED, "Testsome on nulls: outcount %d", out);
        MPI_Testall(size, reqs, &flag, sts);
        MTEST_CHECK(errs, flag, "Testall on nulls: flag 0");
    }
    free(buf);
    free(seen);
    free(idx);
    free(reqs);
    free(sts);
    return errs;
}

/* Testall on a ring exchange; Request_free of an active send;
 * Request_get_status on an active receive; Sendrecv_replace. */
static int misc(void)
{
    int errs = 0, flag = 0, sbuf = rank, rbuf = -1, v[3];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request reqs[2];
    MPI_Status sts[2], st;

    MPI_Irecv(&rbuf, 1, MPI_INT, left, 30, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&sbuf, 1, MPI_INT, right, 30, MPI_COMM_WORLD, &reqs[1]);
    while (!flag)
        MPI_Testall(2, reqs, &flag, sts);
    MTEST_CHECK(errs, rbuf == left, "Testall: got %d", rbuf);
    MTEST_CHECK(errs, sts[0].MPI_SOURCE == left, "Testall: source %d", sts[0].MPI_SOURCE);
    MTEST_CHECK(errs, reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL,
                "Testall left requests");

    /* A freed send still delivers. */
    sbuf = rank + 500;
    MPI_Isend(&sbuf, 1, MPI_INT, right, 31, MPI_COMM_WORLD, &reqs[1]);
    MPI_Request_free(&reqs[1]);
    MTEST_CHECK(errs, reqs[1] == MPI_REQUEST_NULL, "Request_free: handle not null");
    MPI_Recv(&rbuf, 1, MPI_INT, left, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, rbuf == left + 500, "freed send: got %d", rbuf);
    MPI_Barrier(MPI_COMM_WORLD); /* sbuf stays put until everyone has it */

    /* Request_get_status does not free the request. */
    MPI_Irecv(&rbuf, 1, MPI_INT, left, 32, MPI_COMM_WORLD, &reqs[0]);
    MPI_Send(&sbuf, 1, MPI_INT, right, 32, MPI_COMM_WORLD);
    flag = 0;
    while (!flag)
        MPI_Request_get_status(reqs[0], &flag, &st);
    MTEST_CHECK(errs, reqs[0] != MPI_REQUEST_NULL, "Request_get_status freed the request");
    MTEST_CHECK(errs, st.MPI_SOURCE == left && st.MPI_TAG == 32,
                "Request_get_status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    MPI_Wait(&reqs[0], &st);
    MTEST_CHECK(errs, st.MPI_SOURCE == left && rbuf == left + 500, "Wait after get_status");

    /* Sendrecv_replace around the ring, with a strided type too. */
    v[0] = rank;
    v[1] = rank * 2;
    v[2] = rank * 3;
    MPI_Sendrecv_replace(v, 3, MPI_INT, right, 33, left, 33, MPI_COMM_WORLD, &st);
    MTEST_CHECK(errs, v[0] == left && v[1] == left * 2 && v[2] == left * 3,
                "Sendrecv_replace: got %d %d %d", v[0], v[1], v[2]);
    MTEST_CHECK(errs, st.MPI_SOURCE == left && st.MPI_TAG == 33, "Sendrecv_replace status");
    {
        MPI_Datatype vec;
        int w[6] = {rank, -1, rank + 1, -1, rank + 2, -1}, count = 0;
        MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        MPI_Sendrecv_replace(w, 1, vec, right, 34, left, 34, MPI_COMM_WORLD, &st);
        MTEST_CHECK(errs, w[0] == left && w[2] == left + 1 && w[4] == left + 2 && w[1] == -1 &&
                              w[3] == -1 && w[5] == -1,
                    "Sendrecv_replace vector: %d %d %d %d %d %d", w[0], w[1], w[2], w[3], w[4],
                    w[5]);
        MPI_Get_count(&st, MPI_INT, &count);
        MTEST_CHECK(errs, count == 3, "Sendrecv_replace vector: count %d", count);
        MPI_Type_free(&vec);
    }
    return errs;
}

static int status_calls(void)
{
    int errs = 0, n = -1, flag = -1;
    MPI_Count nx = -1;
    MPI_Status st;
    memset(&st, 0, sizeof st);
    MPI_Status_set_elements(&st, MPI_INT, 5);
    MPI_Get_count(&st, MPI_INT, &n);
    MTEST_CHECK(errs, n == 5, "set_elements INT: count %d", n);
    MPI_Get_count(&st, MPI_BYTE, &n);
    MTEST_CHECK(errs, n == 5 * (int) sizeof(int), "set_elements INT: bytes %d", n);
    MPI_Get_elements(&st, MPI_INT, &n);
    MTEST_CHECK(errs, n == 5, "set_elements INT: elements %d", n);
    MPI_Status_set_cancelled(&st, 1);
    MPI_Test_cancelled(&st, &flag);
    MTEST_CHECK(errs, flag == 1, "set_cancelled 1: flag %d", flag);
    MPI_Get_count(&st, MPI_INT, &n);
    MTEST_CHECK(errs, n == 5, "set_cancelled changed the count: %d", n);
    MPI_Status_set_elements_x(&st, MPI_DOUBLE, (MPI_Count) 3);
    MPI_Get_elements_x(&st, MPI_DOUBLE, &nx);
    MTEST_CHECK(errs, nx == 3, "set_elements_x DOUBLE: %lld", (long long) nx);
    MPI_Test_cancelled(&st, &flag);
    MTEST_CHECK(errs, flag == 1, "set_elements cleared cancelled");
    MPI_Status_set_cancelled(&st, 0);
    MPI_Test_cancelled(&st, &flag);
    MTEST_CHECK(errs, flag == 0, "set_cancelled 0: flag %d", flag);
    return errs;
}

/* Buffered sends: the data is copied at once, detach waits for the
 * messages to leave, and sends without space are MPI_ERR_BUFFER. */
static int buffered(void)
{
    enum { N = 100, BIG = 1 << 16 };
    int errs = 0, i, it, rc, sz = -1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int bufsize = 3 * (N * (int) sizeof(int) + MPI_BSEND_OVERHEAD) + BIG * (int) sizeof(int) +
                  MPI_BSEND_OVERHEAD;
    char *pool = malloc(bufsize);
    int *s = malloc(BIG * sizeof(int)), *r = malloc(BIG * sizeof(int));
    void *back = NULL;
    MPI_Request req;

    MPI_Buffer_attach(pool, bufsize);
    for (i = 0; i < N; i++)
        s[i] = rank * N + i;
    MPI_Bsend(s, N, MPI_INT, right, 50, MPI_COMM_WORLD);
    for (i = 0; i < N; i++)
        s[i] = -1; /* the message was copied */
    for (i = 0; i < N; i++)
        s[i] = rank * 2 * N + i;
    MPI_Ibsend(s, N, MPI_INT, right, 51, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (i = 0; i < N; i++)
        s[i] = -2;
    for (i = 0; i < BIG; i++)
        s[i] = rank + i;
    MPI_Bsend(s, BIG, MPI_INT, right, 52, MPI_COMM_WORLD); /* rendezvous-sized */
    memset(s, 0, BIG * sizeof(int));
    MPI_Recv(r, N, MPI_INT, left, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (i = 0; i < N && r[i] == left * N + i; i++)
        ;
    MTEST_CHECK(errs, i == N, "Bsend: element %d wrong", i);
    MPI_Recv(r, N, MPI_INT, left, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (i = 0; i < N && r[i] == left * 2 * N + i; i++)
        ;
    MTEST_CHECK(errs, i == N, "Ibsend: element %d wrong", i);
    MPI_Recv(r, BIG, MPI_INT, left, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (i = 0; i < BIG && r[i] == left + i; i++)
        ;
    MTEST_CHECK(errs, i == BIG, "big Bsend: element %d wrong", i);

    /* Persistent buffered send. */
    {
        int v = 0, got = -1;
        MPI_Request preq;
        MPI_Bsend_init(&v, 1, MPI_INT, right, 53, MPI_COMM_WORLD, &preq);
        for (it = 0; it < 3; it++) {
            v = rank * 10 + it;
            MPI_Start(&preq);
            MPI_Wait(&preq, MPI_STATUS_IGNORE);
            v = -9;
            MPI_Recv(&got, 1, MPI_INT, left, 53, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, got == left * 10 + it, "Bsend_init %d: got %d", it, got);
        }
        MPI_Request_free(&preq);
    }

    MPI_Buffer_detach(&back, &sz);
    MTEST_CHECK(errs, back == pool && sz == bufsize, "Buffer_detach: %p %d, want %p %d", back, sz,
                (void *) pool, bufsize);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Bsend(s, 1, MPI_INT, right, 54, MPI_COMM_WORLD);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_BUFFER, "Bsend unattached: class %d",
                err_class(rc));
    MPI_Buffer_attach(pool, N * (int) sizeof(int) + MPI_BSEND_OVERHEAD);
    rc = MPI_Buffer_attach(pool, 10);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_BUFFER, "second Buffer_attach: class %d",
                err_class(rc));
    rc = MPI_Ibsend(s, N + 1, MPI_INT, right, 54, MPI_COMM_WORLD, &req);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_BUFFER, "Ibsend too big: class %d", err_class(rc));
    rc = MPI_Bsend(s, -1, MPI_INT, right, 54, MPI_COMM_WORLD);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_COUNT, "Bsend count -1: class %d", err_class(rc));
    rc = MPI_Bsend(s, 1, MPI_INT, right, 54, MPI_COMM_NULL);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_COMM, "Bsend COMM_NULL: class %d", err_class(rc));
    MPI_Bsend(s, N, MPI_INT, MPI_PROC_NULL, 54, MPI_COMM_WORLD); /* needs no space */
    MPI_Buffer_detach(&back, &sz);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(pool);
    free(s);
    free(r);
    return errs;
}

/* Cancel: a receive nobody matches is cancelled; a cancelled send
 * either is cancelled or arrives, and the receiver learns which. */
static int cancel(void)
{
    int errs = 0, flag = -1, v = rank, got = -1, count = -1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request req;
    MPI_Status st;

    MPI_Irecv(&got, 1, MPI_INT, left, 999, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    MTEST_CHECK(errs, flag == 1, "cancelled receive: Test_cancelled %d", flag);
    MTEST_CHECK(errs, got == -1, "cancelled receive wrote %d", got);

    /* Cancelling a persistent receive leaves it inactive, not freed. */
    MPI_Recv_init(&got, 1, MPI_INT, left, 998, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    MTEST_CHECK(errs, flag == 1 && req != MPI_REQUEST_NULL, "cancelled persistent receive");
    MPI_Request_free(&req);

    /* The receive is posted first, so the send can complete when it is
     * not cancelled (a rendezvous send needs its receiver). */
    {
        MPI_Request rreq;
        int lflag = -1;
        MPI_Irecv(&got, 1, MPI_INT, left, 60, MPI_COMM_WORLD, &rreq);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Isend(&v, 1, MPI_INT, right, 60, MPI_COMM_WORLD, &req);
        MPI_Cancel(&req);
        MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &flag);
        MPI_Sendrecv(&flag, 1, MPI_INT, right, 61, &lflag, 1, MPI_INT, left, 61, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (lflag)
            MPI_Cancel(&rreq);
        MPI_Wait(&rreq, &st);
        if (!lflag) {
            MPI_Get_count(&st, MPI_INT, &count);
            MTEST_CHECK(errs, got == left && count == 1, "uncancelled send: got %d count %d", got,
                        count);
        }
    }

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    req = MPI_REQUEST_NULL;
    flag = MPI_Cancel(&req);
    MTEST_CHECK(errs, err_class(flag) == MPI_ERR_REQUEST, "Cancel NULL: class %d",
                err_class(flag));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

/* Error classes under MPI_ERRORS_RETURN. */
static int errors(void)
{
    int errs = 0, rc, buf[4] = {0}, idx, flag, out, indices[2];
    MPI_Request req, stale, reqs[2];
    MPI_Status st, sts[2];

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    rc = MPI_Send_init(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_COUNT, "Send_init count -1: class %d",
                err_class(rc));
    rc = MPI_Recv_init(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &req);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_COMM, "Recv_init COMM_NULL: class %d",
                err_class(rc));
    rc = MPI_Send_init(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_RANK, "Send_init bad rank: class %d",
                err_class(rc));
    rc = MPI_Send_init(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &req);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_TAG, "Send_init bad tag: class %d", err_class(rc));
    rc = MPI_Sendrecv_replace(buf, -2, MPI_INT, 0, 0, 0, 0, MPI_COMM_WORLD, &st);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_COUNT, "Sendrecv_replace count: class %d",
                err_class(rc));
    rc = MPI_Waitany(-1, reqs, &idx, &st);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_COUNT, "Waitany count -1: class %d",
                err_class(rc));
    rc = MPI_Testsome(-1, reqs, &out, indices, sts);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_COUNT, "Testsome count -1: class %d",
                err_class(rc));
    rc = MPI_Status_set_elements(&st, MPI_INT, -1);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_COUNT, "Status_set_elements -1: class %d",
                err_class(rc));

    /* Freed and null requests. */
    req = MPI_REQUEST_NULL;
    rc = MPI_Request_free(&req);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_REQUEST, "Request_free NULL: class %d",
                err_class(rc));
    rc = MPI_Start(&req);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_REQUEST, "Start NULL: class %d", err_class(rc));
    MPI_Recv_init(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    stale = req;
    MPI_Request_free(&req);
    rc = MPI_Wait(&stale, &st);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_REQUEST, "Wait on freed request: class %d",
                err_class(rc));
    rc = MPI_Start(&stale);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_REQUEST, "Start on freed request: class %d",
                err_class(rc));
    reqs[0] = MPI_REQUEST_NULL;
    reqs[1] = stale;
    rc = MPI_Waitany(2, reqs, &idx, &st);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_REQUEST, "Waitany with freed request: class %d",
                err_class(rc));
    rc = MPI_Testall(2, reqs, &flag, sts);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_REQUEST, "Testall with freed request: class %d",
                err_class(rc));
    rc = MPI_Request_get_status(stale, &flag, &st);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_REQUEST, "get_status freed request: class %d",
                err_class(rc));

    /* Start on an ordinary request, and on an active persistent one. */
    MPI_Isend(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    rc = MPI_Start(&req);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_REQUEST, "Start on Isend request: class %d",
                err_class(rc));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Recv_init(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    rc = MPI_Start(&req);
    MTEST_CHECK(errs, err_class(rc) == MPI_ERR_REQUEST, "Start on active request: class %d",
                err_class(rc));
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);

    /* Truncation in a multiple-completion call. */
    if (rank == 0) {
        int big[4] = {1, 2, 3, 4};
        MPI_Send(big, 4, MPI_INT, 1, 40, MPI_COMM_WORLD);
        MPI_Send(big, 4, MPI_INT, 1, 41, MPI_COMM_WORLD);
    } else if (rank == 1) {
        int small[2];
        MPI_Irecv(small, 2, MPI_INT, 0, 40, MPI_COMM_WORLD, &reqs[0]);
        rc = MPI_Waitany(1, reqs, &idx, &st);
        MTEST_CHECK(errs, err_class(rc) == MPI_ERR_TRUNCATE, "Waitany truncation: class %d",
                    err_class(rc));
        MTEST_CHECK(errs, idx == 0, "Waitany truncation: index %d", idx);
        MPI_Irecv(small, 2, MPI_INT, 0, 41, MPI_COMM_WORLD, &reqs[0]);
        reqs[1] = MPI_REQUEST_NULL;
        out = 0;
        while (out == 0) {
            rc = MPI_Testsome(2, reqs, &out, indices, sts);
        }
        MTEST_CHECK(errs, err_class(rc) == MPI_ERR_IN_STATUS, "Testsome truncation: class %d",
                    err_class(rc));
        MTEST_CHECK(errs, out == 1 && err_class(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE,
                    "Testsome truncation: out %d status class %d", out,
                    err_class(sts[0].MPI_ERROR));
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    errs += persistent();
    errs += gather_with(0);
    errs += gather_with(1);
    errs += gather_with(2);
    errs += gather_with(3);
    errs += misc();
    errs += status_calls();
    errs += buffered();
    errs += cancel();
    errs += errors();
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
