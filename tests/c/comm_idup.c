/* comm_idup: MPI_Comm_idup and MPI_Comm_idup_with_info complete in the
 * background, so that
 *  1. ranks may start them at different times, with other communication
 *     in between (an MPI_Ssend that the peer receives only before its own
 *     idup);
 *  2. several idups may be pending on the same parent, and each gives its
 *     own context;
 *  3. the same holds on intercommunicators;
 *  4. a group communicator (MPI_Comm_create_group) may be created on the
 *     parent right after an idup, before it completes, and on the new
 *     communicator afterwards;
 *  5. attributes are copied and the communicator works as a duplicate;
 *  6. the parent may be freed while idups on it are pending: they still
 *     complete and work, and the parent's handle is invalid at once;
 *  7. MPI_Finalize completes an idup that the program never waited for
 *     (some ranks start it late);
 *  8. the new handle exists at once, as MPICH's does: an error handler,
 *     a name and an attribute set on it before the request completes are
 *     in force afterwards (mpi4py sets the error handler right after
 *     MPI_Comm_idup), and communicating on it before then is an error;
 *  9. communicators from idups, used only after their wait as the
 *     standard says, run the C lanes (small blocking collectives and
 *     point-to-point) under their handle while other communicators are
 *     created and freed around them, so that handles are reused (an
 *     earlier version moved the new communicator onto the handle at
 *     completion and left the lanes' registrations behind: it hung).
 * Before the fix idup was a blocking dup and cases 1, 3 and 4 hung. */
#include "mtest.h"
#include <stdlib.h>
#include <string.h>

#define K 4

static int rank, size;

/* Checks that the communicators are distinct contexts congruent with
 * ref: messages with the same tag on each, received in reverse order. */
static int check_dups(MPI_Comm ref, MPI_Comm *cs, int n, const char *what)
{
    int errs = 0, res, r, s;
    MPI_Comm_rank(ref, &r);
    MPI_Comm_size(ref, &s);
    MPI_Request rq[2 * K];
    int out[K], in[K];
    for (int i = 0; i < n; i++) {
        MTEST_CHECK(errs, cs[i] != MPI_COMM_NULL, "%s: dup %d is MPI_COMM_NULL", what, i);
        if (cs[i] == MPI_COMM_NULL)
            return errs;
        MPI_Comm_compare(ref, cs[i], &res);
        MTEST_CHECK(errs, res == MPI_CONGRUENT, "%s: dup %d compares %d", what, i, res);
    }
    for (int i = n - 1; i >= 0; i--) {
        in[i] = -1;
        MPI_Irecv(&in[i], 1, MPI_INT, (r - 1 + s) % s, 7, cs[i], &rq[i]);
    }
    for (int i = 0; i < n; i++) {
        out[i] = 100 * i + r;
        MPI_Isend(&out[i], 1, MPI_INT, (r + 1) % s, 7, cs[i], &rq[n + i]);
    }
    MPI_Waitall(2 * n, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; i++)
        MTEST_CHECK(errs, in[i] == 100 * i + (r - 1 + s) % s, "%s: dup %d got %d", what, i, in[i]);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rc;
    MPI_Comm cs[K];
    MPI_Request rq[K];
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int token = 0, partner = rank ^ 1;

    /* 1 and 2: even ranks start their idups, then Ssend to their odd
     * partner, which receives before it starts its own. */
    for (int i = 0; i < K; i++)
        cs[i] = MPI_COMM_NULL;
    if (partner < size && rank % 2 == 1)
        MPI_Recv(&token, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < K; i++) {
        if (i % 2)
            rc = MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &cs[i], &rq[i]);
        else
            rc = MPI_Comm_idup(MPI_COMM_WORLD, &cs[i], &rq[i]);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "idup %d returned %d", i, rc);
    }
    if (partner < size && rank % 2 == 0) {
        token = 42;
        MPI_Ssend(&token, 1, MPI_INT, partner, 1, MPI_COMM_WORLD);
    }
    MPI_Waitall(K, rq, MPI_STATUSES_IGNORE);
    MTEST_CHECK(errs, partner >= size || rank % 2 == 0 || token == 42, "token %d", token);
    errs += check_dups(MPI_COMM_WORLD, cs, K, "world");
    for (int i = 0; i < K; i++)
        MPI_Comm_free(&cs[i]);

    /* 3: intercommunicator between the lower and the upper half; the
     * last rank Ssends to rank 0 before its idup, rank 0 receives after
     * starting its own. */
    if (size >= 2) {
        MPI_Comm half, inter;
        int low = rank < size / 2;
        MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 3, &inter);
        if (rank == size - 1) {
            token = 43;
            MPI_Ssend(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
        for (int i = 0; i < 2; i++)
            MPI_Comm_idup(inter, &cs[i], &rq[i]);
        if (rank == 0)
            MPI_Recv(&token, 1, MPI_INT, size - 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        for (int i = 0; i < 2; i++) {
            int flag = 0, rs = -1, res;
            MPI_Comm_test_inter(cs[i], &flag);
            MPI_Comm_remote_size(cs[i], &rs);
            MTEST_CHECK(errs, flag && rs == (low ? size - size / 2 : size / 2), "inter dup %d: inter %d remote size %d",
                        i, flag, rs);
            MPI_Comm_compare(inter, cs[i], &res);
            MTEST_CHECK(errs, res == MPI_CONGRUENT, "inter dup %d compares %d", i, res);
            /* local rank 0s swap a value over each dup */
            int lr, v = 10 * i + low, got = -1;
            MPI_Comm_rank(cs[i], &lr);
            if (lr == 0) {
                MPI_Sendrecv(&v, 1, MPI_INT, 0, 9, &got, 1, MPI_INT, 0, 9, cs[i], MPI_STATUS_IGNORE);
                MTEST_CHECK(errs, got == 10 * i + !low, "inter dup %d: got %d", i, got);
            }
        }
        MTEST_CHECK(errs, rank != 0 || token == 43, "token %d", token);
        for (int i = 0; i < 2; i++)
            MPI_Comm_free(&cs[i]);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }

    /* 4: a group communicator right after an idup, on the parent and on
     * the new communicator; the even ranks start late. */
    {
        MPI_Group wg, eg;
        MPI_Comm gc = MPI_COMM_NULL, gc2 = MPI_COMM_NULL, dup = MPI_COMM_NULL;
        MPI_Request r;
        int ranks[256], n = 0;
        for (int i = 0; i < size; i += 2)
            ranks[n++] = i;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_incl(wg, n, ranks, &eg);
        if (rank % 2 == 0 && partner < size)
            MPI_Recv(&token, 1, MPI_INT, partner, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r);
        if (rank % 2 == 0) {
            rc = MPI_Comm_create_group(MPI_COMM_WORLD, eg, 11, &gc);
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "create_group after idup returned %d", rc);
        }
        if (rank % 2 == 1) {
            token = 44;
            MPI_Ssend(&token, 1, MPI_INT, partner, 4, MPI_COMM_WORLD);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rank % 2 == 0) {
            rc = MPI_Comm_create_group(dup, eg, 12, &gc2);
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "create_group on the dup returned %d", rc);
            int s1 = -1, s2 = -1, sum = -1;
            MPI_Comm_size(gc, &s1);
            MPI_Comm_size(gc2, &s2);
            MTEST_CHECK(errs, s1 == n && s2 == n, "group comm sizes %d %d, want %d", s1, s2, n);
            MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, gc2);
            MTEST_CHECK(errs, sum == (n - 1) * n, "allreduce on the group comm gave %d", sum);
            /* an idup of the group communicator right away */
            MPI_Comm gd;
            MPI_Comm_idup(gc, &gd, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            errs += check_dups(gc, &gd, 1, "group");
            MPI_Comm_free(&gd);
            MPI_Comm_free(&gc);
            MPI_Comm_free(&gc2);
        }
        errs += check_dups(MPI_COMM_WORLD, &dup, 1, "dup4");
        MPI_Comm_free(&dup);
        MPI_Group_free(&eg);
        MPI_Group_free(&wg);
    }

    /* 5: attributes with MPI_COMM_DUP_FN are copied; MPI_COMM_NULL_COPY_FN
     * ones are not. */
    {
        int kcopy, knull, flag, *v, a = 5, b = 6;
        MPI_Comm base, d;
        MPI_Request r;
        MPI_Comm_dup(MPI_COMM_WORLD, &base);
        MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kcopy, NULL);
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL);
        MPI_Comm_set_attr(base, kcopy, &a);
        MPI_Comm_set_attr(base, knull, &b);
        MPI_Comm_idup(base, &d, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Comm_get_attr(d, kcopy, &v, &flag);
        MTEST_CHECK(errs, flag && v == &a, "copied attribute: flag %d", flag);
        MPI_Comm_get_attr(d, knull, &v, &flag);
        MTEST_CHECK(errs, !flag, "MPI_COMM_NULL_COPY_FN attribute was copied");
        errs += check_dups(base, &d, 1, "attr");
        MPI_Comm_free(&d);
        MPI_Comm_free(&base);
        MPI_Comm_free_keyval(&kcopy);
        MPI_Comm_free_keyval(&knull);
    }
    /* 6: free the parent right after starting idups on it; odd ranks
     * start late (after their partner's Ssend). */
    {
        MPI_Comm base, d[2];
        MPI_Request r[2];
        MPI_Comm_dup(MPI_COMM_WORLD, &base);
        if (rank % 2 == 1)
            MPI_Recv(&token, 1, MPI_INT, partner, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_idup(base, &d[0], &r[0]);
        MPI_Comm_idup(base, &d[1], &r[1]);
        MPI_Comm keep = base;
        rc = MPI_Comm_free(&base);
        MTEST_CHECK(errs, rc == MPI_SUCCESS && base == MPI_COMM_NULL, "free of the parent: rc %d", rc);
        int sz = -1;
        rc = MPI_Comm_size(keep, &sz);
        MTEST_CHECK(errs, rc != MPI_SUCCESS, "freed parent still usable (size %d)", sz);
        if (partner < size && rank % 2 == 0) {
            token = 46;
            MPI_Ssend(&token, 1, MPI_INT, partner, 6, MPI_COMM_WORLD);
        }
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        errs += check_dups(MPI_COMM_WORLD, d, 2, "freed parent");
        MPI_Comm_free(&d[0]);
        MPI_Comm_free(&d[1]);
    }
    /* 8: set the error handler, the name and an attribute on the new
     * handle before the idup completes; odd ranks start late, so an even
     * rank's idup cannot complete before its Ssend. */
    {
        MPI_Comm d;
        MPI_Request r;
        int key, val = 8, *v = NULL, flag = 0, len = 0, sz = -1;
        char name[MPI_MAX_OBJECT_NAME];
        MPI_Errhandler eh;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
        if (rank % 2 == 1)
            MPI_Recv(&token, 1, MPI_INT, partner, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_idup(MPI_COMM_WORLD, &d, &r);
        MTEST_CHECK(errs, d != MPI_COMM_NULL, "idup: no handle before completion");
        rc = MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "set_errhandler on the pending idup: rc %d", rc);
        rc = MPI_Comm_set_name(d, "pending-idup");
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "set_name on the pending idup: rc %d", rc);
        rc = MPI_Comm_set_attr(d, key, &val);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "set_attr on the pending idup: rc %d", rc);
        if (partner < size && rank % 2 == 0) {
            rc = MPI_Comm_size(d, &sz);
            MTEST_CHECK(errs, rc != MPI_SUCCESS, "MPI_Comm_size on the pending idup succeeded (%d)", sz);
            token = 48;
            MPI_Ssend(&token, 1, MPI_INT, partner, 8, MPI_COMM_WORLD);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Comm_get_name(d, name, &len);
        MTEST_CHECK(errs, strcmp(name, "pending-idup") == 0, "name after completion: '%s'", name);
        MPI_Comm_get_attr(d, key, &v, &flag);
        MTEST_CHECK(errs, flag && v == &val, "attribute after completion: flag %d", flag);
        MPI_Comm_get_errhandler(d, &eh);
        MTEST_CHECK(errs, eh == MPI_ERRORS_RETURN, "error handler after completion is not MPI_ERRORS_RETURN");
        MPI_Errhandler_free(&eh);
        rc = MPI_Send(&val, 1, MPI_INT, size, 0, d);
        MTEST_CHECK(errs, rc != MPI_SUCCESS, "send to rank %d on the idup succeeded", size);
        errs += check_dups(MPI_COMM_WORLD, &d, 1, "pending handle");
        MPI_Comm_free(&d);
        MPI_Comm_free_keyval(&key);
    }
    /* 9: rounds of idups used after their wait for small blocking
     * collectives (the C collective lane) and point-to-point, with other
     * communicators created and freed in between so that handles come
     * back. */
    for (int round = 0; round < 12; round++) {
        MPI_Comm d[3], other;
        MPI_Request r[3];
        MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &r[0]);
        MPI_Comm_dup(MPI_COMM_WORLD, &other);
        MPI_Comm_idup(other, &d[1], &r[1]);
        MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &d[2], &r[2]);
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
        if (round % 2)
            MPI_Comm_free(&other);
        for (int i = 0; i < 3; i++) {
            int sum = -1, b = rank == round % size ? 1000 + round : -1, in = -1, out = rank;
            MPI_Barrier(d[i]);
            MPI_Bcast(&b, 1, MPI_INT, round % size, d[i]);
            MTEST_CHECK(errs, b == 1000 + round, "round %d dup %d: bcast got %d", round, i, b);
            MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, d[i]);
            MTEST_CHECK(errs, sum == size * (size - 1) / 2, "round %d dup %d: allreduce got %d", round, i, sum);
            MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, i, &in, 1, MPI_INT, (rank - 1 + size) % size, i,
                         d[i], MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, in == (rank - 1 + size) % size, "round %d dup %d: sendrecv got %d", round, i, in);
        }
        MPI_Comm_free(&d[round % 3]);
        MPI_Comm_free(&d[(round + 1) % 3]);
        if (round % 2 == 0)
            MPI_Comm_free(&other);
        MPI_Barrier(d[(round + 2) % 3]);
        MPI_Comm_free(&d[(round + 2) % 3]);
    }
    /* 7: an idup pending into MPI_Finalize. */
    {
        MPI_Comm base, d;
        MPI_Request r;
        MPI_Comm_dup(MPI_COMM_WORLD, &base);
        if (rank % 2 == 1)
            MPI_Recv(&token, 1, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_idup(base, &d, &r);
        MPI_Request_free(&r);
        if (partner < size && rank % 2 == 0) {
            token = 47;
            MPI_Ssend(&token, 1, MPI_INT, partner, 7, MPI_COMM_WORLD);
        }
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
