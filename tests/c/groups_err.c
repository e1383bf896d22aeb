/* groups_err: the error cases of the group API under MPI_ERRORS_RETURN
 * (classes as MPICH 4.0 reports them; each message names the function and
 * the bad argument), and the corner cases around them: empty results,
 * MPI_PROC_NULL in translate_ranks, negative strides, several ranges. */
#include "mtest_err.h"

int main(int argc, char **argv)
{
    int errs = 0, rank, size, n, r, res, i;
    MPI_Group world, g, g2, freed;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    /* A freed handle stays invalid. */
    MPI_Group_incl(world, 1, &rank, &freed);
    g = freed;
    MPI_Group_free(&g);

    /* Group_incl / Group_excl: bad ranks are MPI_ERR_RANK. */
    {
        int bad[3] = {0, size, 0};
        g = MPI_GROUP_NULL;
        EXPECT_ERR(errs, MPI_Group_incl(world, 2, bad, &g), MPI_ERR_RANK, "MPI_Group_incl", "ranks");
        MTEST_CHECK(errs, g == MPI_GROUP_NULL, "failed incl wrote newgroup");
        bad[1] = -1;
        EXPECT_ERR(errs, MPI_Group_incl(world, 2, bad, &g), MPI_ERR_RANK, "MPI_Group_incl", "ranks");
        bad[1] = 0;
        EXPECT_ERR(errs, MPI_Group_incl(world, 2, bad, &g), MPI_ERR_RANK, "MPI_Group_incl", "ranks");
        bad[1] = size;
        EXPECT_ERR(errs, MPI_Group_excl(world, 2, bad, &g), MPI_ERR_RANK, "MPI_Group_excl", "ranks");
        bad[1] = 0;
        EXPECT_ERR(errs, MPI_Group_excl(world, 2, bad, &g), MPI_ERR_RANK, "MPI_Group_excl", "ranks");
        EXPECT_ERR(errs, MPI_Group_incl(world, -1, bad, &g), MPI_ERR_ARG, "MPI_Group_incl", "n");
        EXPECT_ERR(errs, MPI_Group_excl(world, -2, bad, &g), MPI_ERR_ARG, "MPI_Group_excl", "n");
        EXPECT_ERR(errs, MPI_Group_incl(world, 1, NULL, &g), MPI_ERR_ARG, "MPI_Group_incl", "ranks");
        EXPECT_ERR(errs, MPI_Group_incl(world, 1, bad, NULL), MPI_ERR_ARG, "MPI_Group_incl", "newgroup");
        /* a rank that is valid in world but not in a smaller group */
        EXPECT_OK(errs, MPI_Group_incl(world, 1, bad, &g));
        bad[0] = 1;
        EXPECT_ERR(errs, MPI_Group_incl(g, 1, bad, &g2), MPI_ERR_RANK, "MPI_Group_incl", "ranks");
        MPI_Group_free(&g);
    }

    /* Range triplets: every malformed range is MPI_ERR_ARG. */
    {
        int rg[2][3];
        rg[0][0] = 0; rg[0][1] = size - 1; rg[0][2] = 0;
        EXPECT_ERR(errs, MPI_Group_range_incl(world, 1, rg, &g), MPI_ERR_ARG, "MPI_Group_range_incl", "ranges");
        EXPECT_ERR(errs, MPI_Group_range_excl(world, 1, rg, &g), MPI_ERR_ARG, "MPI_Group_range_excl", "ranges");
        rg[0][0] = size; rg[0][1] = size; rg[0][2] = 1; /* first out of range */
        EXPECT_ERR(errs, MPI_Group_range_incl(world, 1, rg, &g), MPI_ERR_ARG, "MPI_Group_range_incl", "ranges");
        rg[0][0] = 0; rg[0][1] = size; rg[0][2] = 1; /* last out of range */
        EXPECT_ERR(errs, MPI_Group_range_incl(world, 1, rg, &g), MPI_ERR_ARG, "MPI_Group_range_incl", "ranges");
        rg[0][0] = -1; rg[0][1] = 0; rg[0][2] = 1;
        EXPECT_ERR(errs, MPI_Group_range_excl(world, 1, rg, &g), MPI_ERR_ARG, "MPI_Group_range_excl", "ranges");
        if (size > 1) {
            rg[0][0] = size - 1; rg[0][1] = 0; rg[0][2] = 1; /* wrong direction */
            EXPECT_ERR(errs, MPI_Group_range_incl(world, 1, rg, &g), MPI_ERR_ARG, "MPI_Group_range_incl", "ranges");
            rg[0][0] = 0; rg[0][1] = size - 1; rg[0][2] = -1;
            EXPECT_ERR(errs, MPI_Group_range_excl(world, 1, rg, &g), MPI_ERR_ARG, "MPI_Group_range_excl", "ranges");
        }
        /* overlapping triplets name a rank twice */
        rg[0][0] = 0; rg[0][1] = size - 1; rg[0][2] = 1;
        rg[1][0] = size - 1; rg[1][1] = size - 1; rg[1][2] = 1;
        EXPECT_ERR(errs, MPI_Group_range_incl(world, 2, rg, &g), MPI_ERR_ARG, "MPI_Group_range_incl", "ranges");
        EXPECT_ERR(errs, MPI_Group_range_excl(world, 2, rg, &g), MPI_ERR_ARG, "MPI_Group_range_excl", "ranges");
        EXPECT_ERR(errs, MPI_Group_range_incl(world, -1, rg, &g), MPI_ERR_ARG, "MPI_Group_range_incl", "n");

        /* valid: a negative stride with a step that skips the last rank, then
         * a second triplet; range_excl of everything gives MPI_GROUP_EMPTY */
        rg[0][0] = size - 1; rg[0][1] = 0; rg[0][2] = -2;
        rg[1][0] = size - 2; rg[1][1] = size - 2; rg[1][2] = 5;
        EXPECT_OK(errs, MPI_Group_range_incl(world, size > 1 ? 2 : 1, rg, &g));
        MPI_Group_size(g, &n);
        MTEST_CHECK(errs, n == (size + 1) / 2 + (size > 1), "range_incl size %d", n);
        MPI_Group_rank(g, &r);
        if (rank == size - 2)
            MTEST_CHECK(errs, r == n - 1 || (size - 1 - rank) % 2 == 0, "second triplet rank %d", r);
        else if ((size - 1 - rank) % 2 == 0)
            MTEST_CHECK(errs, r == (size - 1 - rank) / 2, "first triplet rank %d", r);
        else
            MTEST_CHECK(errs, r == MPI_UNDEFINED, "rank %d not included but got %d", rank, r);
        MPI_Group_free(&g);
        rg[0][0] = 0; rg[0][1] = size - 1; rg[0][2] = 1;
        EXPECT_OK(errs, MPI_Group_range_excl(world, 1, rg, &g));
        MTEST_CHECK(errs, g == MPI_GROUP_EMPTY, "range_excl of all is not MPI_GROUP_EMPTY");
    }

    /* Empty results. */
    EXPECT_OK(errs, MPI_Group_incl(world, 0, NULL, &g));
    MTEST_CHECK(errs, g == MPI_GROUP_EMPTY, "incl of none is not MPI_GROUP_EMPTY");
    EXPECT_OK(errs, MPI_Group_excl(world, 0, NULL, &g));
    MPI_Group_compare(g, world, &res);
    MTEST_CHECK(errs, res == MPI_IDENT, "excl of none: compare %d", res);
    MPI_Group_free(&g);
    EXPECT_OK(errs, MPI_Group_difference(world, world, &g));
    MTEST_CHECK(errs, g == MPI_GROUP_EMPTY, "world - world not empty");
    EXPECT_OK(errs, MPI_Group_union(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &g));
    MTEST_CHECK(errs, g == MPI_GROUP_EMPTY, "empty union empty not empty");
    MPI_Group_compare(MPI_GROUP_EMPTY, world, &res);
    MTEST_CHECK(errs, res == MPI_UNEQUAL, "empty vs world %d", res);

    /* Union keeps group1's order then adds group2's new members; the
     * intersection follows group1's order. */
    if (size >= 3) {
        int a[2] = {2, 0}, b[2] = {1, 2}, in[3] = {0, 1, 2}, out[3];
        MPI_Group ga, gb, gu, gi;
        MPI_Group_incl(world, 2, a, &ga);
        MPI_Group_incl(world, 2, b, &gb);
        MPI_Group_union(ga, gb, &gu);
        MPI_Group_translate_ranks(gu, 3, in, world, out);
        MTEST_CHECK(errs, out[0] == 2 && out[1] == 0 && out[2] == 1, "union order %d %d %d", out[0], out[1], out[2]);
        MPI_Group_intersection(gb, ga, &gi);
        MPI_Group_size(gi, &n);
        MPI_Group_translate_ranks(gi, 1, in, world, out);
        MTEST_CHECK(errs, n == 1 && out[0] == 2, "intersection size %d first %d", n, out[0]);
        MPI_Group_compare(ga, gb, &res);
        MTEST_CHECK(errs, res == MPI_UNEQUAL, "compare of different groups %d", res);
        MPI_Group_free(&ga);
        MPI_Group_free(&gb);
        MPI_Group_free(&gu);
        MPI_Group_free(&gi);
    }

    /* translate_ranks: MPI_PROC_NULL maps to itself, bad ranks fail. */
    {
        int in[3] = {MPI_PROC_NULL, 0, size}, out[3] = {-7, -7, -7};
        EXPECT_OK(errs, MPI_Group_translate_ranks(world, 2, in, world, out));
        MTEST_CHECK(errs, out[0] == MPI_PROC_NULL && out[1] == 0, "translate %d %d", out[0], out[1]);
        EXPECT_ERR(errs, MPI_Group_translate_ranks(world, 3, in, world, out), MPI_ERR_RANK,
                   "MPI_Group_translate_ranks", "ranks1");
        in[2] = -5;
        EXPECT_ERR(errs, MPI_Group_translate_ranks(world, 3, in, world, out), MPI_ERR_RANK,
                   "MPI_Group_translate_ranks", "ranks1");
        EXPECT_OK(errs, MPI_Group_translate_ranks(world, 2, in, MPI_GROUP_EMPTY, out));
        MTEST_CHECK(errs, out[1] == MPI_UNDEFINED, "translate into empty %d", out[1]);
        EXPECT_ERR(errs, MPI_Group_translate_ranks(world, 1, in, MPI_GROUP_NULL, out), MPI_ERR_GROUP,
                   "MPI_Group_translate_ranks", "group2");
        EXPECT_ERR(errs, MPI_Group_translate_ranks(MPI_GROUP_NULL, 1, in, world, out), MPI_ERR_GROUP,
                   "MPI_Group_translate_ranks", "group1");
        EXPECT_ERR(errs, MPI_Group_translate_ranks(world, 1, in, world, NULL), MPI_ERR_ARG,
                   "MPI_Group_translate_ranks", "ranks2");
    }

    /* Invalid group handles: MPI_GROUP_NULL, a freed handle, a handle of
     * another kind. */
    {
        MPI_Group bad[3];
        bad[0] = MPI_GROUP_NULL;
        bad[1] = freed;
        bad[2] = (MPI_Group)MPI_COMM_WORLD;
        for (i = 0; i < 3; i++) {
            int one = 0;
            EXPECT_ERR(errs, MPI_Group_size(bad[i], &n), MPI_ERR_GROUP, "MPI_Group_size", "group");
            EXPECT_ERR(errs, MPI_Group_rank(bad[i], &r), MPI_ERR_GROUP, "MPI_Group_rank", "group");
            EXPECT_ERR(errs, MPI_Group_incl(bad[i], 1, &one, &g), MPI_ERR_GROUP, "MPI_Group_incl", "group");
            EXPECT_ERR(errs, MPI_Group_excl(bad[i], 1, &one, &g), MPI_ERR_GROUP, "MPI_Group_excl", "group");
            EXPECT_ERR(errs, MPI_Group_union(world, bad[i], &g), MPI_ERR_GROUP, "MPI_Group_union", "group2");
            EXPECT_ERR(errs, MPI_Group_union(bad[i], world, &g), MPI_ERR_GROUP, "MPI_Group_union", "group1");
            EXPECT_ERR(errs, MPI_Group_intersection(bad[i], world, &g), MPI_ERR_GROUP,
                       "MPI_Group_intersection", "group1");
            EXPECT_ERR(errs, MPI_Group_difference(world, bad[i], &g), MPI_ERR_GROUP,
                       "MPI_Group_difference", "group2");
            EXPECT_ERR(errs, MPI_Group_compare(bad[i], world, &res), MPI_ERR_GROUP, "MPI_Group_compare", "group1");
            EXPECT_ERR(errs, MPI_Group_compare(world, bad[i], &res), MPI_ERR_GROUP, "MPI_Group_compare", "group2");
            g = bad[i];
            EXPECT_ERR(errs, MPI_Group_free(&g), MPI_ERR_GROUP, "MPI_Group_free", "group");
            EXPECT_ERR(errs, MPI_Comm_create(MPI_COMM_WORLD, bad[i], &g2), MPI_ERR_GROUP, "MPI_Comm_create", "group");
        }
        EXPECT_ERR(errs, MPI_Group_size(world, NULL), MPI_ERR_ARG, "MPI_Group_size", "size");
        EXPECT_ERR(errs, MPI_Group_compare(world, world, NULL), MPI_ERR_ARG, "MPI_Group_compare", "result");
        EXPECT_ERR(errs, MPI_Group_union(world, world, NULL), MPI_ERR_ARG, "MPI_Group_union", "newgroup");
        EXPECT_ERR(errs, MPI_Group_free(NULL), MPI_ERR_ARG, "MPI_Group_free", "group");
        EXPECT_ERR(errs, MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM, "MPI_Comm_group", "comm");
        EXPECT_ERR(errs, MPI_Comm_group(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_group", "group");
    }

    /* Freeing MPI_GROUP_EMPTY is allowed; the predefined group stays usable. */
    g = MPI_GROUP_EMPTY;
    EXPECT_OK(errs, MPI_Group_free(&g));
    MTEST_CHECK(errs, g == MPI_GROUP_NULL, "freeing MPI_GROUP_EMPTY did not null the handle");
    EXPECT_OK(errs, MPI_Group_size(MPI_GROUP_EMPTY, &n));
    MTEST_CHECK(errs, n == 0, "MPI_GROUP_EMPTY size %d after free", n);

    MPI_Group_free(&world);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
