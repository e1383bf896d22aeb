/*
 * The express lane (capi/express.c): blocking MPI_Send/MPI_Rsend that C
 * completes without entering Go, mixed with sends that take the Go path.
 * Checks that every mix keeps MPI's non-overtaking order, that
 * communicators (duplicates, freed and re-created ones, reordered splits)
 * keep their messages apart and their ranks right, that a full ring falls
 * back without loss, and that bad arguments still get the Go path's
 * errors. Run with and without GMPI_EXPRESS=0 (testlist).
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include "mpi.h"
#include "mtest.h"

#define N 2000
#define STEP(name) do { if (getenv("EXPRESS_DEBUG")) fprintf(stderr, "%d: %s\n", me, name); } while (0)

/* One message of a sequence: number i, sent by kind k. */
static int payload(int i, int k) { return i * 8 + k; }

/* Rank 0 sends N messages to rank 1 on comm with one tag, alternating
 * between every kind of send; rank 1 checks they arrive in order. */
static int order(MPI_Comm comm, int me, int to, int from)
{
    int errs = 0;
    static char big[200000];
    if (me == from) {
        for (int i = 0; i < N; i++) {
            int k = i % 7, v = payload(i, k);
            MPI_Request r;
            switch (k) {
            case 0: case 1: case 2: MPI_Send(&v, 1, MPI_INT, to, 5, comm); break;
            case 3: MPI_Isend(&v, 1, MPI_INT, to, 5, comm, &r); MPI_Wait(&r, MPI_STATUS_IGNORE); break;
            case 4: MPI_Ssend(&v, 1, MPI_INT, to, 5, comm); break;
            case 5: /* rendezvous: larger than any eager limit */
                memcpy(big, &v, sizeof v);
                if (i % 70 == 5)
                    MPI_Send(big, sizeof big, MPI_BYTE, to, 5, comm);
                else
                    MPI_Send(&v, 1, MPI_INT, to, 5, comm);
                break;
            case 6: /* the receiver says when its receive is posted */
                MPI_Recv(NULL, 0, MPI_INT, to, 6, comm, MPI_STATUS_IGNORE);
                MPI_Rsend(&v, 1, MPI_INT, to, 5, comm);
                break;
            }
        }
    } else if (me == to) {
        for (int i = 0; i < N; i++) {
            int k = i % 7, v = -1;
            MPI_Status st;
            if (k == 6) {
                /* Rsend needs the receive posted first; tell the sender. */
                MPI_Request r;
                MPI_Irecv(&v, 1, MPI_INT, from, 5, comm, &r);
                MPI_Send(NULL, 0, MPI_INT, from, 6, comm);
                MPI_Wait(&r, &st);
            } else if (k == 5 && i % 70 == 5) {
                MPI_Recv(big, sizeof big, MPI_BYTE, from, 5, comm, &st);
                memcpy(&v, big, sizeof v);
            } else {
                MPI_Recv(&v, 1, MPI_INT, from, MPI_ANY_TAG, comm, &st);
            }
            MTEST_CHECK(errs, v == payload(i, k), "message %d (kind %d): got %d, want %d", i, k, v, payload(i, k));
            MTEST_CHECK(errs, st.MPI_SOURCE == from && st.MPI_TAG == 5, "message %d: source %d tag %d", i, st.MPI_SOURCE, st.MPI_TAG);
            if (errs > 10)
                break;
        }
    }
    return errs;
}

/* Messages sent on two communicators stay on their own. */
static int apart(MPI_Comm a, MPI_Comm b, int me)
{
    int errs = 0;
    for (int i = 0; i < 50; i++) {
        if (me == 0) {
            int va = 1000 + i, vb = 2000 + i;
            MPI_Send(&va, 1, MPI_INT, 1, 0, a);
            MPI_Send(&vb, 1, MPI_INT, 1, 0, b);
        } else if (me == 1) {
            /* The receive for the later message is posted first. */
            int va = 0, vb = 0;
            MPI_Request r[2];
            MPI_Irecv(&vb, 1, MPI_INT, 0, 0, b, &r[0]);
            MPI_Irecv(&va, 1, MPI_INT, 0, 0, a, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            MTEST_CHECK(errs, va == 1000 + i && vb == 2000 + i, "round %d: a got %d, b got %d", i, va, vb);
        }
    }
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, me, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        MTest_Finalize(errs);
        return 0;
    }

    STEP("order");
    /* Order on MPI_COMM_WORLD, both directions. */
    errs += order(MPI_COMM_WORLD, me, 1, 0);
    errs += order(MPI_COMM_WORLD, me, 0, 1);

    STEP("dup");
    /* A duplicate: its own context, registered in its own right. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    errs += apart(MPI_COMM_WORLD, dup, me);
    errs += order(dup, me, 1, 0);

    /* Freed and re-created: the handle may come back with a new context. */
    for (int round = 0; round < 5; round++) {
        MPI_Comm c2;
        MPI_Comm_dup(MPI_COMM_WORLD, &c2);
        errs += apart(c2, dup, me);
        MPI_Comm_free(&c2);
    }
    MPI_Comm_free(&dup);

    STEP("split");
    /* A reordered split: rank r of rev is world rank size-1-r. */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - me, &rev);
    {
        int rme;
        MPI_Comm_rank(rev, &rme);
        for (int i = 0; i < 20; i++) {
            int v = me, got = -1;
            MPI_Status st;
            int right = (rme + 1) % size, left = (rme + size - 1) % size;
            MPI_Sendrecv(&v, 1, MPI_INT, right, 3, &got, 1, MPI_INT, left, 3, rev, &st);
            if (i % 2 == 0) {
                /* and with plain blocking sends, ordered to avoid deadlock */
                if (rme % 2 == 0) {
                    MPI_Send(&v, 1, MPI_INT, right, 4, rev);
                    MPI_Recv(&got, 1, MPI_INT, left, 4, rev, &st);
                } else {
                    MPI_Recv(&got, 1, MPI_INT, left, 4, rev, &st);
                    MPI_Send(&v, 1, MPI_INT, right, 4, rev);
                }
            }
            MTEST_CHECK(errs, got == size - 1 - left && st.MPI_SOURCE == left,
                        "reordered split: got %d from %d, want %d from %d", got, st.MPI_SOURCE, size - 1 - left, left);
        }
    }
    MPI_Comm_free(&rev);

    STEP("types");
    /* Every predefined size class, and zero counts. */
    {
        long double ld[3] = {1.5L, -2.25L, 3.0L}, ldr[3];
        double d[5] = {1, 2, 3, 4, 5}, dr[5];
        int two[4] = {1, 2, 3, 4}, twor[4];
        char c[3] = "ab", cr[3];
        for (int i = 0; i < 3; i++) {
            if (me == 0) {
                MPI_Send(ld, 3, MPI_LONG_DOUBLE, 1, 1, MPI_COMM_WORLD);
                MPI_Send(d, 5, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
                MPI_Send(two, 2, MPI_2INT, 1, 3, MPI_COMM_WORLD);
                MPI_Send(c, 3, MPI_CHAR, 1, 4, MPI_COMM_WORLD);
                MPI_Send(NULL, 0, MPI_INT, 1, 6, MPI_COMM_WORLD);
                MPI_Send(c, 0, MPI_CHAR, 1, 6, MPI_COMM_WORLD);
            } else if (me == 1) {
                MPI_Status st;
                int n;
                memset(ldr, 0, sizeof ldr);
                MPI_Recv(ldr, 3, MPI_LONG_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Recv(dr, 5, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Recv(twor, 2, MPI_2INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Recv(cr, 3, MPI_CHAR, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MTEST_CHECK(errs, ldr[0] == 1.5L && ldr[1] == -2.25L && ldr[2] == 3.0L, "long double data");
                MTEST_CHECK(errs, memcmp(d, dr, sizeof d) == 0 && memcmp(two, twor, sizeof two) == 0 && strcmp(cr, "ab") == 0,
                            "double/2int/char data");
                for (int k = 0; k < 2; k++) {
                    MPI_Recv(cr, 3, MPI_CHAR, 0, 6, MPI_COMM_WORLD, &st);
                    MPI_Get_count(&st, MPI_CHAR, &n);
                    MTEST_CHECK(errs, n == 0 && st.MPI_TAG == 6, "zero-size message: count %d tag %d", n, st.MPI_TAG);
                }
            }
        }
    }

    STEP("full");
    /* A full ring: rank 0 sends far more than a ring holds while rank 1
     * is busy; every send completes, in order. */
    {
        enum { M = 20000, B = 1024 };
        static char buf[B];
        if (me == 0) {
            for (int i = 0; i < M; i++) {
                memcpy(buf, &i, sizeof i);
                MPI_Send(buf, B, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
            }
        } else if (me == 1) {
            usleep(200000);
            for (int i = 0; i < M; i++) {
                int v;
                MPI_Recv(buf, B, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                memcpy(&v, buf, sizeof v);
                if (v != i) {
                    MTEST_CHECK(errs, 0, "full ring: message %d carried %d", i, v);
                    break;
                }
            }
        }
    }

    STEP("recv");
    /* Receives: the Go path's matching whatever the lane sees first. */
    if (me < 2) {
        int other = 1 - me, v, errs0 = errs;
        MPI_Status st;
        MPI_Request r;
        for (int i = 0; i < 20; i++) {
            if (me == 0) {
                int a = 100 + i, b = 200 + i, c3[3] = {1, 2, 3};
                MPI_Request r9; /* not the one asked for first (an Isend: safe under rendezvous) */
                MPI_Isend(&a, 1, MPI_INT, other, 9, MPI_COMM_WORLD, &r9);
                MPI_Send(&b, 1, MPI_INT, other, 8, MPI_COMM_WORLD);
                MPI_Wait(&r9, MPI_STATUS_IGNORE);
                MPI_Send(&a, 1, MPI_INT, other, 1, MPI_COMM_WORLD); /* for a posted Irecv */
                MPI_Send(&b, 1, MPI_INT, other, 2, MPI_COMM_WORLD);
                MPI_Ssend(&a, 1, MPI_INT, other, 3, MPI_COMM_WORLD);
                MPI_Send(c3, 3, MPI_INT, other, 4, MPI_COMM_WORLD); /* truncated */
                MPI_Send(&b, 1, MPI_INT, other, 5, MPI_COMM_WORLD); /* ANY_SOURCE */
            } else {
                MPI_Recv(&v, 1, MPI_INT, other, 8, MPI_COMM_WORLD, &st);
                MTEST_CHECK(errs, v == 200 + i && st.MPI_TAG == 8, "tag 8 first: %d tag %d", v, st.MPI_TAG);
                MPI_Recv(&v, 1, MPI_INT, other, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                MTEST_CHECK(errs, v == 100 + i && st.MPI_TAG == 9, "then tag 9: %d tag %d", v, st.MPI_TAG);
                int pv = -1;
                MPI_Irecv(&pv, 1, MPI_INT, other, 1, MPI_COMM_WORLD, &r);
                MPI_Recv(&v, 1, MPI_INT, other, 2, MPI_COMM_WORLD, &st);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
                MTEST_CHECK(errs, pv == 100 + i && v == 200 + i, "Irecv + Recv: %d %d", pv, v);
                MPI_Recv(&v, 1, MPI_INT, other, 3, MPI_COMM_WORLD, &st);
                MTEST_CHECK(errs, v == 100 + i, "Ssend: %d", v);
                MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
                int two[2] = {0, 0}, cls = 0, n = -1;
                int rc = MPI_Recv(two, 2, MPI_INT, other, 4, MPI_COMM_WORLD, &st);
                if (rc != MPI_SUCCESS)
                    MPI_Error_class(rc, &cls);
                MPI_Get_count(&st, MPI_INT, &n);
                MTEST_CHECK(errs, cls == MPI_ERR_TRUNCATE && two[0] == 1 && two[1] == 2,
                            "truncation: class %d, data %d %d, count %d", cls, two[0], two[1], n);
                MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
                MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_INT, &n);
                MTEST_CHECK(errs, v == 200 + i && st.MPI_SOURCE == other && n == 1, "ANY_SOURCE: %d from %d count %d",
                            v, st.MPI_SOURCE, n);
            }
            if (errs > errs0 + 5)
                break;
        }
    }
    STEP("progress");
    /* A blocking receive must keep other operations moving: rank 0's
     * receive from rank 2 waits on rank 1, which waits for the rendezvous
     * data of rank 0's pending Isend. */
    if (size >= 3) {
        enum { BIG = 1 << 20 };
        char *big = malloc(BIG);
        int v = 0;
        if (me == 0) {
            MPI_Request r;
            memset(big, 7, BIG);
            MPI_Isend(big, BIG, MPI_BYTE, 1, 11, MPI_COMM_WORLD, &r);
            MPI_Recv(&v, 1, MPI_INT, 2, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, v == 42, "relay: got %d", v);
        } else if (me == 1) {
            MPI_Recv(big, BIG, MPI_BYTE, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, big[0] == 7 && big[BIG - 1] == 7, "rendezvous data");
            v = 42;
            MPI_Send(&v, 1, MPI_INT, 2, 13, MPI_COMM_WORLD);
        } else if (me == 2) {
            MPI_Recv(&v, 1, MPI_INT, 1, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, 0, 12, MPI_COMM_WORLD);
        }
        free(big);
    }
    STEP("sendrecv");
    /* MPI_Sendrecv: a ring both ways, chains ending in MPI_PROC_NULL, a
     * truncated receive (its send still arrives) and a bad receive
     * argument (nothing is sent). */
    {
        int right = (me + 1) % size, left = (me + size - 1) % size;
        for (int i = 0; i < 200; i++) {
            int v = me * 1000 + i, got = -1, n = -1;
            MPI_Status st;
            MPI_Sendrecv(&v, 1, MPI_INT, right, 21, &got, 1, MPI_INT, left, 21, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            MTEST_CHECK(errs, got == left * 1000 + i && st.MPI_SOURCE == left && st.MPI_TAG == 21 && n == 1,
                        "sendrecv ring %d: got %d from %d tag %d count %d", i, got, st.MPI_SOURCE, st.MPI_TAG, n);
            got = -1;
            /* Only the right neighbour sends tag 22 here, and only tag 22. */
            if (i % 2)
                MPI_Sendrecv(&v, 1, MPI_INT, left, 22, &got, 1, MPI_INT, MPI_ANY_SOURCE, 22, MPI_COMM_WORLD, &st);
            else
                MPI_Sendrecv(&v, 1, MPI_INT, left, 22, &got, 1, MPI_INT, right, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MTEST_CHECK(errs, got == right * 1000 + i && st.MPI_SOURCE == right && st.MPI_TAG == 22,
                        "sendrecv ring back %d: got %d from %d", i, got, st.MPI_SOURCE);
            /* A chain: rank 0 receives from nobody, the last sends to nobody. */
            got = -7;
            MPI_Sendrecv(&v, 1, MPI_INT, me == size - 1 ? MPI_PROC_NULL : me + 1, 23, &got, 1, MPI_INT,
                         me == 0 ? MPI_PROC_NULL : me - 1, 23, MPI_COMM_WORLD, &st);
            if (me == 0)
                MTEST_CHECK(errs, got == -7 && st.MPI_SOURCE == MPI_PROC_NULL, "chain head: got %d from %d", got,
                            st.MPI_SOURCE);
            else
                MTEST_CHECK(errs, got == (me - 1) * 1000 + i, "chain: got %d", got);
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int two[2] = {me, me + 1}, one = -1, cls = 0, rc;
        MPI_Status st;
        rc = MPI_Sendrecv(two, 2, MPI_INT, right, 24, &one, 1, MPI_INT, left, 24, MPI_COMM_WORLD, &st);
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_TRUNCATE && one == left, "sendrecv truncation: class %d, got %d", cls, one);
        cls = 0;
        rc = MPI_Sendrecv(two, 2, MPI_INT, right, 25, &one, 1, MPI_INT, size + 3, 25, MPI_COMM_WORLD, &st);
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_RANK, "sendrecv bad source: class %d", cls);
        MPI_Barrier(MPI_COMM_WORLD);
        int flag = 1;
        MPI_Iprobe(left, 25, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MTEST_CHECK(errs, flag == 0, "a failed sendrecv sent its message");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    STEP("errors");
    /* Bad arguments still get the Go path's errors. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    {
        int v = 0, rc, cls;
        struct {
            const char *what;
            int rc, want;
        } cases[] = {
            {"dest = size", MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK},
            {"dest = -5", MPI_Send(&v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK},
            {"tag = -3", MPI_Send(&v, 1, MPI_INT, (me + 1) % size, -3, MPI_COMM_WORLD), MPI_ERR_TAG},
            {"count = -1", MPI_Send(&v, -1, MPI_INT, (me + 1) % size, 0, MPI_COMM_WORLD), MPI_ERR_COUNT},
            {"NULL buffer", MPI_Send(NULL, 1, MPI_INT, (me + 1) % size, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER},
            {"MPI_DATATYPE_NULL", MPI_Send(&v, 1, MPI_DATATYPE_NULL, (me + 1) % size, 0, MPI_COMM_WORLD), MPI_ERR_TYPE},
            {"MPI_COMM_NULL", MPI_Send(&v, 1, MPI_INT, (me + 1) % size, 0, MPI_COMM_NULL), MPI_ERR_COMM},
            {"Rsend dest = size", MPI_Rsend(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK},
            {"Recv source = size", MPI_Recv(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_RANK},
            {"Recv tag = -7", MPI_Recv(&v, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TAG},
            {"Recv count = -1", MPI_Recv(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_COUNT},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            rc = cases[i].rc;
            cls = MPI_SUCCESS;
            if (rc != MPI_SUCCESS)
                MPI_Error_class(rc, &cls);
            MTEST_CHECK(errs, cls == cases[i].want, "%s: error class %d, want %d", cases[i].what, cls, cases[i].want);
        }
        /* MPI_PROC_NULL succeeds and sends nothing. */
        rc = MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "MPI_PROC_NULL: rc %d", rc);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
