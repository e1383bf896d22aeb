/* groups: the group API (incl/excl/ranges/union/intersection/difference/
 * translate_ranks/compare/size/rank/free, MPI_GROUP_EMPTY) and its error
 * cases. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int errs = 0, rank, size, i, n, r, res;
    MPI_Group world, g1, g2, g3, rev;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(world, &n);
    MPI_Group_rank(world, &r);
    MTEST_CHECK(errs, n == size && r == rank, "world group size %d rank %d", n, r);

    /* reversed order via range_incl */
    {
        int range[1][3] = {{size - 1, 0, -1}};
        MPI_Group_range_incl(world, 1, range, &rev);
        MPI_Group_rank(rev, &r);
        MTEST_CHECK(errs, r == size - 1 - rank, "reversed rank %d", r);
        MPI_Group_compare(world, rev, &res);
        MTEST_CHECK(errs, res == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare reversed %d", res);
    }
    /* evens with incl, odds with excl of the evens */
    {
        int ev[64], nev = 0;
        for (i = 0; i < size; i += 2) ev[nev++] = i;
        MPI_Group_incl(world, nev, ev, &g1);
        MPI_Group_excl(world, nev, ev, &g2);
        MPI_Group_size(g1, &n);
        MTEST_CHECK(errs, n == nev, "evens size %d", n);
        MPI_Group_size(g2, &n);
        MTEST_CHECK(errs, n == size - nev, "odds size %d", n);
        MPI_Group_rank(g1, &r);
        MTEST_CHECK(errs, rank % 2 == 0 ? r == rank / 2 : r == MPI_UNDEFINED, "rank in evens %d", r);
        MPI_Group_union(g1, g2, &g3);
        MPI_Group_compare(g3, world, &res);
        MTEST_CHECK(errs, res == (size <= 2 ? MPI_IDENT : MPI_SIMILAR) || size == 1, "union compare %d", res);
        MPI_Group_free(&g3);
        MPI_Group_intersection(g1, g2, &g3);
        MTEST_CHECK(errs, g3 == MPI_GROUP_EMPTY, "intersection of evens and odds not empty");
        MPI_Group_difference(world, g2, &g3);
        MPI_Group_compare(g3, g1, &res);
        MTEST_CHECK(errs, res == MPI_IDENT, "world-odds != evens (%d)", res);
        MPI_Group_free(&g3);
        MTEST_CHECK(errs, g3 == MPI_GROUP_NULL, "free did not null the handle");
        /* translate evens ranks to world and reversed */
        {
            int in[64], out[64];
            for (i = 0; i < nev; i++) in[i] = i;
            MPI_Group_translate_ranks(g1, nev, in, world, out);
            for (i = 0; i < nev; i++)
                MTEST_CHECK(errs, out[i] == 2 * i, "translate %d -> %d", i, out[i]);
            MPI_Group_translate_ranks(g1, nev, in, rev, out);
            for (i = 0; i < nev; i++)
                MTEST_CHECK(errs, out[i] == size - 1 - 2 * i, "translate rev %d -> %d", i, out[i]);
            in[0] = 0;
            MPI_Group_translate_ranks(world, 1, in, g2, out);
            MTEST_CHECK(errs, out[0] == MPI_UNDEFINED, "translate to a group without it: %d", out[0]);
        }
        MPI_Group_free(&g1);
        MPI_Group_free(&g2);
    }
    /* range_excl: drop every other rank starting from 1 */
    if (size > 1) {
        int range[1][3] = {{1, size - 1, 2}};
        MPI_Group_range_excl(world, 1, range, &g1);
        MPI_Group_size(g1, &n);
        MTEST_CHECK(errs, n == (size + 1) / 2, "range_excl size %d", n);
        MPI_Group_free(&g1);
    }
    /* empty group */
    MPI_Group_size(MPI_GROUP_EMPTY, &n);
    MPI_Group_rank(MPI_GROUP_EMPTY, &r);
    MTEST_CHECK(errs, n == 0 && r == MPI_UNDEFINED, "empty group size %d rank %d", n, r);

    /* error cases */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    {
        int bad[2] = {0, size}, cls, rc;
        rc = MPI_Group_incl(world, 2, bad, &g1);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_RANK, "incl out of range: class %d", cls);
        bad[1] = 0;
        if (size > 0) {
            rc = MPI_Group_incl(world, 2, bad, &g1);
            MPI_Error_class(rc, &cls);
            MTEST_CHECK(errs, cls == MPI_ERR_RANK, "incl duplicate: class %d", cls);
        }
        rc = MPI_Group_size(MPI_GROUP_NULL, &n);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_GROUP, "size of MPI_GROUP_NULL: class %d", cls);
        rc = MPI_Group_free(&g3); /* already MPI_GROUP_NULL */
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_GROUP, "double free: class %d", cls);
        {
            int range[1][3] = {{0, 0, 0}};
            rc = MPI_Group_range_incl(world, 1, range, &g1);
            MPI_Error_class(rc, &cls);
            MTEST_CHECK(errs, cls == MPI_ERR_ARG, "stride 0: class %d", cls);
        }
        rc = MPI_Comm_group(MPI_COMM_NULL, &g1);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_COMM, "MPI_Comm_group(MPI_COMM_NULL): class %d", cls);
    }
    MPI_Group_free(&rev);
    MPI_Group_free(&world);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
