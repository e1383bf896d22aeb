/* The sessions model: MPI_Session_init/finalize/get_info/get_num_psets/
 * get_nth_pset/get_pset_info, MPI_Group_from_session_pset,
 * MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups, session
 * error handlers, and sessions beside the world model in one process.
 *
 * SESSIONS_MODE=only (default): the program never calls MPI_Init.
 * SESSIONS_MODE=mix: a session first, then MPI_Init, a second session,
 * MPI_Finalize while both sessions are open (their communicators still
 * work), then the sessions end. */
#include "mtest_err.h"
#include <stdlib.h>
#include <string.h>

static int handler_calls, handler_code;
static MPI_Session handler_session;

static void session_handler(MPI_Session *s, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_session = *s;
}

/* work checks that comm is a working communicator of size want_size. */
static int work(MPI_Comm comm, int want_size, const char *what)
{
    int errs = 0, rank, size, sum = 0, total;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MTEST_CHECK(errs, size == want_size, "%s: size %d, want %d", what, size, want_size);
    for (int i = 0; i < size; i++)
        sum += i;
    for (int it = 0; it < 5; it++) {
        total = -1;
        MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, comm);
        MTEST_CHECK(errs, total == sum, "%s: allreduce %d, want %d", what, total, sum);
        int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
        MPI_Sendrecv(&rank, 1, MPI_INT, right, it, &got, 1, MPI_INT, left, it, comm, MPI_STATUS_IGNORE);
        MTEST_CHECK(errs, got == left, "%s: ring got %d, want %d", what, got, left);
    }
    return errs;
}

/* queries checks the process-set queries of session s. */
static int queries(MPI_Session s, int wsize)
{
    int errs = 0, n = -1, len, flag, nkeys;
    char name[64], val[64];
    EXPECT_OK(errs, MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    MTEST_CHECK(errs, n == 2, "num_psets %d", n);
    static const char *want[] = {"mpi://WORLD", "mpi://SELF"};
    for (int i = 0; i < n && i < 2; i++) {
        len = 0;
        EXPECT_OK(errs, MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        MTEST_CHECK(errs, len == (int)strlen(want[i]) + 1, "pset %d length %d", i, len);
        len = sizeof name;
        EXPECT_OK(errs, MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        MTEST_CHECK(errs, strcmp(name, want[i]) == 0, "pset %d is %s", i, name);
        len = 4;
        memset(name, 'x', sizeof name);
        EXPECT_OK(errs, MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        MTEST_CHECK(errs, strcmp(name, "mpi") == 0, "truncated name %.8s", name);
        MPI_Info in;
        EXPECT_OK(errs, MPI_Session_get_pset_info(s, want[i], &in));
        MPI_Info_get_nkeys(in, &nkeys);
        MPI_Info_get(in, "mpi_size", sizeof val - 1, val, &flag);
        MTEST_CHECK(errs, nkeys >= 1 && flag && atoi(val) == (i == 0 ? wsize : 1), "mpi_size %s", val);
        MPI_Info_free(&in);
    }
    MPI_Info in;
    EXPECT_OK(errs, MPI_Session_get_info(s, &in));
    MPI_Info_get(in, "thread_level", sizeof val - 1, val, &flag);
    MTEST_CHECK(errs, flag && strncmp(val, "MPI_THREAD_", 11) == 0, "thread_level hint %s", val);
    /* The same under MPI 4.1's name (MPICH's session test asks for it). */
    char val2[64];
    MPI_Info_get(in, "mpi_thread_support_level", sizeof val2 - 1, val2, &flag);
    MTEST_CHECK(errs, flag && strcmp(val, val2) == 0, "mpi_thread_support_level hint %s (thread_level %s)", flag ? val2 : "(none)", val);
    MPI_Info_free(&in);
    return errs;
}

/* comms builds communicators from the psets of s and uses them. */
static int comms(MPI_Session s, int round)
{
    int errs = 0, wrank, wsize, gsize = -1, cmp;
    char tag[64];
    MPI_Group wg, sg;
    EXPECT_OK(errs, MPI_Group_from_session_pset(s, "mpi://WORLD", &wg));
    EXPECT_OK(errs, MPI_Group_from_session_pset(s, "mpi://self", &sg)); /* any case */
    MPI_Group_size(wg, &wsize);
    MPI_Group_rank(wg, &wrank);
    MPI_Group_size(sg, &gsize);
    MTEST_CHECK(errs, gsize == 1, "self group size %d", gsize);

    MPI_Comm wc, sc;
    snprintf(tag, sizeof tag, "org.gmpi.test.world.%d", round);
    EXPECT_OK(errs, MPI_Comm_create_from_group(wg, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &wc));
    errs += work(wc, wsize, "world from pset");
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(wc, &eh);
    MTEST_CHECK(errs, eh == MPI_ERRORS_RETURN, "error handler of the new comm");
    MPI_Errhandler_free(&eh);
    MPI_Group cg;
    MPI_Comm_group(wc, &cg);
    MPI_Group_compare(cg, wg, &cmp);
    MTEST_CHECK(errs, cmp == MPI_IDENT, "group of the new comm");
    MPI_Group_free(&cg);
    EXPECT_OK(errs, MPI_Comm_create_from_group(sg, "org.gmpi.test.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
    errs += work(sc, 1, "self from pset");

    /* Two communicators from the same group with different tags. */
    MPI_Comm wc2;
    EXPECT_OK(errs, MPI_Comm_create_from_group(wg, "org.gmpi.test.other", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &wc2));
    MPI_Comm_compare(wc, wc2, &cmp);
    MTEST_CHECK(errs, cmp == MPI_CONGRUENT, "compare %d", cmp);
    errs += work(wc2, wsize, "second world comm");

    /* Subgroups: evens and odds, then an intercommunicator between them. */
    if (wsize > 1) {
        int n = 0, ranks[64], parity = wrank % 2;
        for (int r = parity; r < wsize && n < 64; r += 2)
            ranks[n++] = r;
        MPI_Group mine, other;
        MPI_Group_incl(wg, n, ranks, &mine);
        int m = 0, oranks[64];
        for (int r = 1 - parity; r < wsize && m < 64; r += 2)
            oranks[m++] = r;
        MPI_Group_incl(wg, m, oranks, &other);
        MPI_Comm half, inter;
        EXPECT_OK(errs, MPI_Comm_create_from_group(mine, "org.gmpi.test.half", MPI_INFO_NULL, MPI_ERRORS_RETURN, &half));
        errs += work(half, n, "half");
        EXPECT_OK(errs, MPI_Intercomm_create_from_groups(mine, 0, other, 0, "org.gmpi.test.inter", MPI_INFO_NULL,
                                                         MPI_ERRORS_RETURN, &inter));
        int flag = 0, rsize = -1, lrank;
        MPI_Comm_test_inter(inter, &flag);
        MPI_Comm_remote_size(inter, &rsize);
        MPI_Comm_rank(inter, &lrank);
        MTEST_CHECK(errs, flag && rsize == m, "intercomm: inter %d remote size %d", flag, rsize);
        /* Rank 0 of each side swaps a value with the other's rank 0. */
        if (lrank == 0) {
            int out = 1000 + parity, in = -1;
            MPI_Sendrecv(&out, 1, MPI_INT, 0, 3, &in, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, in == 1000 + 1 - parity, "intercomm exchange got %d", in);
        }
        MPI_Comm merged;
        MPI_Intercomm_merge(inter, parity, &merged);
        errs += work(merged, wsize, "merged");
        MPI_Comm_free(&merged);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
        MPI_Group_free(&mine);
        MPI_Group_free(&other);
    }

    /* Errors, through the error handler argument. */
    MPI_Comm bad = MPI_COMM_WORLD;
    EXPECT_ERR(errs, MPI_Comm_create_from_group(wg, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &bad), MPI_ERR_ARG,
               "MPI_Comm_create_from_group", "stringtag");
    EXPECT_ERR(errs, MPI_Comm_create_from_group(wg, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL), MPI_ERR_ARG,
               "MPI_Comm_create_from_group", "newcomm");
    if (wsize > 1) {
        int other = (wrank + 1) % wsize;
        MPI_Group og;
        MPI_Group_incl(wg, 1, &other, &og);
        EXPECT_ERR(errs, MPI_Comm_create_from_group(og, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &bad), MPI_ERR_GROUP,
                   "MPI_Comm_create_from_group", "group");
        MPI_Group_free(&og);
    }
    MPI_Comm_free(&wc2);
    MPI_Comm_free(&sc);
    MPI_Comm_free(&wc);
    MPI_Group_free(&sg);
    MPI_Group_free(&wg);
    return errs;
}

/* errors checks the session error handlers and argument errors. */
static int errors(MPI_Session s)
{
    int errs = 0, n, len = 10;
    char name[16];
    MPI_Group g;
    MPI_Info in;
    MPI_Errhandler eh, got;
    EXPECT_OK(errs, MPI_Session_get_errhandler(s, &got));
    MTEST_CHECK(errs, got == MPI_ERRORS_RETURN, "session error handler %x", (unsigned)got);
    EXPECT_ERR(errs, MPI_Group_from_session_pset(s, "mpi://NOSUCH", &g), MPI_ERR_ARG, "MPI_Group_from_session_pset", "pset_name");
    EXPECT_ERR(errs, MPI_Group_from_session_pset(s, NULL, &g), MPI_ERR_ARG, "MPI_Group_from_session_pset", "pset_name");
    EXPECT_ERR(errs, MPI_Group_from_session_pset(s, "mpi://WORLD", NULL), MPI_ERR_ARG, "MPI_Group_from_session_pset", "newgroup");
    EXPECT_ERR(errs, MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, name), MPI_ERR_ARG, "MPI_Session_get_nth_pset", "n");
    EXPECT_ERR(errs, MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, name), MPI_ERR_ARG, "MPI_Session_get_nth_pset", "n");
    EXPECT_ERR(errs, MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, NULL, name), MPI_ERR_ARG, "MPI_Session_get_nth_pset", "pset_len");
    EXPECT_ERR(errs, MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL), MPI_ERR_ARG, "MPI_Session_get_num_psets", "npset_names");
    EXPECT_ERR(errs, MPI_Session_get_pset_info(s, "bogus", &in), MPI_ERR_ARG, "MPI_Session_get_pset_info", "pset_name");
    EXPECT_ERR(errs, MPI_Session_get_info(s, NULL), MPI_ERR_ARG, "MPI_Session_get_info", "info_used");
    /* A communicator error handler is not a session one. */
    MPI_Errhandler ceh;
    MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)session_handler, &ceh);
    EXPECT_ERR(errs, MPI_Session_set_errhandler(s, ceh), MPI_ERR_ARG, "MPI_Session_set_errhandler", "errhandler");
    MPI_Errhandler_free(&ceh);
    /* A user session handler sees the session and the code. */
    EXPECT_OK(errs, MPI_Session_create_errhandler(session_handler, &eh));
    EXPECT_OK(errs, MPI_Session_set_errhandler(s, eh));
    handler_calls = 0;
    int rc = MPI_Group_from_session_pset(s, "nope", &g), cls = -1;
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, handler_calls == 1 && handler_session == s && handler_code == rc && cls == MPI_ERR_ARG,
                "user handler: calls %d session ok %d class %d", handler_calls, handler_session == s, cls);
    EXPECT_OK(errs, MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    MTEST_CHECK(errs, handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler: calls %d", handler_calls);
    EXPECT_OK(errs, MPI_Session_get_errhandler(s, &got));
    MTEST_CHECK(errs, got == eh, "get_errhandler gives the user handler");
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh);
    EXPECT_OK(errs, MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    EXPECT_OK(errs, MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    MTEST_CHECK(errs, handler_calls == 2, "handler called after it was replaced");
    (void)n;
    return errs;
}

/* report sums errs over comm and prints the verdict on its rank 0. */
static int report(MPI_Comm comm, int errs)
{
    int total = 0, rank;
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, comm);
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    return total;
}

int main(int argc, char **argv)
{
    int errs = 0, flag, wsize;
    const char *mode = getenv("SESSIONS_MODE");
    int mix = mode && strcmp(mode, "mix") == 0;
    MPI_Session s1, s2;
    MPI_Group wg;
    MPI_Comm keep;

    MPI_Initialized(&flag);
    MTEST_CHECK(errs, !flag, "initialized before anything");
    EXPECT_OK(errs, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1));
    MPI_Initialized(&flag);
    MTEST_CHECK(errs, !flag, "a session is not MPI_Init");
    MPI_Group_from_session_pset(s1, "mpi://WORLD", &wg);
    MPI_Group_size(wg, &wsize);
    errs += queries(s1, wsize);
    for (int round = 0; round < 3; round++)
        errs += comms(s1, round);
    errs += errors(s1);
    MPI_Comm_create_from_group(wg, "org.gmpi.test.keep", MPI_INFO_NULL, MPI_ERRORS_RETURN, &keep);
    MPI_Group_free(&wg);

    if (mix) {
        int provided = -1;
        EXPECT_OK(errs, MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided));
        MPI_Initialized(&flag);
        MTEST_CHECK(errs, flag, "MPI_Initialized after MPI_Init");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        errs += work(MPI_COMM_WORLD, wsize, "MPI_COMM_WORLD after a session");
    }
    EXPECT_OK(errs, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
    MTEST_CHECK(errs, s2 != s1, "two sessions share a handle");
    errs += comms(s2, 7);
    if (mix) {
        MPI_Finalize();
        MPI_Finalized(&flag);
        MTEST_CHECK(errs, flag, "MPI_Finalized");
        /* The sessions' communicators outlive MPI_Finalize. */
        errs += work(keep, wsize, "session comm after MPI_Finalize");
        errs += comms(s2, 8);
    }
    EXPECT_OK(errs, MPI_Session_finalize(&s2));
    MTEST_CHECK(errs, s2 == MPI_SESSION_NULL, "finalize sets MPI_SESSION_NULL");
    if (!mix) {
        /* Errors on session handles go to the default handler: make it
         * return (MPI_COMM_WORLD stands for the process here). */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        EXPECT_ERR(errs, MPI_Session_finalize(&s2), MPI_ERR_SESSION, "MPI_Session_finalize", "session");
        EXPECT_ERR(errs, MPI_Session_get_num_psets(s2, MPI_INFO_NULL, &flag), MPI_ERR_SESSION, "MPI_Session_get_num_psets", "session");
        EXPECT_ERR(errs, MPI_Session_get_num_psets((MPI_Session)0x12345, MPI_INFO_NULL, &flag), MPI_ERR_SESSION,
                   "MPI_Session_get_num_psets", "session");
        EXPECT_ERR(errs, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL), MPI_ERR_ARG, "MPI_Session_init", "session");
        EXPECT_ERR(errs, MPI_Session_init((MPI_Info)0x1234, MPI_ERRORS_RETURN, &s2), MPI_ERR_INFO, "MPI_Session_init", "info");
        /* ... through the error handler the session was to have. */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        EXPECT_ERR(errs, MPI_Session_init((MPI_Info)0x1234, MPI_ERRORS_RETURN, &s2), MPI_ERR_INFO, "MPI_Session_init", "info");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        EXPECT_ERR(errs, MPI_Session_init(MPI_INFO_NULL, MPI_ERRHANDLER_NULL, &s2), MPI_ERR_ARG, "MPI_Session_init", "errhandler");
    }
    errs += work(keep, wsize, "session comm after another session ended");
    if (mix)
        report(keep, errs); /* the last use of MPI in this mode */
    MPI_Comm_free(&keep);
    EXPECT_OK(errs, MPI_Session_finalize(&s1));
    if (mix)
        return errs ? 1 : 0;
    /* Sessions only: after the last session ended, a new one starts MPI
     * again, several times. */
    for (int again = 0; again < 3; again++) {
        MPI_Session s3;
        EXPECT_OK(errs, MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s3));
        errs += comms(s3, 20 + again);
        MPI_Group_from_session_pset(s3, "mpi://WORLD", &wg);
        MPI_Comm_create_from_group(wg, "org.gmpi.test.again", MPI_INFO_NULL, MPI_ERRORS_RETURN, &keep);
        MPI_Group_free(&wg);
        errs += work(keep, wsize, "comm of a session after re-initialization");
        if (again == 2)
            report(keep, errs);
        MPI_Comm_free(&keep);
        EXPECT_OK(errs, MPI_Session_finalize(&s3));
    }
    return errs ? 1 : 0;
}
