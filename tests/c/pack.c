/* pack.c: MPI_Pack/MPI_Unpack of derived types (including one built on
 * absolute addresses and used with MPI_BOTTOM), MPI_Pack_size, and
 * external32 (big-endian, standard sizes) with MPI_Pack_external. Rank 0
 * also sends packed data that rank 1 unpacks. */
#include <string.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* indexed type: blocks of 2,1,3 ints at 0, 5, 9 */
    int bl[3] = {2, 1, 3}, disp[3] = {0, 5, 9};
    MPI_Datatype ix;
    MPI_Type_indexed(3, bl, disp, MPI_INT, &ix);
    MPI_Type_commit(&ix);
    int src[12], dst[12];
    for (int i = 0; i < 12; i++)
        src[i] = i * 3 + 1, dst[i] = -1;
    int psize, pos = 0;
    MPI_Pack_size(2, ix, MPI_COMM_WORLD, &psize);
    MTEST_CHECK(errs, psize == 2 * 24, "Pack_size %d", psize);
    char buf[256];
    MPI_Pack(src, 1, ix, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    MPI_Pack(src, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    MTEST_CHECK(errs, pos == 24 + 12, "position %d", pos);
    int want[6] = {1, 4, 16, 28, 31, 34};
    for (int i = 0; i < 6; i++)
        MTEST_CHECK(errs, ((int *)buf)[i] == want[i], "packed[%d] = %d", i, ((int *)buf)[i]);
    int end = pos;
    pos = 0;
    MPI_Unpack(buf, end, &pos, dst, 1, ix, MPI_COMM_WORLD);
    for (int i = 0; i < 12; i++) {
        int in = i < 2 || i == 5 || (i >= 9 && i < 12);
        MTEST_CHECK(errs, dst[i] == (in ? src[i] : -1), "dst[%d] = %d", i, dst[i]);
    }
    /* Unpacking past the end is MPI_ERR_TRUNCATE. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Unpack(buf, end, &pos, dst, 2, ix, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_TRUNCATE, "unpack past end: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* struct on absolute addresses with MPI_BOTTOM */
    {
        static double x = 2.5;
        static int y[2] = {7, 8};
        MPI_Aint a[2];
        MPI_Get_address(&x, &a[0]);
        MPI_Get_address(y, &a[1]);
        int sbl[2] = {1, 2};
        MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_INT}, abs;
        MPI_Type_create_struct(2, sbl, a, ts, &abs);
        MPI_Type_commit(&abs);
        char pb[32];
        int p = 0;
        MPI_Pack(MPI_BOTTOM, 1, abs, pb, sizeof pb, &p, MPI_COMM_WORLD);
        MTEST_CHECK(errs, p == 16, "bottom pack position %d", p);
        double dx;
        int iy[2];
        memcpy(&dx, pb, 8);
        memcpy(iy, pb + 8, 8);
        MTEST_CHECK(errs, dx == 2.5 && iy[0] == 7 && iy[1] == 8, "bottom pack data");
        if (size >= 2) {
            if (rank == 0) {
                MPI_Send(MPI_BOTTOM, 1, abs, 1, 9, MPI_COMM_WORLD);
            } else if (rank == 1) {
                x = 0, y[0] = y[1] = 0;
                MPI_Recv(MPI_BOTTOM, 1, abs, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MTEST_CHECK(errs, x == 2.5 && y[0] == 7 && y[1] == 8, "MPI_BOTTOM receive");
            }
        }
        MPI_Type_free(&abs);
    }

    /* external32 */
    {
        long l[2] = {-2, 300};
        double d = 1.5;
        int i = 0x01020304;
        MPI_Aint esize;
        MPI_Pack_external_size("external32", 2, MPI_LONG, &esize);
        MTEST_CHECK(errs, esize == 8, "external32 size of 2 MPI_LONG = %ld", (long)esize);
        unsigned char eb[64];
        MPI_Aint ep = 0;
        MPI_Pack_external("external32", l, 2, MPI_LONG, eb, sizeof eb, &ep);
        MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, eb, sizeof eb, &ep);
        MPI_Pack_external("external32", &i, 1, MPI_INT, eb, sizeof eb, &ep);
        unsigned char wantb[] = {0xff, 0xff, 0xff, 0xfe, 0, 0, 1, 0x2c, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4};
        MTEST_CHECK(errs, ep == sizeof wantb, "external32 position %ld", (long)ep);
        for (size_t k = 0; k < sizeof wantb; k++)
            MTEST_CHECK(errs, eb[k] == wantb[k], "external32 byte %zu = %02x, want %02x", k, eb[k], wantb[k]);
        long l2[2];
        double d2;
        int i2;
        ep = 0;
        MPI_Unpack_external("external32", eb, sizeof wantb, &ep, l2, 2, MPI_LONG);
        MPI_Unpack_external("external32", eb, sizeof wantb, &ep, &d2, 1, MPI_DOUBLE);
        MPI_Unpack_external("external32", eb, sizeof wantb, &ep, &i2, 1, MPI_INT);
        MTEST_CHECK(errs, l2[0] == -2 && l2[1] == 300 && d2 == 1.5 && i2 == i, "external32 round trip");
        /* a vector through external32 */
        MPI_Datatype v;
        MPI_Type_vector(3, 1, 2, MPI_SHORT, &v);
        MPI_Type_commit(&v);
        short s[5] = {0x0102, 9, 0x0304, 9, 0x0506};
        ep = 0;
        MPI_Pack_external("external32", s, 1, v, eb, sizeof eb, &ep);
        MTEST_CHECK(errs, ep == 6 && eb[0] == 1 && eb[1] == 2 && eb[4] == 5 && eb[5] == 6, "external32 vector");
        MPI_Type_free(&v);
    }

    /* packed data between ranks */
    if (size >= 2) {
        if (rank == 0) {
            int p2 = 0;
            MPI_Pack(src, 1, ix, buf, sizeof buf, &p2, MPI_COMM_WORLD);
            MPI_Send(buf, p2, MPI_PACKED, 1, 8, MPI_COMM_WORLD);
        } else if (rank == 1) {
            int got[12];
            for (int k = 0; k < 12; k++)
                got[k] = -5;
            MPI_Recv(got, 1, ix, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, got[0] == 1 && got[1] == 4 && got[2] == -5 && got[5] == 16 && got[11] == 34, "packed -> indexed");
        }
    }
    MPI_Type_free(&ix);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
