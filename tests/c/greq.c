/* Generalized requests: MPI_Grequest_start/complete with the callbacks at
 * the times the standard sets, through every completion call, and MPICH's
 * MPIX_Grequest_start/class_create/class_allocate (poll_fn, wait_fn). */
#include "mtest_err.h"
#include <pthread.h>
#include <string.h>

#define MAXLOG 64
typedef struct {
    int id;
    int qrc;            /* what query_fn returns */
    int cancelled;      /* what query_fn reports */
    int polls;          /* poll_fn calls */
    int complete_after; /* poll_fn completes on this call */
    int waits;          /* wait_fn calls */
    MPI_Request req;
} state_t;

static char events[MAXLOG * 4];
static void ev(char c, int id)
{
    size_t n = strlen(events);
    if (n + 2 < sizeof events) {
        events[n] = c;
        events[n + 1] = (char)('0' + id);
        events[n + 2] = 0;
    }
}

static int query_fn(void *extra, MPI_Status *s)
{
    state_t *st = extra;
    ev('q', st->id);
    MPI_Status_set_elements(s, MPI_BYTE, 10 * st->id);
    MPI_Status_set_cancelled(s, st->cancelled);
    s->MPI_SOURCE = 100 + st->id;
    s->MPI_TAG = 200 + st->id;
    return st->qrc;
}

static int free_fn(void *extra)
{
    ev('f', ((state_t *)extra)->id);
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    state_t *st = extra;
    ev(complete ? 'C' : 'c', st->id);
    st->cancelled = 1;
    return MPI_SUCCESS;
}

static int poll_fn(void *extra, MPI_Status *s)
{
    state_t *st = extra;
    (void)s;
    if (++st->polls == st->complete_after)
        MPI_Grequest_complete(st->req);
    return MPI_SUCCESS;
}

static int wait_fn(int count, void **states, double timeout, MPI_Status *s)
{
    (void)timeout;
    (void)s;
    for (int i = 0; i < count; i++) {
        state_t *st = states[i];
        st->waits++;
        MPI_Grequest_complete(st->req);
    }
    return MPI_SUCCESS;
}

#define EXPECT_EVENTS(errs, want)                                                     \
    do {                                                                              \
        MTEST_CHECK(errs, strcmp(events, want) == 0, "events \"%s\", want \"%s\"", \
                    events, want);                                                    \
        events[0] = 0;                                                                \
    } while (0)

static void *completer(void *arg)
{
    state_t *st = arg;
    for (volatile int i = 0; i < 100000; i++)
        ;
    MPI_Grequest_complete(st->req);
    return NULL;
}

int main(int argc, char **argv)
{
    int errs = 0, flag, count, provided;
    MPI_Status s;
    MTest_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    for (int round = 0; round < 3; round++) {
        /* Wait, Test and Request_get_status. */
        state_t a = {.id = 1};
        MPI_Request r;
        EXPECT_OK(errs, MPI_Grequest_start(query_fn, free_fn, cancel_fn, &a, &r));
        EXPECT_OK(errs, MPI_Test(&r, &flag, &s));
        MTEST_CHECK(errs, flag == 0 && r != MPI_REQUEST_NULL, "test before completion: flag %d", flag);
        EXPECT_OK(errs, MPI_Request_get_status(r, &flag, &s));
        MTEST_CHECK(errs, flag == 0, "get_status before completion");
        EXPECT_EVENTS(errs, "");
        EXPECT_OK(errs, MPI_Grequest_complete(r));
        EXPECT_ERR(errs, MPI_Grequest_complete(r), MPI_ERR_REQUEST, "MPI_Grequest_complete", "request");
        EXPECT_OK(errs, MPI_Request_get_status(r, &flag, &s));
        MPI_Get_count(&s, MPI_BYTE, &count);
        MTEST_CHECK(errs, flag == 1 && s.MPI_SOURCE == 101 && s.MPI_TAG == 201 && count == 10,
                    "get_status: flag %d source %d tag %d count %d", flag, s.MPI_SOURCE, s.MPI_TAG, count);
        EXPECT_EVENTS(errs, "q1");
        memset(&s, 0, sizeof s);
        if (round == 0)
            EXPECT_OK(errs, MPI_Wait(&r, &s));
        else {
            EXPECT_OK(errs, MPI_Test(&r, &flag, &s));
            MTEST_CHECK(errs, flag == 1, "test after completion");
        }
        MPI_Get_count(&s, MPI_BYTE, &count);
        MTEST_CHECK(errs, r == MPI_REQUEST_NULL && s.MPI_SOURCE == 101 && count == 10, "wait status");
        EXPECT_EVENTS(errs, "q1f1");

        /* Cancel before and after MPI_Grequest_complete. */
        state_t b = {.id = 2};
        MPI_Grequest_start(query_fn, free_fn, cancel_fn, &b, &r);
        EXPECT_OK(errs, MPI_Cancel(&r));
        MPI_Grequest_complete(r);
        EXPECT_OK(errs, MPI_Cancel(&r));
        EXPECT_OK(errs, MPI_Wait(&r, &s));
        MPI_Test_cancelled(&s, &flag);
        MTEST_CHECK(errs, flag == 1, "cancelled flag from query_fn");
        EXPECT_EVENTS(errs, "c2C2q2f2");

        /* MPI_Request_free: free_fn at the later of free and complete;
         * no query. */
        state_t c = {.id = 3};
        MPI_Request keep;
        MPI_Grequest_start(query_fn, free_fn, cancel_fn, &c, &r);
        keep = r;
        EXPECT_OK(errs, MPI_Request_free(&r));
        MTEST_CHECK(errs, r == MPI_REQUEST_NULL, "request_free leaves the handle");
        EXPECT_EVENTS(errs, "");
        EXPECT_OK(errs, MPI_Grequest_complete(keep));
        EXPECT_EVENTS(errs, "f3");
        MPI_Grequest_start(query_fn, free_fn, cancel_fn, &c, &r);
        MPI_Grequest_complete(r);
        EXPECT_EVENTS(errs, "");
        EXPECT_OK(errs, MPI_Request_free(&r));
        EXPECT_EVENTS(errs, "f3");

        /* query_fn's error code. */
        state_t d = {.id = 4, .qrc = MPI_ERR_TAG};
        MPI_Grequest_start(query_fn, free_fn, cancel_fn, &d, &r);
        MPI_Grequest_complete(r);
        EXPECT_ERR(errs, MPI_Wait(&r, &s), MPI_ERR_TAG, "MPI_Wait", NULL);
        EXPECT_EVENTS(errs, "q4f4");

        /* What query_fn returns, as MPICH passes it on: a class or code the
         * user added comes back unchanged, a predefined class as a new code
         * of that class, a number MPI does not know as MPI_ERR_OTHER; the
         * string of a new code names the number. */
        {
            state_t u = {.id = 1};
            int uclass, ucode, code, cls, len;
            char msg[MPI_MAX_ERROR_STRING];
            MPI_Add_error_class(&uclass);
            MPI_Add_error_code(uclass, &ucode);
            MPI_Grequest_start(query_fn, free_fn, cancel_fn, &u, &r);
            MPI_Grequest_complete(r);
            u.qrc = uclass;
            code = MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, code == uclass, "user class from query_fn: got %d, want %d", code, uclass);
            u.qrc = ucode;
            code = MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, code == ucode, "user code from query_fn: got %d, want %d", code, ucode);
            u.qrc = MPI_ERR_ARG;
            code = MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
            MPI_Error_class(code, &cls);
            MPI_Error_string(code, msg, &len);
            MTEST_CHECK(errs, code != MPI_ERR_ARG && cls == MPI_ERR_ARG && strstr(msg, "error code 12"),
                        "MPI_ERR_ARG from query_fn: code %d class %d \"%s\"", code, cls, msg);
            u.qrc = 42000;
            code = MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
            MPI_Error_class(code, &cls);
            MPI_Error_string(code, msg, &len);
            MTEST_CHECK(errs, code != 42000 && cls == MPI_ERR_OTHER && strstr(msg, "error code 42000"),
                        "42000 from query_fn: code %d class %d \"%s\"", code, cls, msg);
            u.qrc = ucode;
            code = MPI_Wait(&r, &s);
            MTEST_CHECK(errs, code == ucode && r == MPI_REQUEST_NULL, "user code from MPI_Wait: got %d, want %d", code, ucode);
            events[0] = 0;
        }

        /* Multiple completion with greqs and point-to-point requests. */
        int rank, x = 5, y = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        state_t e[3] = {{.id = 5}, {.id = 6, .qrc = MPI_ERR_COUNT}, {.id = 7}};
        MPI_Request rs[5];
        MPI_Status ss[5];
        for (int i = 0; i < 3; i++)
            MPI_Grequest_start(query_fn, free_fn, cancel_fn, &e[i], &rs[i]);
        MPI_Irecv(&y, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &rs[3]);
        MPI_Isend(&x, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &rs[4]);
        EXPECT_OK(errs, MPI_Testall(5, rs, &flag, MPI_STATUSES_IGNORE));
        MTEST_CHECK(errs, flag == 0, "testall with incomplete greqs");
        MPI_Grequest_complete(rs[0]);
        int idx = -1;
        EXPECT_OK(errs, MPI_Testany(3, rs, &idx, &flag, &s));
        MTEST_CHECK(errs, flag == 1 && idx == 0 && s.MPI_SOURCE == 105, "testany: flag %d idx %d", flag, idx);
        EXPECT_EVENTS(errs, "q5f5");
        MPI_Grequest_complete(rs[1]);
        MPI_Grequest_complete(rs[2]);
        int out = 0, ind[5];
        for (int i = 0; i < 5; i++)
            ss[i].MPI_ERROR = -5;
        int rc = MPI_Waitsome(5, rs, &out, ind, ss);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, rc == MPI_ERR_IN_STATUS && out >= 2, "waitsome: returned %d (class %d), out %d", rc, cls, out);
        for (int k = 0; k < out; k++) {
            if (ind[k] == 1) {
                MPI_Error_class(ss[k].MPI_ERROR, &cls);
                MTEST_CHECK(errs, cls == MPI_ERR_COUNT, "greq 6 error class %d", cls);
            } else if (ind[k] == 2)
                MTEST_CHECK(errs, ss[k].MPI_ERROR == MPI_SUCCESS && ss[k].MPI_SOURCE == 107, "greq 7 status");
        }
        EXPECT_OK(errs, MPI_Waitall(5, rs, MPI_STATUSES_IGNORE));
        MTEST_CHECK(errs, y == 5, "p2p alongside greqs");
        events[0] = 0;

        /* Completion from another thread while MPI_Wait blocks. */
        if (provided == MPI_THREAD_MULTIPLE) {
            state_t t = {.id = 8};
            pthread_t th;
            MPI_Grequest_start(query_fn, free_fn, cancel_fn, &t, &t.req);
            pthread_create(&th, NULL, completer, &t);
            EXPECT_OK(errs, MPI_Wait(&t.req, &s));
            pthread_join(th, NULL);
            EXPECT_EVENTS(errs, "q8f8");
        }

        /* MPIX: poll_fn drives completion inside Wait/Waitany/Test. */
        state_t p[2] = {{.id = 1, .complete_after = 3}, {.id = 2, .complete_after = 1000000}};
        EXPECT_OK(errs, MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, NULL, &p[0], &p[0].req));
        EXPECT_OK(errs, MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, NULL, &p[1], &p[1].req));
        MPI_Request pr[2] = {p[0].req, p[1].req};
        EXPECT_OK(errs, MPI_Waitany(2, pr, &idx, &s));
        MTEST_CHECK(errs, idx == 0 && p[0].polls == 3, "waitany via poll_fn: idx %d polls %d", idx, p[0].polls);
        p[1].complete_after = p[1].polls + 2;
        EXPECT_OK(errs, MPI_Wait(&pr[1], &s));
        MTEST_CHECK(errs, pr[1] == MPI_REQUEST_NULL, "wait via poll_fn");
        EXPECT_EVENTS(errs, "q1f1q2f2");

        /* MPIX: wait_fn, through a class. */
        MPIX_Grequest_class cl;
        EXPECT_OK(errs, MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, NULL, wait_fn, &cl));
        state_t w[2] = {{.id = 3}, {.id = 4}};
        EXPECT_OK(errs, MPIX_Grequest_class_allocate(cl, &w[0], &w[0].req));
        EXPECT_OK(errs, MPIX_Grequest_class_allocate(cl, &w[1], &w[1].req));
        EXPECT_OK(errs, MPI_Wait(&w[0].req, MPI_STATUS_IGNORE));
        MPI_Request wr[1] = {w[1].req};
        EXPECT_OK(errs, MPI_Waitall(1, wr, MPI_STATUSES_IGNORE));
        MTEST_CHECK(errs, w[0].waits == 1 && w[1].waits == 1, "wait_fn calls %d %d", w[0].waits, w[1].waits);
        EXPECT_EVENTS(errs, "q3f3q4f4");
        /* MPI_Waitany and MPI_Waitsome on requests only wait_fn completes. */
        state_t wa[2] = {{.id = 5}, {.id = 6}};
        MPIX_Grequest_class_allocate(cl, &wa[0], &wa[0].req);
        MPIX_Grequest_class_allocate(cl, &wa[1], &wa[1].req);
        MPI_Request war[2] = {wa[0].req, wa[1].req};
        EXPECT_OK(errs, MPI_Waitany(2, war, &idx, MPI_STATUS_IGNORE));
        MTEST_CHECK(errs, idx == 0 && war[0] == MPI_REQUEST_NULL, "waitany via wait_fn: idx %d", idx);
        int outc = 0, inds[2];
        EXPECT_OK(errs, MPI_Waitsome(2, war, &outc, inds, MPI_STATUSES_IGNORE));
        MTEST_CHECK(errs, outc == 1 && inds[0] == 1, "waitsome via wait_fn: %d", outc);
        EXPECT_EVENTS(errs, "q5f5q6f6");
    }

    /* Errors. */
    MPI_Request r;
    int x;
    state_t z = {.id = 9};
    EXPECT_ERR(errs, MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST, "MPI_Grequest_complete", "request");
    MPI_Irecv(&x, 1, MPI_INT, 0, 77, MPI_COMM_SELF, &r);
    EXPECT_ERR(errs, MPI_Grequest_complete(r), MPI_ERR_REQUEST, "MPI_Grequest_complete", "request");
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT_ERR(errs, MPI_Grequest_start(query_fn, free_fn, cancel_fn, &z, NULL), MPI_ERR_ARG, "MPI_Grequest_start", "request");
    EXPECT_ERR(errs, MPI_Grequest_start(NULL, free_fn, cancel_fn, &z, &r), MPI_ERR_ARG, "MPI_Grequest_start", "query_fn");
    EXPECT_ERR(errs, MPI_Grequest_start(query_fn, NULL, cancel_fn, &z, &r), MPI_ERR_ARG, "MPI_Grequest_start", "free_fn");
    EXPECT_ERR(errs, MPI_Grequest_start(query_fn, free_fn, NULL, &z, &r), MPI_ERR_ARG, "MPI_Grequest_start", "cancel_fn");
    EXPECT_ERR(errs, MPIX_Grequest_class_allocate((MPIX_Grequest_class)0x12345, &z, &r), MPI_ERR_ARG,
               "MPIX_Grequest_class_allocate", "greq_class");
    MPIX_Grequest_class cl;
    EXPECT_ERR(errs, MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, NULL, NULL, NULL), MPI_ERR_ARG,
               "MPIX_Grequest_class_create", "greq_class");
    (void)cl;
    EXPECT_EVENTS(errs, "");
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
