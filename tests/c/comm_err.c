/* comm_err: communicator constructors and accessors on bad arguments
 * (MPI_COMM_NULL everywhere, groups that are not subsets, bad split
 * types, bad info handles, NULL outputs), MPI_Comm_compare's four
 * answers, name truncation at MPI_MAX_OBJECT_NAME, info hints through
 * dup/set_info/get_info, and MPI_COMM_TYPE_HW_GUIDED with every resource
 * type. Run with 1, 2, 4 and 7 processes. */
#include "mtest_err.h"

static void handler(MPI_Comm *c, int *code, ...) { (void)c; (void)code; }

int main(int argc, char **argv)
{
    int errs = 0, rank, size, res, flag, len, n;
    MPI_Comm c, dup;
    MPI_Group wg, g;
    MPI_Info info, freed_info;
    MPI_Request req;
    char name[MPI_MAX_OBJECT_NAME + 64];
    void *v;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Info_create(&freed_info);
    info = freed_info;
    MPI_Info_free(&info);

    /* MPI_COMM_NULL: MPI_ERR_COMM, raised on MPI_COMM_WORLD's handler. */
    {
        MPI_Errhandler eh;
        int key;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
        c = MPI_COMM_NULL;
        EXPECT_ERR(errs, MPI_Comm_size(MPI_COMM_NULL, &n), MPI_ERR_COMM, "MPI_Comm_size", "comm");
        EXPECT_ERR(errs, MPI_Comm_dup_with_info(MPI_COMM_NULL, MPI_INFO_NULL, &c), MPI_ERR_COMM,
                   "MPI_Comm_dup_with_info", "comm");
        EXPECT_ERR(errs, MPI_Comm_idup(MPI_COMM_NULL, &c, &req), MPI_ERR_COMM, "MPI_Comm_idup", "comm");
        EXPECT_ERR(errs, MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c), MPI_ERR_COMM, "MPI_Comm_split", "comm");
        EXPECT_ERR(errs, MPI_Comm_split_type(MPI_COMM_NULL, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c),
                   MPI_ERR_COMM, "MPI_Comm_split_type", "comm");
        EXPECT_ERR(errs, MPI_Comm_create(MPI_COMM_NULL, wg, &c), MPI_ERR_COMM, "MPI_Comm_create", "comm");
        EXPECT_ERR(errs, MPI_Comm_create_group(MPI_COMM_NULL, wg, 0, &c), MPI_ERR_COMM,
                   "MPI_Comm_create_group", "comm");
        EXPECT_ERR(errs, MPI_Comm_free(&c), MPI_ERR_COMM, "MPI_Comm_free", "comm");
        EXPECT_ERR(errs, MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_WORLD, &res), MPI_ERR_COMM,
                   "MPI_Comm_compare", "comm1");
        EXPECT_ERR(errs, MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &res), MPI_ERR_COMM,
                   "MPI_Comm_compare", "comm2");
        EXPECT_ERR(errs, MPI_Comm_test_inter(MPI_COMM_NULL, &flag), MPI_ERR_COMM, "MPI_Comm_test_inter", "comm");
        EXPECT_ERR(errs, MPI_Comm_set_name(MPI_COMM_NULL, "x"), MPI_ERR_COMM, "MPI_Comm_set_name", "comm");
        EXPECT_ERR(errs, MPI_Comm_get_name(MPI_COMM_NULL, name, &len), MPI_ERR_COMM, "MPI_Comm_get_name", "comm");
        EXPECT_ERR(errs, MPI_Comm_set_info(MPI_COMM_NULL, MPI_INFO_NULL), MPI_ERR_COMM, "MPI_Comm_set_info", "comm");
        EXPECT_ERR(errs, MPI_Comm_get_info(MPI_COMM_NULL, &info), MPI_ERR_COMM, "MPI_Comm_get_info", "comm");
        EXPECT_ERR(errs, MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN), MPI_ERR_COMM,
                   "MPI_Comm_set_errhandler", "comm");
        EXPECT_ERR(errs, MPI_Comm_get_errhandler(MPI_COMM_NULL, &eh), MPI_ERR_COMM, "MPI_Comm_get_errhandler", "comm");
        EXPECT_ERR(errs, MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER), MPI_ERR_COMM,
                   "MPI_Comm_call_errhandler", "comm");
        EXPECT_ERR(errs, MPI_Comm_set_attr(MPI_COMM_NULL, key, NULL), MPI_ERR_COMM, "MPI_Comm_set_attr", "comm");
        EXPECT_ERR(errs, MPI_Comm_get_attr(MPI_COMM_NULL, key, &v, &flag), MPI_ERR_COMM, "MPI_Comm_get_attr", "comm");
        EXPECT_ERR(errs, MPI_Comm_delete_attr(MPI_COMM_NULL, key), MPI_ERR_COMM, "MPI_Comm_delete_attr", "comm");
        EXPECT_ERR(errs, MPI_Attr_put(MPI_COMM_NULL, key, NULL), MPI_ERR_COMM, "MPI_Attr_put", "comm");
        EXPECT_ERR(errs, MPI_Topo_test(MPI_COMM_NULL, &n), MPI_ERR_COMM, "MPI_Topo_test", "comm");
        MPI_Comm_free_keyval(&key);
    }

    /* Predefined communicators cannot be freed (the error goes to the
     * communicator's own handler). */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    c = MPI_COMM_SELF;
    EXPECT_ERR(errs, MPI_Comm_free(&c), MPI_ERR_COMM, "MPI_Comm_free", "comm");
    MTEST_CHECK(errs, c == MPI_COMM_SELF, "failed free changed the handle");
    EXPECT_ERR(errs, MPI_Comm_free(NULL), MPI_ERR_ARG, "MPI_Comm_free", "comm");

    /* NULL outputs. */
    EXPECT_ERR(errs, MPI_Comm_dup(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_dup", "newcomm");
    EXPECT_ERR(errs, MPI_Comm_idup(MPI_COMM_WORLD, &c, NULL), MPI_ERR_ARG, "MPI_Comm_idup", "request");
    EXPECT_ERR(errs, MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_size", "size");
    EXPECT_ERR(errs, MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, NULL), MPI_ERR_ARG, "MPI_Comm_compare", "result");
    EXPECT_ERR(errs, MPI_Comm_set_name(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_set_name", "comm_name");
    EXPECT_ERR(errs, MPI_Comm_get_name(MPI_COMM_WORLD, NULL, &len), MPI_ERR_ARG, "MPI_Comm_get_name", "comm_name");
    EXPECT_ERR(errs, MPI_Comm_get_name(MPI_COMM_WORLD, name, NULL), MPI_ERR_ARG, "MPI_Comm_get_name", "resultlen");

    /* Bad info handles. */
    EXPECT_ERR(errs, MPI_Comm_dup_with_info(MPI_COMM_WORLD, freed_info, &c), MPI_ERR_INFO,
               "MPI_Comm_dup_with_info", "info");
    EXPECT_ERR(errs, MPI_Comm_set_info(MPI_COMM_WORLD, freed_info), MPI_ERR_INFO, "MPI_Comm_set_info", "info");
    EXPECT_ERR(errs, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, freed_info, &c), MPI_ERR_INFO,
               "MPI_Comm_split_type", "info");

    /* Split arguments. */
    /* A negative colour other than MPI_UNDEFINED is an ordinary colour, as
     * in MPICH (the MPICH-G2 topology example splits by -1). */
    {
        int sz = -1;
        c = MPI_COMM_NULL;
        EXPECT_OK(errs, MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? -3 : -1, 0, &c));
        MTEST_CHECK(errs, c != MPI_COMM_NULL, "split by a negative colour gave MPI_COMM_NULL");
        if (c != MPI_COMM_NULL) {
            MPI_Comm_size(c, &sz);
            MTEST_CHECK(errs, sz == (size + (rank % 2 ? 0 : 1)) / 2, "split by a negative colour: size %d", sz);
            MPI_Comm_free(&c);
        }
    }
    EXPECT_ERR(errs, MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
               "MPI_Comm_split_type", "split_type");
    EXPECT_ERR(errs, MPI_Comm_split_type(MPI_COMM_WORLD, -7, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG,
               "MPI_Comm_split_type", "split_type");

    /* Groups that are not a subset of the communicator. */
    if (size > 1) {
        EXPECT_ERR(errs, MPI_Comm_create(MPI_COMM_SELF, wg, &c), MPI_ERR_GROUP, "MPI_Comm_create", "group");
        EXPECT_ERR(errs, MPI_Comm_create_group(MPI_COMM_SELF, wg, 3, &c), MPI_ERR_GROUP,
                   "MPI_Comm_create_group", "group");
    }
    /* create_group: the caller must be a member; the tag must be valid */
    {
        int other = (rank + 1) % size;
        if (size > 1) {
            MPI_Group_incl(wg, 1, &other, &g);
            EXPECT_ERR(errs, MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c), MPI_ERR_GROUP,
                       "MPI_Comm_create_group", "group");
            MPI_Group_free(&g);
        }
        EXPECT_ERR(errs, MPI_Comm_create_group(MPI_COMM_WORLD, wg, -4, &c), MPI_ERR_TAG,
                   "MPI_Comm_create_group", "tag");
    }
    /* create with the empty group: MPI_COMM_NULL everywhere */
    EXPECT_OK(errs, MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    MTEST_CHECK(errs, c == MPI_COMM_NULL, "create with MPI_GROUP_EMPTY gave a communicator");

    /* Compare: all four answers. */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res);
    MTEST_CHECK(errs, res == MPI_IDENT, "world vs world %d", res);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
    MTEST_CHECK(errs, res == MPI_CONGRUENT, "world vs dup %d", res);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &c);
    MPI_Comm_compare(c, MPI_COMM_WORLD, &res);
    MTEST_CHECK(errs, res == (size > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "reversed vs world %d", res);
    MPI_Comm_free(&c);
    MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &res);
    MTEST_CHECK(errs, res == (size > 1 ? MPI_UNEQUAL : MPI_CONGRUENT), "self vs world %d", res);
    MPI_Comm_test_inter(MPI_COMM_SELF, &flag);
    MTEST_CHECK(errs, flag == 0, "self is an intercommunicator");

    /* Names: truncated to MPI_MAX_OBJECT_NAME-1 characters; predefined
     * names; a dup has no name; renaming MPI_COMM_WORLD is allowed. */
    {
        char longname[MPI_MAX_OBJECT_NAME + 40];
        memset(longname, 'n', sizeof longname - 1);
        longname[sizeof longname - 1] = 0;
        EXPECT_OK(errs, MPI_Comm_set_name(dup, longname));
        memset(name, 'x', sizeof name);
        MPI_Comm_get_name(dup, name, &len);
        MTEST_CHECK(errs, len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len,
                    "long name: resultlen %d strlen %d", len, (int)strnlen(name, sizeof name));
        MPI_Comm_set_name(dup, "");
        MPI_Comm_get_name(dup, name, &len);
        MTEST_CHECK(errs, len == 0 && name[0] == 0, "empty name: %d", len);
        MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
        MTEST_CHECK(errs, strcmp(name, "MPI_COMM_SELF") == 0, "self name %s", name);
        MPI_Comm_set_name(MPI_COMM_WORLD, "renamed world");
        MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
        MTEST_CHECK(errs, strcmp(name, "renamed world") == 0, "world renamed %s", name);
        MPI_Comm_set_name(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    }

    /* Info hints: set_info/get_info, carried by dup_with_info; the info
     * returned is a copy the caller owns. */
    {
        MPI_Info in, got;
        char val[MPI_MAX_INFO_VAL + 1];
        MPI_Info_create(&in);
        MPI_Info_set(in, "mpi_assert_no_any_source", "true"); /* a hint gmpi knows */
        EXPECT_OK(errs, MPI_Comm_set_info(dup, in));
        MPI_Info_set(in, "mpi_assert_no_any_source", "false");
        EXPECT_OK(errs, MPI_Comm_get_info(dup, &got));
        MPI_Info_get(got, "mpi_assert_no_any_source", MPI_MAX_INFO_VAL, val, &flag);
        MTEST_CHECK(errs, flag && strcmp(val, "true") == 0, "set_info hint: %d %s", flag, flag ? val : "");
        MPI_Info_set(got, "gmpi_test_b", "2"); /* does not reach the communicator */
        MPI_Info_free(&got);
        MPI_Comm_get_info(dup, &got);
        MPI_Info_get(got, "gmpi_test_b", MPI_MAX_INFO_VAL, val, &flag);
        MTEST_CHECK(errs, !flag, "get_info returned the communicator's own object");
        MPI_Info_free(&got);
        EXPECT_OK(errs, MPI_Comm_dup_with_info(dup, in, &c));
        MPI_Comm_get_info(c, &got);
        MPI_Info_get(got, "mpi_assert_no_any_source", MPI_MAX_INFO_VAL, val, &flag);
        MTEST_CHECK(errs, flag && strcmp(val, "false") == 0, "dup_with_info hint %d", flag);
        MPI_Info_free(&got);
        MPI_Comm_free(&c);
        MPI_Info_free(&in);
    }

    /* Split by hardware resource: every supported type holds all the
     * (single-host) processes; an unknown type or MPI_INFO_NULL gives
     * MPI_COMM_NULL. */
    {
        const char *types[3] = {"mpi_shared_memory", "gmpi_machine", "gmpi_site"};
        MPI_Info in;
        int i, r;
        MPI_Info_create(&in);
        for (i = 0; i < 3; i++) {
            MPI_Info_set(in, "mpi_hw_resource_type", types[i]);
            c = MPI_COMM_NULL;
            EXPECT_OK(errs, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, size - rank, in, &c));
            if (c == MPI_COMM_NULL) {
                MTEST_CHECK(errs, c != MPI_COMM_NULL, "%s gave MPI_COMM_NULL", types[i]);
                continue;
            }
            MPI_Comm_size(c, &n);
            MPI_Comm_rank(c, &r);
            MTEST_CHECK(errs, n == size && r == size - 1 - rank, "%s: size %d rank %d", types[i], n, r);
            MPI_Comm_free(&c);
        }
        MPI_Info_set(in, "mpi_hw_resource_type", "gmpi_no_such_level");
        EXPECT_OK(errs, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, in, &c));
        MTEST_CHECK(errs, c == MPI_COMM_NULL, "unknown resource type gave a communicator");
        EXPECT_OK(errs, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c));
        MTEST_CHECK(errs, c == MPI_COMM_NULL, "HW_GUIDED without info gave a communicator");
        MPI_Info_free(&in);
        /* shared-memory split keyed in reverse */
        EXPECT_OK(errs, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &c));
        MPI_Comm_rank(c, &r);
        MTEST_CHECK(errs, r == size - 1 - rank, "shared split rank %d", r);
        MPI_Comm_free(&c);
    }

    /* A user errhandler on dup sees errors on dup, not on world. */
    {
        MPI_Errhandler eh;
        MPI_Comm_create_errhandler(handler, &eh);
        MPI_Comm_set_errhandler(dup, eh);
        MPI_Errhandler_free(&eh);
        EXPECT_ERR(errs, MPI_Comm_split_type(dup, 12345, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG, "MPI_Comm_split_type",
                   "split_type");
    }

    /* Everything still works. */
    {
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
        MTEST_CHECK(errs, sum == size, "allreduce after errors %d", sum);
    }
    MPI_Comm_free(&dup);
    MPI_Group_free(&wg);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
