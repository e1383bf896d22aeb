/* status_error: a successful single-completion call (MPI_Recv, MPI_Sendrecv,
 * MPI_Sendrecv_replace, MPI_Wait, MPI_Test, MPI_Waitany, MPI_Testany,
 * MPI_Request_get_status, MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe,
 * MPI_Mrecv) leaves the MPI_ERROR field of the status as it was; so does a
 * failing one (MPI_Recv truncated) and a successful MPI_Waitall; a failing
 * MPI_Waitall returns MPI_ERR_IN_STATUS itself (the code, as MPICH) and sets MPI_ERROR in every status
 * (MPI_SUCCESS for the requests that succeeded). Repeated so that small
 * receives on MPI_COMM_WORLD go through the express lane too (run with
 * GMPI_EXPRESS=0 as well), and with matched probes from two threads under
 * MPI_THREAD_MULTIPLE (when STATUS_ERROR_THREADS=1 is set: the express
 * lane serves only processes below MPI_THREAD_MULTIPLE). Needs 2
 * processes or more (ranks above 1 idle). */
#include "mtest.h"
#include <pthread.h>
#include <stdlib.h>

#define MAGIC 4711
#define REPS 20

static int rank, size;

#define KEEP(errs, st, what) \
    MTEST_CHECK(errs, (st).MPI_ERROR == MAGIC, "%s wrote MPI_ERROR = %d", what, (st).MPI_ERROR)

static void *mprober(void *arg)
{
    int t = (int)(long)arg, errs = 0, v;
    for (int i = 0; i < REPS; i++) {
        MPI_Status st;
        MPI_Message m;
        if (rank == 0) {
            v = 100 * t + i;
            MPI_Send(&v, 1, MPI_INT, 1, 50 + t, MPI_COMM_WORLD);
            continue;
        }
        st.MPI_ERROR = MAGIC;
        MPI_Mprobe(0, 50 + t, MPI_COMM_WORLD, &m, &st);
        KEEP(errs, st, "MPI_Mprobe (threads)");
        st.MPI_ERROR = MAGIC;
        MPI_Mrecv(&v, 1, MPI_INT, &m, &st);
        KEEP(errs, st, "MPI_Mrecv (threads)");
        MTEST_CHECK(errs, v == 100 * t + i, "thread %d got %d", t, v);
    }
    return (void *)(long)errs;
}

int main(int argc, char **argv)
{
    int errs = 0, provided, v = 0, w, flag, idx;
    MPI_Status st, sts[2];
    MPI_Request rq, rqs[2];
    MPI_Message m;
    const char *th_env = getenv("STATUS_ERROR_THREADS");
    int threads = th_env && th_env[0] == '1';
    MTest_Init_thread(&argc, &argv, threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size < 2) {
        fprintf(stderr, "needs 2 processes\n");
        MTest_Finalize(1);
        return 1;
    }
    for (int rep = 0; rep < REPS && rank < 2; rep++) {
        int peer = 1 - rank;
        /* MPI_Send / MPI_Recv both ways */
        if (rank == 0) {
            MPI_Send(&rep, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
            st.MPI_ERROR = MAGIC;
            MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &st);
            KEEP(errs, st, "MPI_Recv");
        } else {
            st.MPI_ERROR = MAGIC;
            MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
            KEEP(errs, st, "MPI_Recv");
            MTEST_CHECK(errs, v == rep && st.MPI_SOURCE == 0 && st.MPI_TAG == 1, "MPI_Recv status");
            MPI_Send(&rep, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
        st.MPI_ERROR = MAGIC;
        MPI_Sendrecv(&rep, 1, MPI_INT, peer, 3, &v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &st);
        KEEP(errs, st, "MPI_Sendrecv");
        w = rank;
        st.MPI_ERROR = MAGIC;
        MPI_Sendrecv_replace(&w, 1, MPI_INT, peer, 4, peer, 4, MPI_COMM_WORLD, &st);
        KEEP(errs, st, "MPI_Sendrecv_replace");
        MTEST_CHECK(errs, w == peer, "MPI_Sendrecv_replace got %d", w);

        /* Wait, Test, Waitany, Testany, Request_get_status */
        MPI_Irecv(&v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq);
        MPI_Send(&rep, 1, MPI_INT, peer, 5, MPI_COMM_WORLD);
        st.MPI_ERROR = MAGIC;
        MPI_Wait(&rq, &st);
        KEEP(errs, st, "MPI_Wait");
        MPI_Irecv(&v, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &rq);
        MPI_Send(&rep, 1, MPI_INT, peer, 6, MPI_COMM_WORLD);
        flag = 0;
        while (!flag) {
            st.MPI_ERROR = MAGIC;
            MPI_Test(&rq, &flag, &st);
        }
        KEEP(errs, st, "MPI_Test");
        MPI_Irecv(&v, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &rq);
        MPI_Send(&rep, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
        st.MPI_ERROR = MAGIC;
        MPI_Waitany(1, &rq, &idx, &st);
        KEEP(errs, st, "MPI_Waitany");
        MPI_Irecv(&v, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &rq);
        MPI_Send(&rep, 1, MPI_INT, peer, 8, MPI_COMM_WORLD);
        flag = 0;
        while (!flag) {
            st.MPI_ERROR = MAGIC;
            MPI_Testany(1, &rq, &idx, &flag, &st);
        }
        KEEP(errs, st, "MPI_Testany");
        MPI_Irecv(&v, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &rq);
        MPI_Send(&rep, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
        flag = 0;
        while (!flag) {
            st.MPI_ERROR = MAGIC;
            MPI_Request_get_status(rq, &flag, &st);
        }
        KEEP(errs, st, "MPI_Request_get_status");
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        /* MPI_REQUEST_NULL and MPI_PROC_NULL: empty statuses */
        rq = MPI_REQUEST_NULL;
        st.MPI_ERROR = MAGIC;
        MPI_Wait(&rq, &st);
        KEEP(errs, st, "MPI_Wait(MPI_REQUEST_NULL)");
        st.MPI_ERROR = MAGIC;
        MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
        KEEP(errs, st, "MPI_Recv(MPI_PROC_NULL)");

        /* Probes */
        MPI_Send(&rep, 1, MPI_INT, peer, 10, MPI_COMM_WORLD);
        st.MPI_ERROR = MAGIC;
        MPI_Probe(peer, 10, MPI_COMM_WORLD, &st);
        KEEP(errs, st, "MPI_Probe");
        flag = 0;
        while (!flag) {
            st.MPI_ERROR = MAGIC;
            MPI_Iprobe(peer, 10, MPI_COMM_WORLD, &flag, &st);
        }
        KEEP(errs, st, "MPI_Iprobe");
        MPI_Recv(&v, 1, MPI_INT, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&rep, 1, MPI_INT, peer, 11, MPI_COMM_WORLD);
        st.MPI_ERROR = MAGIC;
        MPI_Mprobe(peer, 11, MPI_COMM_WORLD, &m, &st);
        KEEP(errs, st, "MPI_Mprobe");
        st.MPI_ERROR = MAGIC;
        MPI_Mrecv(&v, 1, MPI_INT, &m, &st);
        KEEP(errs, st, "MPI_Mrecv");
        MPI_Send(&rep, 1, MPI_INT, peer, 12, MPI_COMM_WORLD);
        flag = 0;
        while (!flag) {
            st.MPI_ERROR = MAGIC;
            MPI_Improbe(peer, 12, MPI_COMM_WORLD, &flag, &m, &st);
        }
        KEEP(errs, st, "MPI_Improbe");
        MPI_Imrecv(&v, 1, MPI_INT, &m, &rq);
        st.MPI_ERROR = MAGIC;
        MPI_Wait(&rq, &st);
        KEEP(errs, st, "MPI_Wait (MPI_Imrecv)");

        /* A failing single completion leaves it too. */
        if (rank == 0) {
            int two[2] = {1, 2};
            MPI_Send(two, 2, MPI_INT, 1, 13, MPI_COMM_WORLD);
        } else {
            st.MPI_ERROR = MAGIC;
            int rc = MPI_Recv(&v, 1, MPI_INT, 0, 13, MPI_COMM_WORLD, &st);
            int cls;
            MPI_Error_class(rc, &cls);
            MTEST_CHECK(errs, cls == MPI_ERR_TRUNCATE, "truncated MPI_Recv returned class %d", cls);
            KEEP(errs, st, "a truncated MPI_Recv");
        }

        /* Waitall: untouched on success; MPI_ERR_IN_STATUS sets them all. */
        MPI_Irecv(&v, 1, MPI_INT, peer, 14, MPI_COMM_WORLD, &rqs[0]);
        MPI_Isend(&rep, 1, MPI_INT, peer, 14, MPI_COMM_WORLD, &rqs[1]);
        sts[0].MPI_ERROR = sts[1].MPI_ERROR = MAGIC;
        MPI_Waitall(2, rqs, sts);
        KEEP(errs, sts[0], "a successful MPI_Waitall");
        KEEP(errs, sts[1], "a successful MPI_Waitall");
        if (rank == 0) {
            int two[2] = {1, 2};
            MPI_Send(two, 2, MPI_INT, 1, 15, MPI_COMM_WORLD);
            MPI_Send(two, 1, MPI_INT, 1, 16, MPI_COMM_WORLD);
        } else {
            int a, b;
            MPI_Irecv(&a, 1, MPI_INT, 0, 15, MPI_COMM_WORLD, &rqs[0]);
            MPI_Irecv(&b, 1, MPI_INT, 0, 16, MPI_COMM_WORLD, &rqs[1]);
            sts[0].MPI_ERROR = sts[1].MPI_ERROR = MAGIC;
            int rc = MPI_Waitall(2, rqs, sts), cls;
            MPI_Error_class(rc, &cls);
            MTEST_CHECK(errs, rc == MPI_ERR_IN_STATUS, "failing MPI_Waitall returned %d (class %d), not MPI_ERR_IN_STATUS itself", rc, cls);
            MPI_Error_class(sts[0].MPI_ERROR, &cls);
            MTEST_CHECK(errs, cls == MPI_ERR_TRUNCATE, "failing MPI_Waitall: status 0 has class %d", cls);
            MTEST_CHECK(errs, sts[1].MPI_ERROR == MPI_SUCCESS, "failing MPI_Waitall: status 1 has %d",
                        sts[1].MPI_ERROR);
        }
    }
    MTEST_CHECK(errs, !threads || provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided");
    if (threads && provided == MPI_THREAD_MULTIPLE && rank < 2) {
        pthread_t th[2];
        void *r;
        for (long t = 0; t < 2; t++)
            pthread_create(&th[t], NULL, mprober, (void *)t);
        for (int t = 0; t < 2; t++) {
            pthread_join(th[t], &r);
            errs += (int)(long)r;
        }
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
