/* MPI_Status_c2f/f2c/f082c/c2f08/f082f/f2f08, MPI_Type_create_f90_*,
 * MPI_Alloc_mem/MPI_Free_mem and MPI_Comm_disconnect on ordinary
 * communicators (MPICH 4.0.2's behaviour where the standard leaves room). */
#include "mtest_err.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fill(MPI_Status *s, int k)
{
    memset(s, 0, sizeof *s);
    s->MPI_SOURCE = k;
    s->MPI_TAG = 10 + k;
    s->MPI_ERROR = 20 + k;
    MPI_Status_set_elements_x(s, MPI_BYTE, ((MPI_Count)k << 33) + 7 * k);
    MPI_Status_set_cancelled(s, k & 1);
}

static int same(const MPI_Status *a, const MPI_Status *b)
{
    MPI_Count ca, cb;
    int fa, fb;
    MPI_Get_elements_x(a, MPI_BYTE, &ca);
    MPI_Get_elements_x(b, MPI_BYTE, &cb);
    MPI_Test_cancelled(a, &fa);
    MPI_Test_cancelled(b, &fb);
    return ca == cb && fa == fb && a->MPI_SOURCE == b->MPI_SOURCE && a->MPI_TAG == b->MPI_TAG &&
           a->MPI_ERROR == b->MPI_ERROR;
}

static int status_conversions(void)
{
    int errs = 0;
    for (int k = 0; k < 6; k++) {
        MPI_Status s, back;
        MPI_Fint f[MPI_F_STATUS_SIZE], f2[MPI_F_STATUS_SIZE];
        MPI_F08_status f8, f8b;
        fill(&s, k);
        memset(f, 0x55, sizeof f);
        EXPECT_OK(errs, MPI_Status_c2f(&s, f));
        MTEST_CHECK(errs, f[MPI_F_SOURCE] == k && f[MPI_F_TAG] == 10 + k && f[MPI_F_ERROR] == 20 + k,
                    "c2f fields %d %d %d", f[MPI_F_SOURCE], f[MPI_F_TAG], f[MPI_F_ERROR]);
        memset(&back, 0, sizeof back);
        EXPECT_OK(errs, MPI_Status_f2c(f, &back));
        MTEST_CHECK(errs, same(&s, &back), "c2f then f2c changed the status (k=%d)", k);
        EXPECT_OK(errs, MPI_Status_c2f08(&s, &f8));
        MTEST_CHECK(errs, f8.MPI_SOURCE == k && f8.MPI_TAG == 10 + k && f8.MPI_ERROR == 20 + k,
                    "c2f08 fields");
        memset(&back, 0, sizeof back);
        EXPECT_OK(errs, MPI_Status_f082c(&f8, &back));
        MTEST_CHECK(errs, same(&s, &back), "c2f08 then f082c changed the status (k=%d)", k);
        EXPECT_OK(errs, MPI_Status_f082f(&f8, f2));
        MTEST_CHECK(errs, memcmp(f, f2, sizeof f) == 0, "f082f differs from c2f");
        memset(&f8b, 0, sizeof f8b);
        EXPECT_OK(errs, MPI_Status_f2f08(f2, &f8b));
        MTEST_CHECK(errs, memcmp(&f8, &f8b, sizeof f8) == 0, "f2f08 differs from c2f08");
    }
    /* A real status from a receive survives the round trip. */
    {
        int rank, x = 42, y = 0;
        MPI_Status s, back;
        MPI_Fint f[MPI_F_STATUS_SIZE];
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Sendrecv(&x, 1, MPI_INT, rank, 5, &y, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &s);
        MPI_Status_c2f(&s, f);
        MPI_Status_f2c(f, &back);
        int n = -1;
        MPI_Get_count(&back, MPI_INT, &n);
        MTEST_CHECK(errs, n == 1 && back.MPI_SOURCE == rank && back.MPI_TAG == 5, "recv status");
    }
    /* Ignore sentinels and null pointers are not statuses. */
    MPI_Status s;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    MPI_F08_status f8;
    fill(&s, 1);
    EXPECT_ERR(errs, MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG, "MPI_Status_c2f", "c_status");
    EXPECT_ERR(errs, MPI_Status_c2f(&s, MPI_F_STATUS_IGNORE), MPI_ERR_ARG, "MPI_Status_c2f", "f_status");
    EXPECT_ERR(errs, MPI_Status_c2f(NULL, f), MPI_ERR_ARG, "MPI_Status_c2f", "c_status");
    EXPECT_ERR(errs, MPI_Status_f2c(MPI_F_STATUS_IGNORE, &s), MPI_ERR_ARG, "MPI_Status_f2c", "f_status");
    EXPECT_ERR(errs, MPI_Status_f2c(f, MPI_STATUS_IGNORE), MPI_ERR_ARG, "MPI_Status_f2c", "c_status");
    EXPECT_ERR(errs, MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &s), MPI_ERR_ARG, "MPI_Status_f082c", "f08_status");
    EXPECT_ERR(errs, MPI_Status_f082c(MPI_F08_STATUSES_IGNORE, &s), MPI_ERR_ARG, "MPI_Status_f082c", "f08_status");
    EXPECT_ERR(errs, MPI_Status_c2f08(&s, MPI_F08_STATUS_IGNORE), MPI_ERR_ARG, "MPI_Status_c2f08", "f08_status");
    EXPECT_ERR(errs, MPI_Status_c2f08(MPI_STATUSES_IGNORE, &f8), MPI_ERR_ARG, "MPI_Status_c2f08", "c_status");
    EXPECT_ERR(errs, MPI_Status_f082f(MPI_F08_STATUS_IGNORE, f), MPI_ERR_ARG, "MPI_Status_f082f", "f08_status");
    EXPECT_ERR(errs, MPI_Status_f082f(&f8, NULL), MPI_ERR_ARG, "MPI_Status_f082f", "f_status");
    EXPECT_ERR(errs, MPI_Status_f2f08(NULL, &f8), MPI_ERR_ARG, "MPI_Status_f2f08", "f_status");
    EXPECT_ERR(errs, MPI_Status_f2f08(f, MPI_F08_STATUS_IGNORE), MPI_ERR_ARG, "MPI_Status_f2f08", "f08_status");
    return errs;
}

/* check_f90 creates the type, checks size, envelope, contents, caching and
 * use in communication. */
static int check_f90(int comb, int p, int r, int want_size)
{
    int errs = 0, rc, sz = -1, ni, na, nd, c;
    MPI_Datatype t = MPI_DATATYPE_NULL, t2 = MPI_DATATYPE_NULL;
    switch (comb) {
    case MPI_COMBINER_F90_INTEGER:
        rc = MPI_Type_create_f90_integer(r, &t);
        MPI_Type_create_f90_integer(r, &t2);
        break;
    case MPI_COMBINER_F90_REAL:
        rc = MPI_Type_create_f90_real(p, r, &t);
        MPI_Type_create_f90_real(p, r, &t2);
        break;
    default:
        rc = MPI_Type_create_f90_complex(p, r, &t);
        MPI_Type_create_f90_complex(p, r, &t2);
    }
    if (rc != MPI_SUCCESS) {
        MTEST_CHECK(errs, 0, "f90 comb %d p=%d r=%d failed", comb, p, r);
        return errs;
    }
    MTEST_CHECK(errs, t == t2, "f90 types are not cached (comb %d p=%d r=%d)", comb, p, r);
    MPI_Type_size(t, &sz);
    MTEST_CHECK(errs, sz == want_size, "comb %d p=%d r=%d: size %d, want %d", comb, p, r, sz, want_size);
    MPI_Type_get_envelope(t, &ni, &na, &nd, &c);
    int want_ni = comb == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    MTEST_CHECK(errs, c == comb && ni == want_ni && na == 0 && nd == 0, "envelope %d %d %d %d", ni, na, nd, c);
    int iv[2] = {-7, -7};
    MPI_Aint av[1];
    MPI_Datatype dv[1];
    EXPECT_OK(errs, MPI_Type_get_contents(t, 2, 0, 0, iv, av, dv));
    if (comb == MPI_COMBINER_F90_INTEGER)
        MTEST_CHECK(errs, iv[0] == r, "contents %d", iv[0]);
    else
        MTEST_CHECK(errs, iv[0] == p && iv[1] == r, "contents %d %d", iv[0], iv[1]);
    /* Usable at once (committed), also as a dup. */
    char in[32], out[32];
    for (int i = 0; i < 32; i++)
        in[i] = (char)(i * 7 + 1), out[i] = 0;
    MPI_Sendrecv(in, 2, t, 0, 1, out, 2, t, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, memcmp(in, out, 2 * sz) == 0, "sendrecv with the f90 type");
    MPI_Datatype d;
    EXPECT_OK(errs, MPI_Type_dup(t, &d));
    MPI_Type_get_envelope(d, &ni, &na, &nd, &c);
    MTEST_CHECK(errs, c == MPI_COMBINER_DUP, "dup combiner %d", c);
    MPI_Type_free(&d);
    return errs;
}

static int f90_types(void)
{
    int errs = 0;
    static const int ir[][2] = {{1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 4}, {9, 4}, {10, 8}, {18, 8}};
    for (int i = 0; i < 8; i++)
        errs += check_f90(MPI_COMBINER_F90_INTEGER, 0, ir[i][0], ir[i][1]);
    static const int pr[][3] = {{1, 1, 4}, {6, 37, 4}, {7, 37, 8}, {6, 38, 8}, {15, 307, 8},
                                {MPI_UNDEFINED, 10, 4}, {6, MPI_UNDEFINED, 4},
                                {MPI_UNDEFINED, 300, 8}, {12, MPI_UNDEFINED, 8}};
    for (int i = 0; i < 9; i++) {
        errs += check_f90(MPI_COMBINER_F90_REAL, pr[i][0], pr[i][1], pr[i][2]);
        errs += check_f90(MPI_COMBINER_F90_COMPLEX, pr[i][0], pr[i][1], 2 * pr[i][2]);
    }
    /* Real and complex of the same (p, r) are different types. */
    MPI_Datatype a, b;
    MPI_Type_create_f90_real(3, 3, &a);
    MPI_Type_create_f90_complex(3, 3, &b);
    MTEST_CHECK(errs, a != b, "real and complex share a handle");
    /* A freed f90 type is recreated. */
    MPI_Type_create_f90_integer(3, &a);
    EXPECT_OK(errs, MPI_Type_free(&a));
    MPI_Type_create_f90_integer(3, &a);
    int sz = 0;
    EXPECT_OK(errs, MPI_Type_size(a, &sz));
    MTEST_CHECK(errs, sz == 2, "recreated size %d", sz);
    /* No type fits: MPICH reports MPI_ERR_OTHER. */
    MPI_Datatype t = MPI_DATATYPE_NULL;
    EXPECT_ERR(errs, MPI_Type_create_f90_integer(19, &t), MPI_ERR_OTHER, "MPI_Type_create_f90_integer", NULL);
    EXPECT_ERR(errs, MPI_Type_create_f90_integer(100, &t), MPI_ERR_OTHER, "MPI_Type_create_f90_integer", NULL);
    EXPECT_ERR(errs, MPI_Type_create_f90_real(16, 307, &t), MPI_ERR_OTHER, "MPI_Type_create_f90_real", NULL);
    EXPECT_ERR(errs, MPI_Type_create_f90_real(6, 308, &t), MPI_ERR_OTHER, "MPI_Type_create_f90_real", NULL);
    EXPECT_ERR(errs, MPI_Type_create_f90_complex(34, 4931, &t), MPI_ERR_OTHER, "MPI_Type_create_f90_complex", NULL);
    EXPECT_ERR(errs, MPI_Type_create_f90_real(6, 6, NULL), MPI_ERR_ARG, "MPI_Type_create_f90_real", "newtype");
    return errs;
}

static int alloc_mem(void)
{
    int errs = 0;
    for (int k = 0; k < 20; k++) {
        MPI_Aint n = (MPI_Aint)1 << k;
        char *p = NULL;
        EXPECT_OK(errs, MPI_Alloc_mem(n, MPI_INFO_NULL, &p));
        if (!p) {
            MTEST_CHECK(errs, 0, "MPI_Alloc_mem(%ld) gave NULL", (long)n);
            continue;
        }
        memset(p, k, n); /* memory C can write */
        MTEST_CHECK(errs, p[n - 1] == k, "write");
        EXPECT_OK(errs, MPI_Free_mem(p));
    }
    void *z = NULL;
    EXPECT_OK(errs, MPI_Alloc_mem(0, MPI_INFO_NULL, &z));
    EXPECT_OK(errs, MPI_Free_mem(z));
    EXPECT_OK(errs, MPI_Free_mem(NULL));
    /* Alignment asked through the info key; unknown keys are accepted. */
    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "mpi_minimum_memory_alignment", "4096");
    MPI_Info_set(in, "some_unknown_key", "1");
    for (int k = 0; k < 4; k++) {
        void *p = NULL;
        EXPECT_OK(errs, MPI_Alloc_mem(100 + k, in, &p));
        MTEST_CHECK(errs, ((uintptr_t)p & 4095) == 0, "alignment of %p", p);
        MPI_Free_mem(p);
    }
    MPI_Info_free(&in);
    /* Communication into and out of MPI_Alloc_mem memory. */
    int *a, *b;
    MPI_Alloc_mem(100 * sizeof(int), MPI_INFO_NULL, &a);
    MPI_Alloc_mem(100 * sizeof(int), MPI_INFO_NULL, &b);
    for (int i = 0; i < 100; i++)
        a[i] = i, b[i] = -1;
    MPI_Sendrecv(a, 100, MPI_INT, 0, 0, b, 100, MPI_INT, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, memcmp(a, b, 100 * sizeof(int)) == 0, "sendrecv in alloc_mem memory");
    MPI_Free_mem(a);
    MPI_Free_mem(b);
    /* Errors. */
    void *p = NULL;
    EXPECT_ERR(errs, MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), MPI_ERR_ARG, "MPI_Alloc_mem", "size");
    EXPECT_ERR(errs, MPI_Alloc_mem(10, MPI_INFO_NULL, NULL), MPI_ERR_ARG, "MPI_Alloc_mem", "baseptr");
    EXPECT_ERR(errs, MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &p), MPI_ERR_NO_MEM, "MPI_Alloc_mem", NULL);
    EXPECT_ERR(errs, MPI_Alloc_mem(10, (MPI_Info)0x12345, &p), MPI_ERR_INFO, "MPI_Alloc_mem", "info");
    char *foreign = malloc(16);
    EXPECT_ERR(errs, MPI_Free_mem(foreign), MPI_ERR_ARG, "MPI_Free_mem", "base");
    free(foreign);
    MPI_Alloc_mem(8, MPI_INFO_NULL, &p);
    MPI_Free_mem(p);
    EXPECT_ERR(errs, MPI_Free_mem(p), MPI_ERR_ARG, "MPI_Free_mem", "base");
    return errs;
}

static int disconnect(void)
{
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 5; round++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        /* Pending nonblocking traffic on c is finished by the disconnect:
         * a ring of large (rendezvous) and small messages. */
        int n = 1 << (round * 4);
        int *sb = malloc(n * sizeof(int)), *rb = malloc(n * sizeof(int));
        for (int i = 0; i < n; i++)
            sb[i] = rank * 1000 + i + round, rb[i] = -1;
        MPI_Request rq[2];
        MPI_Irecv(rb, n, MPI_INT, (rank + size - 1) % size, round, c, &rq[0]);
        MPI_Isend(sb, n, MPI_INT, (rank + 1) % size, round, c, &rq[1]);
        MPI_Request_free(&rq[1]);
        MPI_Request_free(&rq[0]);
        EXPECT_OK(errs, MPI_Comm_disconnect(&c));
        MTEST_CHECK(errs, c == MPI_COMM_NULL, "comm not set to MPI_COMM_NULL");
        int from = (rank + size - 1) % size;
        MTEST_CHECK(errs, rb[0] == from * 1000 + round && rb[n - 1] == from * 1000 + n - 1 + round,
                    "data not there after the disconnect (round %d): %d", round, rb[0]);
        free(sb);
        free(rb);
    }
    /* A split and an intercommunicator. */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    EXPECT_OK(errs, MPI_Comm_disconnect(&half));
    if (size > 1) {
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
        int x = rank, y = -1, rsize;
        MPI_Comm_remote_size(inter, &rsize);
        MPI_Request rq[2];
        MPI_Irecv(&y, 1, MPI_INT, 0, 0, inter, &rq[0]);
        MPI_Comm hrank;
        int hr;
        MPI_Comm_rank(half, &hr);
        (void)hrank;
        if (hr == 0) {
            for (int i = 0; i < rsize; i++)
                MPI_Send(&x, 1, MPI_INT, i, 0, inter);
        }
        MPI_Request_free(&rq[0]);
        EXPECT_OK(errs, MPI_Comm_disconnect(&inter));
        MTEST_CHECK(errs, inter == MPI_COMM_NULL && y == (rank % 2 ? 0 : 1), "intercomm disconnect: y=%d", y);
        MPI_Comm_free(&half);
    }
    MPI_Comm c = MPI_COMM_NULL;
    EXPECT_ERR(errs, MPI_Comm_disconnect(&c), MPI_ERR_COMM, "MPI_Comm_disconnect", "comm");
    /* MPICH 4.0 accepts the predefined communicators: the handle becomes
     * MPI_COMM_NULL after pending traffic on them completed; here they
     * stay usable afterwards. */
    for (int k = 0; k < 2; k++) {
        int x = rank + 1, y = -1, r = -1;
        MPI_Request rq;
        MPI_Comm pre = k ? MPI_COMM_SELF : MPI_COMM_WORLD;
        MPI_Irecv(&r, 1, MPI_INT, k ? 0 : (rank + size - 1) % size, 9, pre, &rq);
        MPI_Send(&x, 1, MPI_INT, k ? 0 : (rank + 1) % size, 9, pre);
        MPI_Request_free(&rq);
        c = pre;
        EXPECT_OK(errs, MPI_Comm_disconnect(&c));
        MTEST_CHECK(errs, c == MPI_COMM_NULL, "predefined comm %d not set to MPI_COMM_NULL", k);
        MTEST_CHECK(errs, r == (k ? rank + 1 : (rank + size - 1) % size + 1),
                    "receive on predefined comm %d not done by the disconnect: %d", k, r);
        EXPECT_OK(errs, MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, pre));
        MTEST_CHECK(errs, y == (k ? rank + 1 : size * (size + 1) / 2), "allreduce after disconnect: %d", y);
    }
    EXPECT_ERR(errs, MPI_Comm_disconnect(NULL), MPI_ERR_ARG, "MPI_Comm_disconnect", "comm");
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += status_conversions();
    errs += f90_types();
    errs += alloc_mem();
    errs += disconnect();
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
