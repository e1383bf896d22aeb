/* bcast_typemap: MPI_Bcast where processes describe the same data with
 * different datatypes of one type signature, as ScaLAPACK's BLACS does (a
 * strided column of a matrix at the root, a contiguous buffer or another
 * stride elsewhere). The data must travel by type signature, not by the
 * memory span of each process's datatype; before the fix the root sent
 * its span (gaps included) and the receivers failed with MPI_ERR_TRUNCATE
 * or got the wrong values. */
#include "mtest.h"
#include <stdlib.h>

#define N 7

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    for (int root = 0; root < size; root++) {
        for (int variant = 0; variant < 3; variant++) {
            /* This process's stride: the root uses 6 (or 3), others
             * contiguous or stride 2, by rank and variant. */
            int stride;
            if (rank == root)
                stride = variant == 2 ? 3 : 6;
            else
                stride = (rank + variant) % 2 ? 2 : 1;
            double *buf = calloc((size_t)N * stride, sizeof(double));
            for (int i = 0; i < N * stride; i++)
                buf[i] = -1;
            if (rank == root)
                for (int i = 0; i < N; i++)
                    buf[i * stride] = 100 * root + i;
            MPI_Datatype t;
            if (stride == 1) {
                t = MPI_DOUBLE;
            } else {
                MPI_Type_vector(N, 1, stride, MPI_DOUBLE, &t);
                MPI_Type_commit(&t);
            }
            int cnt = stride == 1 ? N : 1;
            int rc = MPI_Bcast(buf, cnt, t, root, MPI_COMM_WORLD);
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "root %d variant %d: MPI_Bcast returned %d", root,
                        variant, rc);
            for (int i = 0; i < N * stride; i++) {
                double want = i % stride == 0 ? 100 * root + i / stride : -1;
                MTEST_CHECK(errs, buf[i] == want, "root %d variant %d stride %d: buf[%d] = %g, want %g",
                            root, variant, stride, i, buf[i], want);
            }
            if (t != MPI_DOUBLE)
                MPI_Type_free(&t);
            free(buf);
        }
    }
    /* Same with a contiguous derived type of 2 doubles at the root and
     * MPI_DOUBLE elsewhere (count differs, signature equal). */
    {
        double b[4] = {-1, -1, -1, -1};
        MPI_Datatype pair;
        MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
        MPI_Type_commit(&pair);
        if (rank == 0) {
            b[0] = 1, b[1] = 2, b[2] = 3, b[3] = 4;
            MPI_Bcast(b, 2, pair, 0, MPI_COMM_WORLD);
        } else {
            MPI_Bcast(b, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        }
        for (int i = 0; i < 4; i++)
            MTEST_CHECK(errs, b[i] == i + 1, "pair bcast: b[%d] = %g", i, b[i]);
        MPI_Type_free(&pair);
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
