/* topo_mpich: process topology results that must be exactly MPICH 4.0's.
 * MPI_Dims_create against a table MPICH produced (dims_mpich.h, made by
 * gen/dims_mpich.c: every size up to 240 in 1 to 5 dimensions, large
 * sizes in up to 8, random fixed entries), its corner cases, and
 * MPI_Cart_sub dropping every dimension (only the grid's rank 0 gets a
 * zero-dimensional communicator congruent to MPI_COMM_SELF). Any number
 * of processes. */
#include "mtest_err.h"
#include "dims_mpich.h"

static void check_zero_dim(int *errs, MPI_Comm c)
{
    int n = -1, nd = -1, r = -1, cmp = -1;
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Comm_size(c, &n);
    MPI_Cartdim_get(c, &nd);
    MPI_Comm_compare(c, MPI_COMM_SELF, &cmp);
    MTEST_CHECK(*errs, n == 1 && nd == 0 && cmp == MPI_CONGRUENT, "0-d grid size %d ndims %d compare %d", n, nd,
                cmp);
    EXPECT_OK(*errs, MPI_Cart_get(c, 0, NULL, NULL, NULL));
    EXPECT_OK(*errs, MPI_Cart_rank(c, NULL, &r));
    MTEST_CHECK(*errs, r == 0, "0-d Cart_rank %d", r);
    EXPECT_OK(*errs, MPI_Cart_coords(c, 0, 0, NULL));
    EXPECT_OK(*errs, MPI_Cart_sub(c, NULL, &sub));
    MTEST_CHECK(*errs, sub != MPI_COMM_NULL, "Cart_sub of a 0-d grid gave MPI_COMM_NULL");
    if (sub != MPI_COMM_NULL) {
        MPI_Cartdim_get(sub, &nd);
        MPI_Comm_size(sub, &n);
        MTEST_CHECK(*errs, nd == 0 && n == 1, "Cart_sub of a 0-d grid: ndims %d size %d", nd, n);
        MPI_Comm_free(&sub);
    }
    EXPECT_OK(*errs, MPI_Barrier(c));
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size, i, j, d[8], nrows = sizeof(dims_mpich) / sizeof(dims_mpich[0]);
    int dims[3], periods[3] = {1, 0, 1}, remain[3] = {0, 0, 0};
    MPI_Comm cart, sub;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* MPI_Dims_create as MPICH: 72 -> 9x8, 240 -> 16x15, 360 -> 10x6x6. */
    for (i = 0; i < nrows; i++) {
        int bad = 0;
        for (j = 0; j < 8; j++)
            d[j] = dims_mpich[i].in[j];
        EXPECT_OK(errs, MPI_Dims_create(dims_mpich[i].n, dims_mpich[i].nd, d));
        for (j = 0; j < dims_mpich[i].nd; j++)
            bad |= d[j] != dims_mpich[i].out[j];
        if (bad && rank == 0) {
            fprintf(stderr, "MPI_Dims_create(%d, %d):", dims_mpich[i].n, dims_mpich[i].nd);
            for (j = 0; j < dims_mpich[i].nd; j++)
                fprintf(stderr, " %d(%d)", d[j], dims_mpich[i].out[j]);
            fprintf(stderr, " (MPICH's in parentheses)\n");
        }
        errs += bad;
    }
    MTEST_CHECK(errs, nrows > 1400, "table of %d rows", nrows);

    /* Corner cases. All entries fixed: MPICH only asks that their product
     * divide nnodes, and leaves them. */
    d[0] = 2; d[1] = 3;
    EXPECT_OK(errs, MPI_Dims_create(12, 2, d));
    MTEST_CHECK(errs, d[0] == 2 && d[1] == 3, "all fixed: %d %d", d[0], d[1]);
    d[0] = 5;
    EXPECT_OK(errs, MPI_Dims_create(5, 0, d));
    MTEST_CHECK(errs, d[0] == 5, "ndims 0 wrote dims");
    EXPECT_OK(errs, MPI_Dims_create(1, 0, NULL));
    d[0] = 0; d[1] = 0; d[2] = 7;
    EXPECT_ERR(errs, MPI_Dims_create(12, 3, d), MPI_ERR_DIMS, "MPI_Dims_create", "dims");
    MTEST_CHECK(errs, d[0] == 0 && d[1] == 0 && d[2] == 7, "failed call changed dims: %d %d %d", d[0], d[1], d[2]);
    d[0] = 0; d[1] = 4; d[2] = -1;
    EXPECT_ERR(errs, MPI_Dims_create(12, 3, d), MPI_ERR_DIMS, "MPI_Dims_create", "dims");
    d[0] = 0; d[1] = 0;
    EXPECT_ERR(errs, MPI_Dims_create(-1, 2, d), MPI_ERR_ARG, "MPI_Dims_create", "nnodes");
    EXPECT_ERR(errs, MPI_Dims_create(4, -1, d), MPI_ERR_ARG, "MPI_Dims_create", "ndims");
    EXPECT_ERR(errs, MPI_Dims_create(4, 2, NULL), MPI_ERR_ARG, "MPI_Dims_create", "dims");
    /* Many dimensions, mostly ones. */
    {
        int many[20] = {0};
        EXPECT_OK(errs, MPI_Dims_create(4, 20, many));
        MTEST_CHECK(errs, many[0] == 2 && many[1] == 2 && many[2] == 1 && many[19] == 1, "4 in 20 dims: %d %d %d",
                    many[0], many[1], many[2]);
    }

    /* MPI_Cart_sub dropping every dimension of a 1-, 2- and 3-d grid. */
    for (i = 1; i <= 3; i++) {
        int k;
        for (k = 0; k < 3; k++)
            dims[k] = 0;
        MPI_Dims_create(size, i, dims);
        EXPECT_OK(errs, MPI_Cart_create(MPI_COMM_WORLD, i, dims, periods, 0, &cart));
        EXPECT_OK(errs, MPI_Cart_sub(cart, remain, &sub));
        MTEST_CHECK(errs, (sub != MPI_COMM_NULL) == (rank == 0), "%d-d grid, nothing kept: rank %d got %s", i, rank,
                    sub == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
        if (sub != MPI_COMM_NULL) {
            MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
            check_zero_dim(&errs, sub);
            MPI_Comm_free(&sub);
        }
        MPI_Comm_free(&cart);
    }
    /* A zero-dimensional grid from MPI_Cart_create behaves the same. */
    EXPECT_OK(errs, MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
    MTEST_CHECK(errs, (cart != MPI_COMM_NULL) == (rank == 0), "0-d Cart_create on rank %d", rank);
    if (cart != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
        check_zero_dim(&errs, cart);
        MPI_Comm_free(&cart);
    }

    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
