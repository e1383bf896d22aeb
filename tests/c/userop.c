/* userop.c: user reduction operations. A commutative user sum, a
 * non-commutative 2x2 matrix product (the result must be the product in
 * rank order), an op on a derived type (vector), MPI_Op_commutative,
 * MPI_Reduce_local with predefined and user ops, and MPI_ERR_OP for a
 * predefined op on a type it is not defined on. */
#include <string.h>
#include "mtest.h"

static void isum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* inout = in x inout for 2x2 integer matrices (mod 1000003). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    long *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        long c[4] = {(a[0] * b[0] + a[1] * b[2]) % 1000003, (a[0] * b[1] + a[1] * b[3]) % 1000003,
                     (a[2] * b[0] + a[3] * b[2]) % 1000003, (a[2] * b[1] + a[3] * b[3]) % 1000003};
        memcpy(b, c, sizeof c);
    }
}

/* max over the data of a vector type: walks the type's stride itself */
static void vecmax(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    for (int k = 0; k < *len; k++)
        for (int j = 0; j < 3; j++) { /* vector(3, 1, 2, MPI_INT) */
            int *a = (int *)((char *)in + k * ext) + 2 * j, *b = (int *)((char *)inout + k * ext) + 2 * j;
            if (*a > *b)
                *b = *a;
        }
}

static void mat_of(int r, long m[4])
{
    m[0] = r + 1, m[1] = 2 * r + 1, m[2] = r * r, m[3] = 1;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Op sum, mul, vmax;
    MPI_Op_create(isum, 1, &sum);
    MPI_Op_create(matmul, 0, &mul);
    MPI_Op_create(vecmax, 1, &vmax);
    int c;
    MPI_Op_commutative(sum, &c);
    MTEST_CHECK(errs, c == 1, "sum commutative %d", c);
    MPI_Op_commutative(mul, &c);
    MTEST_CHECK(errs, c == 0, "matmul commutative %d", c);
    MPI_Op_commutative(MPI_SUM, &c);
    MTEST_CHECK(errs, c == 1, "MPI_SUM commutative %d", c);

    int v[5] = {rank, 1, 2, 3, rank * rank}, r[5];
    MPI_Allreduce(v, r, 5, MPI_INT, sum, MPI_COMM_WORLD);
    MTEST_CHECK(errs, r[0] == size * (size - 1) / 2 && r[1] == size && r[3] == 3 * size, "user sum %d %d", r[0], r[1]);

    /* matrix product in rank order, at every root */
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_LONG, &mat);
    MPI_Type_commit(&mat);
    long want[4] = {1, 0, 0, 1};
    for (int k = 0; k < size; k++) {
        long m[4], t[4];
        mat_of(k, m);
        memcpy(t, want, sizeof t);
        int one = 1;
        matmul(t, m, &one, NULL); /* m = want x m */
        memcpy(want, m, sizeof m);
    }
    for (int root = 0; root < size; root++) {
        long m[8], out[8] = {0};
        mat_of(rank, m);
        mat_of(rank, m + 4);
        MPI_Reduce(m, out, 2, mat, mul, root, MPI_COMM_WORLD);
        if (rank == root)
            for (int k = 0; k < 8; k++)
                MTEST_CHECK(errs, out[k] == want[k % 4], "matmul root %d: out[%d] = %ld, want %ld", root, k, out[k], want[k % 4]);
    }
    {
        long m[4], out[4];
        mat_of(rank, m);
        MPI_Allreduce(m, out, 1, mat, mul, MPI_COMM_WORLD);
        for (int k = 0; k < 4; k++)
            MTEST_CHECK(errs, out[k] == want[k], "allreduce matmul out[%d] = %ld", k, out[k]);
    }

    /* user op on a vector type, through Allreduce */
    {
        MPI_Datatype vec;
        MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int in[5] = {rank, -1, 10 - rank, -1, rank * 2}, out[5] = {-9, -9, -9, -9, -9};
        MPI_Allreduce(in, out, 1, vec, vmax, MPI_COMM_WORLD);
        MTEST_CHECK(errs, out[0] == size - 1 && out[2] == 10 && out[4] == 2 * (size - 1) && out[1] == -9 && out[3] == -9,
                    "vector user op: %d %d %d %d %d", out[0], out[1], out[2], out[3], out[4]);
        /* predefined op on the same vector type */
        int s2[5] = {-9, -9, -9, -9, -9};
        MPI_Allreduce(in, s2, 1, vec, MPI_SUM, MPI_COMM_WORLD);
        MTEST_CHECK(errs, s2[0] == size * (size - 1) / 2 && s2[1] == -9 && s2[2] == 10 * size - size * (size - 1) / 2, "vector MPI_SUM");
        MPI_Type_free(&vec);
    }

    /* Reduce_local */
    {
        int a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
        MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM);
        MTEST_CHECK(errs, b[0] == 11 && b[2] == 33, "reduce_local sum");
        MPI_Reduce_local(a, b, 3, MPI_INT, sum);
        MTEST_CHECK(errs, b[0] == 12 && b[2] == 36, "reduce_local user sum");
        long m1[4], m2[4];
        mat_of(1, m1);
        mat_of(2, m2);
        MPI_Reduce_local(m1, m2, 1, mat, mul);
        MTEST_CHECK(errs, m2[0] == 2 * 3 + 3 * 4 && m2[1] == 2 * 5 + 3, "reduce_local matmul order");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        float f[2] = {1, 2}, g[2] = {3, 4};
        int cls, rc = MPI_Reduce_local(f, g, 2, MPI_FLOAT, MPI_BAND);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_OP, "BAND on float: class %d", cls);
        MPI_Op bad = MPI_OP_NULL;
        rc = MPI_Op_free(&bad);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_OP, "free MPI_OP_NULL: class %d", cls);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }

    MPI_Type_free(&mat);
    MPI_Op_free(&sum);
    MPI_Op_free(&mul);
    MPI_Op_free(&vmax);
    MTEST_CHECK(errs, sum == MPI_OP_NULL, "Op_free did not reset the handle");
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
