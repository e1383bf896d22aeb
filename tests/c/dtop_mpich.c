/* dtop_mpich: datatype and reduction behaviours that follow MPICH 4.0.
 * - MPI_Type_get_name of MPI_C_FLOAT_COMPLEX (= MPI_C_COMPLEX) is
 *   "MPI_C_COMPLEX"; MPI_INTEGER16 is MPI_DATATYPE_NULL as in MPICH's header.
 * - A struct of only an MPI_LB marker at d has lb d and upper bound 0
 *   (extent -d); only an MPI_UB at d: lb 0, extent d (negative ones too).
 * - MPI_LAND/MPI_LOR/MPI_LXOR on floating types (an MPICH extension):
 *   nonzero is true, the result 1.0 or 0.0; on complex types MPI_ERR_OP.
 * - count 0 with MPI_DATATYPE_NULL in point-to-point is accepted (every
 *   send mode, receives, persistent, probe, sendrecv, MPI_PROC_NULL);
 *   count 1 is MPI_ERR_TYPE.
 * Run with 2 or more processes. */
#include "mtest_err.h"
#include <string.h>

static void check_bounds(int *errs, const char *what, MPI_Datatype t, MPI_Aint lb, MPI_Aint extent)
{
    MPI_Aint l = -99, e = -99;
    int size = -1;
    MPI_Type_get_extent(t, &l, &e);
    MPI_Type_size(t, &size);
    MTEST_CHECK(*errs, l == lb && e == extent && size == 0, "%s: lb %ld extent %ld size %d, want %ld %ld 0", what,
                (long)l, (long)e, size, (long)lb, (long)extent);
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size, len, i, o, peer;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Datatype t;
    MPI_Status st;
    MPI_Request rq;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Names. */
    MPI_Type_get_name(MPI_C_FLOAT_COMPLEX, name, &len);
    MTEST_CHECK(errs, !strcmp(name, "MPI_C_COMPLEX") && len == 13, "MPI_C_FLOAT_COMPLEX is named %s", name);
    MPI_Type_get_name(MPI_C_COMPLEX, name, &len);
    MTEST_CHECK(errs, !strcmp(name, "MPI_C_COMPLEX"), "MPI_C_COMPLEX is named %s", name);
    MPI_Type_get_name(MPI_C_DOUBLE_COMPLEX, name, &len);
    MTEST_CHECK(errs, !strcmp(name, "MPI_C_DOUBLE_COMPLEX"), "MPI_C_DOUBLE_COMPLEX is named %s", name);
    MTEST_CHECK(errs, MPI_INTEGER16 == MPI_DATATYPE_NULL, "MPI_INTEGER16 is not MPI_DATATYPE_NULL");

    /* Structs of bound markers only. */
    {
        int bl[2] = {1, 1};
        MPI_Aint d[2];
        MPI_Datatype ty[2] = {MPI_LB, MPI_UB};
        MPI_Aint disps[] = {0, 8, -4, 24};
        for (i = 0; i < 4; i++) {
            char what[64];
            d[0] = disps[i];
            EXPECT_OK(errs, MPI_Type_create_struct(1, bl, d, ty, &t));
            MPI_Type_commit(&t);
            snprintf(what, sizeof(what), "struct {MPI_LB at %ld}", (long)disps[i]);
            check_bounds(&errs, what, t, disps[i], -disps[i]);
            MPI_Type_free(&t);
            EXPECT_OK(errs, MPI_Type_create_struct(1, bl, d, ty + 1, &t));
            MPI_Type_commit(&t);
            snprintf(what, sizeof(what), "struct {MPI_UB at %ld}", (long)disps[i]);
            check_bounds(&errs, what, t, 0, disps[i]);
            MPI_Type_free(&t);
        }
        d[0] = 4;
        d[1] = 12;
        EXPECT_OK(errs, MPI_Type_create_struct(2, bl, d, ty, &t));
        MPI_Type_commit(&t);
        check_bounds(&errs, "struct {MPI_LB at 4, MPI_UB at 12}", t, 4, 8);
        MPI_Type_free(&t);
    }

    /* Logical ops on floating types. Rank 0 gives {0, 3, 0, -1, NaN}, the
     * others {0.5, 2, 0, -1, 0}. */
    {
        MPI_Op ops[3] = {MPI_LAND, MPI_LOR, MPI_LXOR};
        const char *opn[3] = {"MPI_LAND", "MPI_LOR", "MPI_LXOR"};
        /* expected with 2+ processes: per op, per element */
        double want2[3][5] = {{0, 1, 0, 1, 0}, {1, 1, 0, 1, 1}, {1, 0, 0, 0, 1}};
        for (o = 0; o < 3; o++) {
            float fin[5], fout[5];
            double din[5], dout[5];
            long double lin[5], lout[5];
            double want[5];
            for (i = 0; i < 5; i++) {
                double v = rank == 0 ? (double[]){0, 3, 0, -1, 0.0 / 0.0}[i] : (double[]){0.5, 2, 0, -1, 0}[i];
                fin[i] = (float)v;
                din[i] = v;
                lin[i] = v;
                want[i] = want2[o][i];
            }
            if (size > 2 && o == 2) {
                /* LXOR over more than two: parity of the true inputs */
                for (i = 0; i < 5; i++) {
                    int n = (rank == 0 ? (i == 1 || i == 3 || i == 4) : 0), k;
                    int ntrue = (i == 1 || i == 3 || i == 4) + (size - 1) * (i == 0 || i == 1 || i == 3);
                    (void)n;
                    (void)k;
                    want[i] = ntrue % 2;
                }
            }
            EXPECT_OK(errs, MPI_Allreduce(fin, fout, 5, MPI_FLOAT, ops[o], MPI_COMM_WORLD));
            EXPECT_OK(errs, MPI_Allreduce(din, dout, 5, MPI_DOUBLE, ops[o], MPI_COMM_WORLD));
            EXPECT_OK(errs, MPI_Allreduce(lin, lout, 5, MPI_LONG_DOUBLE, ops[o], MPI_COMM_WORLD));
            for (i = 0; i < 5; i++) {
                MTEST_CHECK(errs, fout[i] == want[i], "%s float [%d] = %g, want %g", opn[o], i, fout[i], want[i]);
                MTEST_CHECK(errs, dout[i] == want[i], "%s double [%d] = %g, want %g", opn[o], i, dout[i], want[i]);
                MTEST_CHECK(errs, lout[i] == want[i], "%s long double [%d] = %Lg, want %g", opn[o], i, lout[i],
                            want[i]);
            }
            {
                float cin[2] = {1, 0}, cout[2];
                EXPECT_ERR(errs, MPI_Allreduce(cin, cout, 1, MPI_C_FLOAT_COMPLEX, ops[o], MPI_COMM_WORLD), MPI_ERR_OP,
                           "MPI_Allreduce", NULL);
            }
        }
    }

    /* count 0 with MPI_DATATYPE_NULL. Ranks 0 and 1 pair up. */
    if (rank < 2) {
        char bbuf[MPI_BSEND_OVERHEAD * 4];
        void *bp;
        int bsz, cnt;
        MPI_Message msg;
        peer = 1 - rank;
        MPI_Buffer_attach(bbuf, sizeof(bbuf));
        for (i = 0; i < 10; i++) {
            if (rank == 0) {
                switch (i) {
                case 0: EXPECT_OK(errs, MPI_Send(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD)); break;
                case 1: EXPECT_OK(errs, MPI_Ssend(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD)); break;
                case 2: EXPECT_OK(errs, MPI_Bsend(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD)); break;
                case 3:
                    EXPECT_OK(errs, MPI_Isend(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD, &rq));
                    EXPECT_OK(errs, MPI_Wait(&rq, &st));
                    break;
                case 4:
                    EXPECT_OK(errs, MPI_Issend(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD, &rq));
                    EXPECT_OK(errs, MPI_Wait(&rq, &st));
                    break;
                case 5:
                    EXPECT_OK(errs, MPI_Ibsend(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD, &rq));
                    EXPECT_OK(errs, MPI_Wait(&rq, &st));
                    break;
                case 6:
                    EXPECT_OK(errs, MPI_Send_init(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD, &rq));
                    EXPECT_OK(errs, MPI_Start(&rq));
                    EXPECT_OK(errs, MPI_Wait(&rq, &st));
                    MPI_Request_free(&rq);
                    break;
                case 7:
                    MPI_Recv(NULL, 0, MPI_INT, peer, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* receive posted */
                    EXPECT_OK(errs, MPI_Rsend(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD));
                    break;
                default: EXPECT_OK(errs, MPI_Send(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD)); break;
                }
            } else {
                cnt = -1;
                switch (i) {
                case 3:
                    EXPECT_OK(errs, MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD, &rq));
                    EXPECT_OK(errs, MPI_Wait(&rq, &st));
                    break;
                case 6:
                    EXPECT_OK(errs, MPI_Recv_init(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD, &rq));
                    EXPECT_OK(errs, MPI_Start(&rq));
                    EXPECT_OK(errs, MPI_Wait(&rq, &st));
                    MPI_Request_free(&rq);
                    break;
                case 7:
                    EXPECT_OK(errs, MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD, &rq));
                    MPI_Send(NULL, 0, MPI_INT, peer, 100, MPI_COMM_WORLD);
                    EXPECT_OK(errs, MPI_Wait(&rq, &st));
                    break;
                case 8:
                    EXPECT_OK(errs, MPI_Probe(peer, i, MPI_COMM_WORLD, &st));
                    EXPECT_OK(errs, MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD, &st));
                    break;
                case 9:
                    EXPECT_OK(errs, MPI_Mprobe(peer, i, MPI_COMM_WORLD, &msg, &st));
                    EXPECT_OK(errs, MPI_Mrecv(NULL, 0, MPI_DATATYPE_NULL, &msg, &st));
                    break;
                default: EXPECT_OK(errs, MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, peer, i, MPI_COMM_WORLD, &st)); break;
                }
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                MTEST_CHECK(errs, cnt == 0 && st.MPI_TAG == i && st.MPI_SOURCE == peer,
                            "case %d: count %d tag %d source %d", i, cnt, st.MPI_TAG, st.MPI_SOURCE);
            }
        }
        EXPECT_OK(errs, MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, peer, 50, NULL, 0, MPI_DATATYPE_NULL, peer, 50,
                                     MPI_COMM_WORLD, &st));
        EXPECT_OK(errs, MPI_Sendrecv_replace(NULL, 0, MPI_DATATYPE_NULL, peer, 51, peer, 51, MPI_COMM_WORLD, &st));
        EXPECT_OK(errs, MPI_Send(NULL, 0, MPI_DATATYPE_NULL, rank, 52, MPI_COMM_WORLD)); /* to self, eager */
        EXPECT_OK(errs, MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, rank, 52, MPI_COMM_WORLD, &st));
        EXPECT_OK(errs, MPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
        EXPECT_OK(errs, MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
        EXPECT_ERR(errs, MPI_Send(NULL, 1, MPI_DATATYPE_NULL, peer, 53, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send",
                   "datatype");
        EXPECT_ERR(errs, MPI_Recv(NULL, 1, MPI_DATATYPE_NULL, peer, 53, MPI_COMM_WORLD, &st), MPI_ERR_TYPE, "MPI_Recv",
                   "datatype");
        MPI_Buffer_detach(&bp, &bsz);
    }

    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
