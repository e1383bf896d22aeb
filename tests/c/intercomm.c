/* Intercommunicators: MPI_Intercomm_create over halves of MPI_COMM_WORLD
 * (even/odd ranks, and unequal thirds), point-to-point both ways with
 * MPI_ANY_SOURCE, the remote-group queries, compare, dup, idup, split,
 * create, merge (high both ways), the collectives with MPI_ROOT and
 * MPI_PROC_NULL roots, attributes/names/errhandlers, free, and the error
 * cases under MPI_ERRORS_RETURN. */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

static int wrank, wsize;

/* in_a says whether world rank r belongs to group A of a partition. */
typedef int (*partition)(int r);
static int even(int r) { return r % 2 == 0; }
static int third(int r) { return r < (wsize + 2) / 3; }

static int count_a(partition in_a) {
    int n = 0;
    for (int r = 0; r < wsize; r++)
        n += in_a(r);
    return n;
}

/* world_of returns the world rank of rank r of group A (a) or B. */
static int world_of(partition in_a, int a, int r) {
    for (int w = 0; w < wsize; w++)
        if ((in_a(w) != 0) == a && r-- == 0)
            return w;
    return -1;
}

static int check_group(MPI_Group g, partition in_a, int a, const char *what) {
    int errs = 0, n, expect = a ? count_a(in_a) : wsize - count_a(in_a);
    MPI_Group wg;
    MPI_Group_size(g, &n);
    MTEST_CHECK(errs, n == expect, "%s: size %d, want %d", what, n, expect);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int r = 0; r < n && r < expect; r++) {
        int w;
        MPI_Group_translate_ranks(g, 1, &r, wg, &w);
        MTEST_CHECK(errs, w == world_of(in_a, a, r), "%s: rank %d is world %d, want %d", what, r, w,
                    world_of(in_a, a, r));
    }
    MPI_Group_free(&wg);
    return errs;
}

static int test_p2p(MPI_Comm ic) {
    int errs = 0, rsize, rank;
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Comm_rank(ic, &rank);
    MPI_Group rg, wg;
    MPI_Comm_remote_group(ic, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Request *reqs = malloc(rsize * sizeof *reqs);
    int *out = malloc(rsize * sizeof *out);
    for (int r = 0; r < rsize; r++) {
        out[r] = wrank * 1000 + r;
        MPI_Isend(&out[r], 1, MPI_INT, r, 3, ic, &reqs[r]);
    }
    int *seen = calloc(rsize, sizeof *seen);
    for (int i = 0; i < rsize; i++) {
        int v;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, ic, &st);
        int w;
        MTEST_CHECK(errs, st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize, "source %d out of range", st.MPI_SOURCE);
        if (st.MPI_SOURCE < 0 || st.MPI_SOURCE >= rsize)
            continue;
        MPI_Group_translate_ranks(rg, 1, &st.MPI_SOURCE, wg, &w);
        MTEST_CHECK(errs, v == w * 1000 + rank, "from remote %d (world %d): got %d", st.MPI_SOURCE, w, v);
        MTEST_CHECK(errs, st.MPI_TAG == 3 && !seen[st.MPI_SOURCE], "tag %d, seen %d", st.MPI_TAG, seen[st.MPI_SOURCE]);
        seen[st.MPI_SOURCE] = 1;
    }
    MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE);
    /* Sendrecv with a named remote rank, and probe. */
    int partner = rank % rsize, v = -1, flag = 0;
    MPI_Status st;
    MPI_Send(&wrank, 1, MPI_INT, partner, 4, ic);
    /* Every remote process whose rank % lsize == rank sent us one. */
    int lsize;
    MPI_Comm_size(ic, &lsize);
    for (int r = 0; r < rsize; r++) {
        if (r % lsize != rank)
            continue;
        MPI_Probe(r, 4, ic, &st);
        MTEST_CHECK(errs, st.MPI_SOURCE == r, "probe source %d, want %d", st.MPI_SOURCE, r);
        MPI_Recv(&v, 1, MPI_INT, r, 4, ic, MPI_STATUS_IGNORE);
        int w;
        MPI_Group_translate_ranks(rg, 1, &r, wg, &w);
        MTEST_CHECK(errs, v == w, "got %d from remote %d, want %d", v, r, w);
    }
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &flag, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, !flag, "unexpected message left");
    free(reqs);
    free(out);
    free(seen);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
    return errs;
}

static int test_colls(MPI_Comm ic, partition in_a, int a) {
    int errs = 0, rank, size, rsize;
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_size(ic, &size);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Barrier(ic);
    /* Roots in both groups, every rank as root. */
    for (int ga = 1; ga >= 0; ga--) {
        int gsize = ga ? count_a(in_a) : wsize - count_a(in_a);
        for (int root = 0; root < gsize; root++) {
            int arg, mine = (a == ga);
            if (mine)
                arg = rank == root ? MPI_ROOT : MPI_PROC_NULL;
            else
                arg = root;
            int buf[5];
            for (int i = 0; i < 5; i++)
                buf[i] = arg == MPI_ROOT ? 100 * root + i : -1;
            MPI_Bcast(buf, 5, MPI_INT, arg, ic);
            if (!mine)
                for (int i = 0; i < 5; i++)
                    MTEST_CHECK(errs, buf[i] == 100 * root + i, "bcast root %d: buf[%d]=%d", root, i, buf[i]);
            /* Reduce: the root gets the sum over the other group. */
            int in[2] = {wrank, 1}, out[2] = {-7, -7};
            MPI_Reduce(in, out, 2, MPI_INT, MPI_SUM, arg, ic);
            if (arg == MPI_ROOT) {
                int want = 0;
                for (int w = 0; w < wsize; w++)
                    if ((in_a(w) != 0) != a)
                        want += w;
                MTEST_CHECK(errs, out[0] == want && out[1] == rsize, "reduce root %d: got %d %d want %d %d", root,
                            out[0], out[1], want, rsize);
            } else {
                MTEST_CHECK(errs, out[0] == -7, "reduce wrote a non-root buffer");
            }
        }
    }
    /* Allreduce: each group gets the other's reduction. */
    int in = wrank, out = -1, want = -1;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, ic);
    for (int w = 0; w < wsize; w++)
        if ((in_a(w) != 0) != a)
            want = w;
    MTEST_CHECK(errs, out == want, "allreduce max: got %d want %d", out, want);
    /* Non-commutative order check with a derived type on one side: the
     * reduction of ranks in order, packed across. */
    double d[3] = {rank, 2.0 * rank, 1}, dsum[3] = {0, 0, 0};
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_DOUBLE, &three);
    MPI_Type_commit(&three);
    if (a)
        MPI_Allreduce(d, dsum, 1, three, MPI_SUM, ic);
    else
        MPI_Allreduce(d, dsum, 3, MPI_DOUBLE, MPI_SUM, ic);
    MPI_Type_free(&three);
    MTEST_CHECK(errs, dsum[2] == rsize && dsum[0] == rsize * (rsize - 1) / 2.0 && dsum[1] == 2 * dsum[0],
                "allreduce doubles: %g %g %g", dsum[0], dsum[1], dsum[2]);
    return errs;
}

static int test_merge(MPI_Comm ic, partition in_a, int a) {
    int errs = 0;
    for (int high_a = 0; high_a <= 1; high_a++) {
        MPI_Comm m;
        MPI_Intercomm_merge(ic, a ? high_a : !high_a, &m);
        int flag, size, mrank;
        MPI_Comm_test_inter(m, &flag);
        MPI_Comm_size(m, &size);
        MPI_Comm_rank(m, &mrank);
        MTEST_CHECK(errs, !flag && size == wsize, "merged: inter %d size %d", flag, size);
        /* Group A first unless A passed high. */
        MPI_Group mg;
        MPI_Comm_group(m, &mg);
        int na = count_a(in_a), first_a = !high_a;
        MPI_Group wg;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        for (int r = 0; r < size; r++) {
            int w, want;
            MPI_Group_translate_ranks(mg, 1, &r, wg, &w);
            if (first_a)
                want = r < na ? world_of(in_a, 1, r) : world_of(in_a, 0, r - na);
            else
                want = r < wsize - na ? world_of(in_a, 0, r) : world_of(in_a, 1, r - (wsize - na));
            MTEST_CHECK(errs, w == want, "merge(high_a=%d): rank %d is world %d, want %d", high_a, r, w, want);
        }
        MPI_Group_free(&mg);
        MPI_Group_free(&wg);
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m);
        MTEST_CHECK(errs, sum == wsize, "allreduce on merged: %d", sum);
        MPI_Comm_free(&m);
    }
    /* Same high on both sides: still a valid ordering, each group
     * contiguous. */
    MPI_Comm m;
    MPI_Intercomm_merge(ic, 0, &m);
    int lrank, mrank, lsize;
    MPI_Comm_rank(ic, &lrank);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_rank(m, &mrank);
    MTEST_CHECK(errs, mrank == lrank || mrank == lrank + (wsize - lsize), "merge(0,0): rank %d from local %d", mrank,
                lrank);
    MPI_Comm_free(&m);
    return errs;
}

static int test_derived(MPI_Comm ic, partition in_a, int a) {
    int errs = 0, flag, result;
    MPI_Comm d, d2;
    MPI_Request req;
    MPI_Comm_dup(ic, &d);
    MPI_Comm_test_inter(d, &flag);
    MTEST_CHECK(errs, flag, "dup is not an intercommunicator");
    MPI_Comm_compare(ic, d, &result);
    MTEST_CHECK(errs, result == MPI_CONGRUENT, "compare(ic, dup) = %d", result);
    MPI_Comm_compare(ic, ic, &result);
    MTEST_CHECK(errs, result == MPI_IDENT, "compare(ic, ic) = %d", result);
    MPI_Comm_compare(ic, MPI_COMM_WORLD, &result);
    MTEST_CHECK(errs, result == MPI_UNEQUAL, "compare(ic, world) = %d", result);
    errs += test_p2p(d);
    MPI_Comm_idup(d, &d2, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_test_inter(d2, &flag);
    MTEST_CHECK(errs, flag, "idup is not an intercommunicator");
    MPI_Barrier(d2);
    MPI_Comm_free(&d2);

    /* Split by world parity, key reversing the order. */
    MPI_Comm s;
    MPI_Comm_split(d, wrank % 2, -wrank, &s);
    int remote_has = 0;
    for (int w = 0; w < wsize; w++)
        if ((in_a(w) != 0) != a && w % 2 == wrank % 2)
            remote_has++;
    if (!remote_has) {
        MTEST_CHECK(errs, s == MPI_COMM_NULL, "split: expected MPI_COMM_NULL");
    } else {
        MTEST_CHECK(errs, s != MPI_COMM_NULL, "split: got MPI_COMM_NULL");
        if (s != MPI_COMM_NULL) {
            int rs, r0;
            MPI_Comm_remote_size(s, &rs);
            MTEST_CHECK(errs, rs == remote_has, "split remote size %d want %d", rs, remote_has);
            MPI_Group rg, wg;
            MPI_Comm_remote_group(s, &rg);
            MPI_Comm_group(MPI_COMM_WORLD, &wg);
            int zero = 0;
            MPI_Group_translate_ranks(rg, 1, &zero, wg, &r0);
            /* Highest world rank first (key -wrank). */
            int want = -1;
            for (int w = 0; w < wsize; w++)
                if ((in_a(w) != 0) != a && w % 2 == wrank % 2)
                    want = w;
            MTEST_CHECK(errs, r0 == want, "split remote rank 0 is world %d want %d", r0, want);
            MPI_Group_free(&rg);
            MPI_Group_free(&wg);
            errs += test_p2p(s);
            MPI_Comm_free(&s);
        }
    }
    MPI_Comm_split(d, a ? MPI_UNDEFINED : 1, 0, &s);
    MTEST_CHECK(errs, s == MPI_COMM_NULL, "split with an undefined side gave a communicator");

    /* MPI_Comm_create with the first half of each local group. */
    MPI_Group lg, sub;
    int lsize;
    MPI_Comm_group(d, &lg);
    MPI_Group_size(lg, &lsize);
    int range[1][3] = {{0, (lsize - 1) / 2, 1}};
    MPI_Group_range_incl(lg, 1, range, &sub);
    MPI_Comm_create(d, sub, &s);
    int lrank;
    MPI_Comm_rank(d, &lrank);
    if (lrank > (lsize - 1) / 2) {
        MTEST_CHECK(errs, s == MPI_COMM_NULL, "create: non-member got a communicator");
    } else {
        MTEST_CHECK(errs, s != MPI_COMM_NULL, "create: member got MPI_COMM_NULL");
        if (s != MPI_COMM_NULL) {
            int rs, rsize;
            MPI_Comm_remote_size(d, &rsize);
            MPI_Comm_remote_size(s, &rs);
            MTEST_CHECK(errs, rs == (rsize - 1) / 2 + 1, "create: remote size %d", rs);
            MPI_Barrier(s);
            MPI_Comm_free(&s);
        }
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&lg);

    /* Attributes, names and error handlers. */
    int key, *val, attr = 42;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(d, key, &attr);
    MPI_Comm_dup(d, &d2);
    MPI_Comm_get_attr(d2, key, &val, &flag);
    MTEST_CHECK(errs, flag && val == &attr, "attribute not copied by dup");
    MPI_Comm_free(&d2);
    MPI_Comm_free_keyval(&key);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_set_name(d, "my intercomm");
    MPI_Comm_get_name(d, name, &len);
    MTEST_CHECK(errs, strcmp(name, "my intercomm") == 0, "name %s", name);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(d, &eh);
    MTEST_CHECK(errs, eh == MPI_ERRORS_RETURN, "errhandler not inherited");
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&d);
    MTEST_CHECK(errs, d == MPI_COMM_NULL, "free did not set MPI_COMM_NULL");
    return errs;
}

static int expect_class(int rc, int cls, const char *what) {
    int errs = 0, got;
    MPI_Error_class(rc, &got);
    MTEST_CHECK(errs, got == cls, "%s: error class %d, want %d", what, got, cls);
    return errs;
}

static int test_errors(MPI_Comm half, MPI_Comm ic, int remote_leader) {
    int errs = 0, rc, hsize, flag;
    MPI_Comm out = MPI_COMM_WORLD;
    MPI_Comm_size(half, &hsize);

    rc = MPI_Intercomm_create(half, hsize, MPI_COMM_WORLD, remote_leader, 9, &out);
    errs += expect_class(rc, MPI_ERR_RANK, "bad local leader");
    /* A remote leader out of range, and one inside the local group: the
     * leaders fail, and their groups with them. */
    rc = MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, wsize, 9, &out);
    errs += expect_class(rc, MPI_ERR_RANK, "remote leader out of range");
    rc = MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, wrank == 0 ? 0 : -5, 9, &out);
    /* wrank 0 leads group A: remote_leader 0 is itself. */
    errs += expect_class(rc, MPI_ERR_RANK, "remote leader is the caller");
    {
        /* Both leaders name a member of their own group. */
        int lead_world;
        MPI_Group hg, wg;
        int one = hsize > 1 ? 1 : 0;
        MPI_Comm_group(half, &hg);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_translate_ranks(hg, 1, &one, wg, &lead_world);
        MPI_Group_free(&hg);
        MPI_Group_free(&wg);
        if (hsize > 1) {
            rc = MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lead_world, 9, &out);
            errs += expect_class(rc, MPI_ERR_RANK, "remote leader in the local group");
        }
    }
    rc = MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, remote_leader, 9, &out);
    errs += expect_class(rc, MPI_ERR_COMM, "local_comm MPI_COMM_NULL");
    rc = MPI_Intercomm_create(half, 0, MPI_COMM_NULL, remote_leader, 9, &out);
    errs += expect_class(rc, MPI_ERR_COMM, "peer_comm MPI_COMM_NULL");
    rc = MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, remote_leader, 9, &out);
    errs += expect_class(rc, MPI_ERR_COMM, "local_comm an intercommunicator");
    rc = MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, -3, &out);
    errs += expect_class(rc, MPI_ERR_TAG, "bad tag");
    MTEST_CHECK(errs, out == MPI_COMM_WORLD || out == MPI_COMM_NULL, "output set on error");

    rc = MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &out);
    errs += expect_class(rc, MPI_ERR_COMM, "merge of an intracommunicator");
    rc = MPI_Intercomm_merge(MPI_COMM_NULL, 0, &out);
    errs += expect_class(rc, MPI_ERR_COMM, "merge of MPI_COMM_NULL");
    int n;
    rc = MPI_Comm_remote_size(MPI_COMM_WORLD, &n);
    errs += expect_class(rc, MPI_ERR_COMM, "remote_size of an intracommunicator");
    MPI_Group g;
    rc = MPI_Comm_remote_group(half, &g);
    errs += expect_class(rc, MPI_ERR_COMM, "remote_group of an intracommunicator");
    MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
    MTEST_CHECK(errs, !flag, "world is an intercommunicator");

    /* Operations that need an intracommunicator. */
    int dims[1] = {1}, periods[1] = {0};
    rc = MPI_Cart_create(ic, 1, dims, periods, 0, &out);
    errs += expect_class(rc, MPI_ERR_COMM, "cart_create on an intercommunicator");
    int index[1] = {0};
    rc = MPI_Graph_create(ic, 1, index, NULL, 0, &out);
    errs += expect_class(rc, MPI_ERR_COMM, "graph_create on an intercommunicator");
    rc = MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &out);
    errs += expect_class(rc, MPI_ERR_COMM, "split_type on an intercommunicator");

    /* Ranks and roots name the remote group. */
    int rsize, x = 0;
    MPI_Comm_remote_size(ic, &rsize);
    rc = MPI_Send(&x, 1, MPI_INT, rsize, 0, ic);
    errs += expect_class(rc, MPI_ERR_RANK, "send to rank remote_size");
    rc = MPI_Bcast(&x, 1, MPI_INT, rsize, ic);
    errs += expect_class(rc, MPI_ERR_ROOT, "bcast root remote_size");
    rc = MPI_Reduce(&x, &n, 1, MPI_INT, MPI_SUM, -7, ic);
    errs += expect_class(rc, MPI_ERR_ROOT, "reduce root -7");
    rc = MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT, MPI_SUM, ic);
    errs += expect_class(rc, MPI_ERR_BUFFER, "allreduce MPI_IN_PLACE");
    rc = MPI_Comm_get_parent(&out);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && out == MPI_COMM_NULL, "get_parent: rc %d", rc);
    return errs;
}

static int run(partition in_a, int with_errors) {
    int errs = 0, a = in_a(wrank) != 0, flag, size, rsize, rank;
    MPI_Comm half, ic;
    MPI_Comm_split(MPI_COMM_WORLD, a, wrank, &half);
    int remote_leader = world_of(in_a, !a, 0);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 12, &ic);
    MPI_Comm_test_inter(ic, &flag);
    MTEST_CHECK(errs, flag, "not an intercommunicator");
    MPI_Comm_size(ic, &size);
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_remote_size(ic, &rsize);
    int na = count_a(in_a);
    MTEST_CHECK(errs, size == (a ? na : wsize - na) && rsize == wsize - size, "size %d remote %d", size, rsize);
    int hrank;
    MPI_Comm_rank(half, &hrank);
    MTEST_CHECK(errs, rank == hrank, "rank %d, want %d", rank, hrank);
    MPI_Group g;
    MPI_Comm_group(ic, &g);
    errs += check_group(g, in_a, a, "local group");
    MPI_Group_free(&g);
    MPI_Comm_remote_group(ic, &g);
    errs += check_group(g, in_a, !a, "remote group");
    MPI_Group_free(&g);

    errs += test_p2p(ic);
    errs += test_colls(ic, in_a, a);
    errs += test_merge(ic, in_a, a);
    errs += test_derived(ic, in_a, a);
    if (with_errors)
        errs += test_errors(half, ic, remote_leader);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
    return errs;
}

int main(int argc, char **argv) {
    int errs = 0;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (wsize < 2) {
        if (wrank == 0)
            fprintf(stderr, "intercomm needs at least 2 processes\n");
        MTest_Finalize(1);
        return 1;
    }
    errs += run(even, 1);
    errs += run(third, 0);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
