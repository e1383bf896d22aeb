/* dtypes.c: derived datatypes between ranks, every byte checked.
 * Rank 0 sends to every other rank: a strided column of a matrix
 * (vector), an array of structs with padding (struct, resized), and a
 * subarray of a 3-D array (subarray); the receivers check the data bytes
 * and that bytes outside the type map are untouched. Then collectives on
 * derived types (Bcast of a column, Allreduce SUM over a vector) and
 * MPI_Get_elements on a partial receive of a struct type. */
#include <string.h>
#include <stdlib.h>
#include "mtest.h"

#define ROWS 40
#define COLS 13
struct rec { char c; double d; int i[3]; }; /* padding after c and at the end */

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* 1. column 5 of a ROWS x COLS matrix of doubles. */
    MPI_Datatype col;
    MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    {
        MPI_Aint lb, ext;
        MPI_Type_get_extent(col, &lb, &ext);
        MTEST_CHECK(errs, lb == 0 && ext == (MPI_Aint)((ROWS - 1) * COLS + 1) * 8, "column extent %ld", (long)ext);
        double m[ROWS][COLS];
        for (int i = 0; i < ROWS; i++)
            for (int j = 0; j < COLS; j++)
                m[i][j] = rank == 0 ? i * 100 + j : -1;
        if (rank == 0) {
            for (int r = 1; r < size; r++)
                MPI_Send(&m[0][5], 1, col, r, 1, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&m[0][5], 1, col, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < ROWS; i++)
                for (int j = 0; j < COLS; j++) {
                    double want = j == 5 ? i * 100 + j : -1;
                    MTEST_CHECK(errs, m[i][j] == want, "m[%d][%d] = %g, want %g", i, j, m[i][j], want);
                }
            /* the same column received as contiguous doubles */
            double v[ROWS];
            MPI_Recv(v, ROWS, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < ROWS; i++)
                MTEST_CHECK(errs, v[i] == i * 100 + 5, "v[%d] = %g", i, v[i]);
        }
        if (rank == 0)
            for (int r = 1; r < size; r++)
                MPI_Send(&m[0][5], 1, col, r, 2, MPI_COMM_WORLD);
    }

    /* 2. struct with padding. */
    MPI_Datatype st0, st;
    {
        int bl[3] = {1, 1, 3};
        MPI_Aint d[3];
        struct rec probe;
        MPI_Aint base;
        MPI_Get_address(&probe, &base);
        MPI_Get_address(&probe.c, &d[0]);
        MPI_Get_address(&probe.d, &d[1]);
        MPI_Get_address(&probe.i, &d[2]);
        for (int k = 0; k < 3; k++)
            d[k] = MPI_Aint_diff(d[k], base);
        MPI_Datatype ts[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
        MPI_Type_create_struct(3, bl, d, ts, &st0);
        MPI_Type_create_resized(st0, 0, sizeof(struct rec), &st);
        MPI_Type_commit(&st);
        int sz;
        MPI_Aint lb, ext;
        MPI_Type_size(st, &sz);
        MPI_Type_get_extent(st0, &lb, &ext);
        MTEST_CHECK(errs, sz == 1 + 8 + 12, "struct size %d", sz);
        MTEST_CHECK(errs, ext == sizeof(struct rec), "struct extent %ld (padding)", (long)ext);
        enum { N = 7 };
        struct rec a[N];
        memset(a, rank == 0 ? 0x5a : 0xee, sizeof a);
        if (rank == 0) {
            for (int k = 0; k < N; k++) {
                a[k].c = 'a' + k;
                a[k].d = k * 1.5;
                a[k].i[0] = k, a[k].i[1] = -k, a[k].i[2] = k * k;
            }
            for (int r = 1; r < size; r++)
                MPI_Send(a, N, st, r, 3, MPI_COMM_WORLD);
        } else {
            MPI_Recv(a, N, st, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int k = 0; k < N; k++) {
                MTEST_CHECK(errs, a[k].c == 'a' + k && a[k].d == k * 1.5 && a[k].i[0] == k && a[k].i[1] == -k && a[k].i[2] == k * k, "rec %d", k);
                unsigned char *p = (unsigned char *)&a[k];
                for (size_t b = 1; b < 8; b++) /* padding after c stays untouched */
                    MTEST_CHECK(errs, p[b] == 0xee, "padding byte %zu of rec %d written", b, k);
            }
        }
    }

    /* 3. subarray 3x4x5 at (1,2,3) of a 6x7x8 int array, C order. */
    {
        int sizes[3] = {6, 7, 8}, sub[3] = {3, 4, 5}, starts[3] = {1, 2, 3};
        MPI_Datatype sa;
        MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &sa);
        MPI_Type_commit(&sa);
        static int arr[6][7][8];
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 7; j++)
                for (int k = 0; k < 8; k++)
                    arr[i][j][k] = rank == 0 ? i * 10000 + j * 100 + k : -7;
        if (rank == 0) {
            for (int r = 1; r < size; r++)
                MPI_Send(arr, 1, sa, r, 4, MPI_COMM_WORLD);
        } else {
            MPI_Recv(arr, 1, sa, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 7; j++)
                    for (int k = 0; k < 8; k++) {
                        int in = i >= 1 && i < 4 && j >= 2 && j < 6 && k >= 3 && k < 8;
                        int want = in ? i * 10000 + j * 100 + k : -7;
                        MTEST_CHECK(errs, arr[i][j][k] == want, "arr[%d][%d][%d] = %d, want %d", i, j, k, arr[i][j][k], want);
                    }
        }
        MPI_Type_free(&sa);
        MTEST_CHECK(errs, sa == MPI_DATATYPE_NULL, "Type_free did not reset the handle");
    }

    /* 4. Bcast of a column and Allreduce over a vector. */
    {
        double m[ROWS][COLS];
        for (int i = 0; i < ROWS; i++)
            for (int j = 0; j < COLS; j++)
                m[i][j] = rank == size - 1 ? i + j * 0.5 : -1;
        MPI_Bcast(&m[0][2], 1, col, size - 1, MPI_COMM_WORLD);
        for (int i = 0; i < ROWS; i++)
            for (int j = 0; j < COLS; j++) {
                double want = (j == 2 || rank == size - 1) ? i + j * 0.5 : -1;
                MTEST_CHECK(errs, m[i][j] == want, "bcast m[%d][%d] = %g", i, j, m[i][j]);
            }
        double in[ROWS][COLS], out[ROWS][COLS];
        for (int i = 0; i < ROWS; i++)
            for (int j = 0; j < COLS; j++)
                in[i][j] = (rank + 1) * (i + 1), out[i][j] = -3;
        MPI_Allreduce(&in[0][1], &out[0][1], 1, col, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < ROWS; i++)
            for (int j = 0; j < COLS; j++) {
                double want = j == 1 ? (double)size * (size + 1) / 2 * (i + 1) : -3;
                MTEST_CHECK(errs, out[i][j] == want, "allreduce out[%d][%d] = %g, want %g", i, j, out[i][j], want);
            }
    }

    /* 5. Get_elements on a partial receive: 2 structs + char + double. */
    if (size >= 2) {
        if (rank == 0) {
            char buf[64] = {0};
            MPI_Send(buf, 2 * 21 + 9, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
            MPI_Send(buf, 2 * 21 + 3, MPI_BYTE, 1, 6, MPI_COMM_WORLD);
        } else if (rank == 1) {
            struct rec a[4];
            MPI_Status s;
            int n, c;
            MPI_Recv(a, 4, st, 0, 5, MPI_COMM_WORLD, &s);
            MPI_Get_elements(&s, st, &n);
            MPI_Get_count(&s, st, &c);
            MTEST_CHECK(errs, n == 2 * 5 + 2, "Get_elements = %d, want 12", n);
            MTEST_CHECK(errs, c == MPI_UNDEFINED, "Get_count = %d, want MPI_UNDEFINED", c);
            MPI_Count nx;
            MPI_Get_elements_x(&s, st, &nx);
            MTEST_CHECK(errs, nx == 12, "Get_elements_x = %ld", (long)nx);
            MPI_Recv(a, 4, st, 0, 6, MPI_COMM_WORLD, &s);
            MPI_Get_elements(&s, st, &n);
            MTEST_CHECK(errs, n == MPI_UNDEFINED, "Get_elements inside a double = %d", n);
        }
    }

    /* 6. bad arguments give the right error classes. */
    {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Datatype t;
        int cls, rc;
        rc = MPI_Type_contiguous(-1, MPI_INT, &t);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_COUNT, "contiguous(-1): class %d", cls);
        rc = MPI_Type_vector(2, 1, 2, MPI_DATATYPE_NULL, &t);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_TYPE, "vector of NULL type: class %d", cls);
        int sz[2] = {4, 4}, sub[2] = {5, 1}, st2[2] = {0, 0};
        rc = MPI_Type_create_subarray(2, sz, sub, st2, MPI_ORDER_C, MPI_INT, &t);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_ARG, "subarray too big: class %d", cls);
        MPI_Datatype dint = MPI_INT;
        rc = MPI_Type_free(&dint);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_TYPE, "free(MPI_INT): class %d", cls);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }

    /* 7. envelope and contents. */
    {
        int ni, na, nd, comb;
        MPI_Type_get_envelope(col, &ni, &na, &nd, &comb);
        MTEST_CHECK(errs, comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "vector envelope %d %d %d %d", comb, ni, na, nd);
        int ints[3];
        MPI_Aint addrs[1];
        MPI_Datatype types[1];
        MPI_Type_get_contents(col, 3, 0, 1, ints, addrs, types);
        MTEST_CHECK(errs, ints[0] == ROWS && ints[1] == 1 && ints[2] == COLS && types[0] == MPI_DOUBLE, "vector contents");
        MPI_Type_get_envelope(st, &ni, &na, &nd, &comb);
        MTEST_CHECK(errs, comb == MPI_COMBINER_RESIZED && na == 2 && nd == 1, "resized envelope");
        MPI_Type_get_contents(st, 0, 2, 1, ints, (MPI_Aint[2]){0}, types);
        MPI_Type_get_envelope(types[0], &ni, &na, &nd, &comb);
        MTEST_CHECK(errs, comb == MPI_COMBINER_STRUCT && ni == 4 && na == 3 && nd == 3, "struct envelope %d %d %d %d", comb, ni, na, nd);
        MPI_Type_free(&types[0]);
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_Type_set_name(col, "column");
        MPI_Type_get_name(col, name, &len);
        MTEST_CHECK(errs, len == 6 && strcmp(name, "column") == 0, "name %s", name);
        MPI_Type_get_name(MPI_DOUBLE, name, &len);
        MTEST_CHECK(errs, strcmp(name, "MPI_DOUBLE") == 0, "name %s", name);
        MPI_Datatype m;
        MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m);
        MTEST_CHECK(errs, m == MPI_DOUBLE, "match_size real 8");
    }

    MPI_Type_free(&col);
    MPI_Type_free(&st);
    MPI_Type_free(&st0);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
