/* fstatus.c: the Fortran status layout of a front (tests/scripts/abi_front.sh
 * builds it with each family's header: Debian's Open MPI 4.1 header and
 * ours for the Open MPI front, build/bin/mpicc_abi for the standard ABI).
 *
 * MPI_Status_c2f must write the family's Fortran status: Open MPI 4.1's
 * MPI_STATUS_SIZE of 6 integers (mpif-config.h) holding MPI_SOURCE,
 * MPI_TAG, MPI_ERROR (Fortran indices 1, 2, 3), _cancelled and the two
 * halves of _ucount; the standard ABI's 8 holding MPI_SOURCE, MPI_TAG,
 * MPI_ERROR and MPI_internal[5]. Open MPI 4.1's C header has no
 * MPI_F_STATUS_SIZE/MPI_F_SOURCE/..., so with it this program uses the
 * values of Open MPI's Fortran header, as a Fortran binding built against
 * 4.1 would. Statuses of real receives (a count beyond 2^32 bytes set by
 * MPI_Status_set_elements_x, cancelled or not) go C -> Fortran -> C and,
 * where the header has MPI_F08_status, through it; the ignore sentinels
 * are MPI_ERR_ARG. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(OPEN_MPI) && !defined(MPI_F_STATUS_SIZE)
/* Open MPI 4.1's header: its Fortran header's values, 0-based. */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
#define NO_F08 1
#endif

static int errs;
#define CHECK(c, ...)                                                                     \
    do {                                                                                  \
        if (!(c)) {                                                                       \
            errs++;                                                                       \
            printf("FAIL line %d: ", __LINE__);                                           \
            printf(__VA_ARGS__);                                                          \
            printf("\n");                                                                 \
        }                                                                                 \
    } while (0)

/* The family's Fortran layout, field by field. */
static void check_layout(const MPI_Status *s, const MPI_Fint *f, const char *what)
{
    CHECK(f[0] == s->MPI_SOURCE && f[1] == s->MPI_TAG && f[2] == s->MPI_ERROR,
          "%s: source/tag/error %d %d %d, want %d %d %d", what, f[0], f[1], f[2], s->MPI_SOURCE,
          s->MPI_TAG, s->MPI_ERROR);
#if defined(OPEN_MPI)
    CHECK(MPI_F_STATUS_SIZE == 6, "MPI_F_STATUS_SIZE %d, Open MPI's is 6", (int)MPI_F_STATUS_SIZE);
    CHECK(f[3] == s->_cancelled, "%s: f[3] %d, _cancelled %d", what, f[3], s->_cancelled);
    uint64_t u = (uint64_t)(uint32_t)f[4] | (uint64_t)(uint32_t)f[5] << 32;
    CHECK(u == (uint64_t)s->_ucount, "%s: f[4..5] %llu, _ucount %llu", what, (unsigned long long)u,
          (unsigned long long)s->_ucount);
#elif defined(MPI_ABI_VERSION)
    CHECK(MPI_F_STATUS_SIZE == 8, "MPI_F_STATUS_SIZE %d, the standard's is 8", (int)MPI_F_STATUS_SIZE);
    for (int i = 0; i < 5; i++)
        CHECK(f[3 + i] == s->MPI_internal[i], "%s: f[%d] %d, MPI_internal[%d] %d", what, 3 + i, f[3 + i],
              i, s->MPI_internal[i]);
#else
#error "fstatus.c is for the Open MPI and standard ABI fronts"
#endif
}

static void check_same(const MPI_Status *a, const MPI_Status *b, const char *what)
{
    MPI_Count ca = -1, cb = -2;
    int fa = -1, fb = -2;
    MPI_Get_elements_x(a, MPI_BYTE, &ca);
    MPI_Get_elements_x(b, MPI_BYTE, &cb);
    MPI_Test_cancelled(a, &fa);
    MPI_Test_cancelled(b, &fb);
    CHECK(ca == cb && fa == fb && a->MPI_SOURCE == b->MPI_SOURCE && a->MPI_TAG == b->MPI_TAG &&
              a->MPI_ERROR == b->MPI_ERROR,
          "%s: count %lld/%lld cancelled %d/%d source %d/%d tag %d/%d error %d/%d", what, (long long)ca,
          (long long)cb, fa, fb, a->MPI_SOURCE, b->MPI_SOURCE, a->MPI_TAG, b->MPI_TAG, a->MPI_ERROR,
          b->MPI_ERROR);
}

static void round_trip(MPI_Status *s, const char *what)
{
    MPI_Fint f[MPI_F_STATUS_SIZE + 1], f2[MPI_F_STATUS_SIZE + 1];
    MPI_Status back;
    memset(f, 0x5a, sizeof f);
    CHECK(MPI_Status_c2f(s, f) == MPI_SUCCESS, "%s: c2f failed", what);
    CHECK(f[MPI_F_STATUS_SIZE] == 0x5a5a5a5a, "%s: c2f wrote past MPI_F_STATUS_SIZE", what);
    CHECK(f[MPI_F_SOURCE] == s->MPI_SOURCE && f[MPI_F_TAG] == s->MPI_TAG && f[MPI_F_ERROR] == s->MPI_ERROR,
          "%s: MPI_F_SOURCE/TAG/ERROR", what);
    check_layout(s, f, what);
    memset(&back, 0, sizeof back);
    CHECK(MPI_Status_f2c(f, &back) == MPI_SUCCESS, "%s: f2c failed", what);
    check_same(s, &back, what);
    /* A Fortran code changes the tag: the C status sees it. */
    f[MPI_F_TAG] = 4242;
    CHECK(MPI_Status_f2c(f, &back) == MPI_SUCCESS && back.MPI_TAG == 4242, "%s: f2c of a changed tag",
          what);
#ifndef NO_F08
    MPI_F08_status f8, f8b;
    memset(&f8, 0, sizeof f8);
    CHECK(MPI_Status_c2f08(s, &f8) == MPI_SUCCESS, "%s: c2f08 failed", what);
    CHECK(f8.MPI_SOURCE == s->MPI_SOURCE && f8.MPI_TAG == s->MPI_TAG && f8.MPI_ERROR == s->MPI_ERROR,
          "%s: c2f08 fields", what);
    CHECK(sizeof f8 == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), "%s: sizeof(MPI_F08_status) %zu", what,
          sizeof f8);
    check_layout(s, (const MPI_Fint *)&f8, "c2f08");
    memset(&back, 0, sizeof back);
    CHECK(MPI_Status_f082c(&f8, &back) == MPI_SUCCESS, "%s: f082c failed", what);
    check_same(s, &back, "f082c");
    memset(f2, 0, sizeof f2);
    CHECK(MPI_Status_f082f(&f8, f2) == MPI_SUCCESS, "%s: f082f", what);
    MPI_Status_c2f(s, f);
    CHECK(memcmp(f, f2, MPI_F_STATUS_SIZE * sizeof(MPI_Fint)) == 0, "%s: f082f differs from c2f", what);
    memset(&f8b, 0, sizeof f8b);
    CHECK(MPI_Status_f2f08(f2, &f8b) == MPI_SUCCESS, "%s: f2f08", what);
    CHECK(memcmp(&f8, &f8b, sizeof f8) == 0, "%s: f2f08 differs from c2f08", what);
#else
    (void)f2;
#endif
}

static void expect_arg(int rc, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG, "%s: rc %d class %d, want MPI_ERR_ARG (%d)", what, rc,
          cls, MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;

    /* A real receive: 3 ints from the left neighbour, tag 7 + sender. */
    int out[3] = {rank, rank, rank}, in[3];
    MPI_Status s;
    MPI_Sendrecv(out, 3, MPI_INT, peer, 7 + rank, in, 3, MPI_INT, from, MPI_ANY_TAG, MPI_COMM_WORLD, &s);
    CHECK(s.MPI_SOURCE == from && s.MPI_TAG == 7 + from, "received source %d tag %d", s.MPI_SOURCE,
          s.MPI_TAG);
    round_trip(&s, "received");
    int n = -1;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    MPI_Status back;
    MPI_Status_c2f(&s, f);
    MPI_Status_f2c(f, &back);
    MPI_Get_count(&back, MPI_INT, &n);
    CHECK(n == 3, "count after c2f/f2c %d", n);

    /* Counts beyond 32 bits, cancelled or not, and an error field. */
    for (int k = 0; k < 4; k++) {
        MPI_Status t = s;
        t.MPI_ERROR = k ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
        MPI_Status_set_elements_x(&t, MPI_BYTE, ((MPI_Count)k << 33) + 12345 * k + 1);
        MPI_Status_set_cancelled(&t, k & 1);
        round_trip(&t, k & 1 ? "cancelled, large count" : "large count");
    }

    /* The ignore sentinels and null pointers are not statuses. */
    expect_arg(MPI_Status_c2f(MPI_STATUS_IGNORE, f), "c2f(MPI_STATUS_IGNORE)");
    expect_arg(MPI_Status_c2f(&s, MPI_F_STATUS_IGNORE), "c2f(, MPI_F_STATUS_IGNORE)");
    expect_arg(MPI_Status_c2f(&s, NULL), "c2f(, NULL)");
    expect_arg(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &s), "f2c(MPI_F_STATUS_IGNORE)");
    expect_arg(MPI_Status_f2c(f, MPI_STATUS_IGNORE), "f2c(, MPI_STATUS_IGNORE)");
#ifndef NO_F08
    MPI_F08_status f8;
    expect_arg(MPI_Status_c2f08(&s, MPI_F08_STATUS_IGNORE), "c2f08(, MPI_F08_STATUS_IGNORE)");
    expect_arg(MPI_Status_f082c(MPI_F08_STATUSES_IGNORE, &s), "f082c(MPI_F08_STATUSES_IGNORE)");
    expect_arg(MPI_Status_f082f(&f8, NULL), "f082f(, NULL)");
    expect_arg(MPI_Status_f2f08(NULL, &f8), "f2f08(NULL)");
#endif

    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return all != 0;
}
