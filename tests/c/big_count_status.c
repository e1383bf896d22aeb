/* big_count_status: status counts beyond 2^31 bytes, up to 2^63-1, in
 * every ABI front (built with each family's header by abi_front.sh).
 *
 * - MPI_Status_set_elements_x(MPI_BYTE, n) then MPI_Get_elements_x,
 *   MPI_Get_elements_c and MPI_Get_count_c give n back, for n of every
 *   magnitude up to 2^63-1 (the values of MPICH's pt2pt/big_count_status
 *   among them: high bits 59-62 set), with the cancelled flag set or not,
 *   set before or after the count, and never changed by it;
 *   MPI_Get_count and MPI_Get_elements say MPI_UNDEFINED above INT_MAX.
 * - Typed counts: n elements of MPI_INT read back as n ints and 4n bytes;
 *   a contiguous type of 3 ints and a struct count basic elements, as the
 *   standard says MPI_Get_elements returns what MPI_Status_set_elements
 *   set, and MPI_Get_count the whole elements among them.
 * - More than 2^63-1 bytes (2^62 ints) or a negative count is
 *   MPI_ERR_COUNT, and the status keeps what it had.
 * - A generalized request whose query function sets a count beyond 2^32
 *   completes with that count in MPI_Wait's status (the front's callback
 *   path), and MPI_Status_c2f/f2c keep it.
 * - A real message's status (MPI_Sendrecv between neighbours) still counts
 *   right after all that.
 *
 * MPI-4 calls (the _c forms) are used only when the header is MPI-4
 * (Open MPI 4.1's is MPI-3.1). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "mtest.h"

static int errs;

#define CHECK(cond, ...) MTEST_CHECK(errs, cond, __VA_ARGS__)

static int err_class(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

/* check_bytes: st holds n bytes; every query of it says so. */
static void check_bytes(const MPI_Status *st, MPI_Count n, const char *what)
{
    MPI_Count x = -1;
    int i = -1;
    MPI_Get_elements_x(st, MPI_BYTE, &x);
    CHECK(x == n, "%s: Get_elements_x %llx, want %llx", what, (long long) x, (long long) n);
#if MPI_VERSION >= 4
    x = -1;
    MPI_Get_elements_c(st, MPI_BYTE, &x);
    CHECK(x == n, "%s: Get_elements_c %llx, want %llx", what, (long long) x, (long long) n);
    x = -1;
    MPI_Get_count_c(st, MPI_BYTE, &x);
    CHECK(x == n, "%s: Get_count_c %llx, want %llx", what, (long long) x, (long long) n);
#endif
    MPI_Get_count(st, MPI_BYTE, &i);
    CHECK(i == (n > INT_MAX ? MPI_UNDEFINED : (int) n), "%s: Get_count %d (count %llx)", what, i,
          (long long) n);
    i = -1;
    MPI_Get_elements(st, MPI_BYTE, &i);
    CHECK(i == (n > INT_MAX ? MPI_UNDEFINED : (int) n), "%s: Get_elements %d (count %llx)", what, i,
          (long long) n);
}

static int cancelled(const MPI_Status *st)
{
    int f = -1;
    MPI_Test_cancelled(st, &f);
    return f;
}

static void bytes_counts(void)
{
    static const MPI_Count counts[] = {
        0, 60, INT_MAX, (MPI_Count) INT_MAX + 1, 0xffffffffLL, 0x100000000LL, 0x123456789aLL,
        (MPI_Count) 1 << 58, ((MPI_Count) 1 << 59) - 1, (MPI_Count) 1 << 59,
        0x0800000000000001LL, 0x3654321f71234567LL, 0x7654321f71234567LL, 0x7654321ff1234567LL,
        0x7fffffff00000000LL, 0x7fffffffffffffffLL};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        for (int c = 0; c < 2; c++) {
            char what[96];
            MPI_Status st;
            memset(&st, 0x5a, sizeof st);
            st.MPI_SOURCE = 3;
            st.MPI_TAG = 77;
            /* cancelled first, then the count */
            MPI_Status_set_cancelled(&st, c);
            MPI_Status_set_elements_x(&st, MPI_BYTE, counts[k]);
            snprintf(what, sizeof what, "count %llx cancelled %d", (long long) counts[k], c);
            check_bytes(&st, counts[k], what);
            CHECK(cancelled(&st) == c, "%s: cancelled %d after set_elements_x", what, cancelled(&st));
            CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 77, "%s: source %d tag %d changed", what,
                  st.MPI_SOURCE, st.MPI_TAG);
            /* the count first, then cancelled flipped twice */
            MPI_Status_set_cancelled(&st, !c);
            CHECK(cancelled(&st) == !c, "%s: set_cancelled(%d) gave %d", what, !c, cancelled(&st));
            check_bytes(&st, counts[k], what);
            MPI_Status_set_cancelled(&st, c);
            check_bytes(&st, counts[k], what);
            /* a copy is as good (statuses are values) */
            MPI_Status copy = st;
            check_bytes(&copy, counts[k], what);
            /* the Fortran status keeps the count and the flag */
            MPI_Fint f[16];
            MPI_Status back;
            memset(&back, 0, sizeof back);
            MPI_Status_c2f(&st, f);
            MPI_Status_f2c(f, &back);
            check_bytes(&back, counts[k], what);
            CHECK(cancelled(&back) == c, "%s: cancelled %d after c2f/f2c", what, cancelled(&back));
            /* MPI_Status_set_elements (int) resets it to a small count */
            MPI_Status_set_elements(&st, MPI_BYTE, 7);
            check_bytes(&st, 7, what);
            CHECK(cancelled(&st) == c, "%s: cancelled %d after set_elements", what, cancelled(&st));
        }
    }
}

static void typed_counts(void)
{
    MPI_Status st;
    MPI_Count x;
    int i;
    const MPI_Count n = ((MPI_Count) 1 << 31) + 2;

    memset(&st, 0, sizeof st);
    MPI_Status_set_elements_x(&st, MPI_INT, n);
    x = -1;
    MPI_Get_elements_x(&st, MPI_INT, &x);
    CHECK(x == n, "INT: Get_elements_x %lld, want %lld", (long long) x, (long long) n);
    check_bytes(&st, n * (MPI_Count) sizeof(int), "INT as bytes");
    MPI_Get_count(&st, MPI_INT, &i);
    CHECK(i == MPI_UNDEFINED, "INT: Get_count %d, want MPI_UNDEFINED", i);
#if MPI_VERSION >= 4
    x = -1;
    MPI_Get_count_c(&st, MPI_INT, &x);
    CHECK(x == n, "INT: Get_count_c %lld, want %lld", (long long) x, (long long) n);
    x = -1;
    MPI_Get_count_c(&st, MPI_DOUBLE, &x);
    CHECK(x == n / 2, "INT as DOUBLE: Get_count_c %lld, want %lld", (long long) x, (long long) n / 2);
#endif

    /* Three ints: the status counts basic elements, so 2^31+2 ints are not
     * a whole number of triples; 3(2^31+1) ints are. */
    MPI_Datatype t3;
    MPI_Type_contiguous(3, MPI_INT, &t3);
    MPI_Type_commit(&t3);
    MPI_Status_set_elements_x(&st, t3, n);
    x = -1;
    MPI_Get_elements_x(&st, t3, &x);
    CHECK(x == n, "3 INT: Get_elements_x %lld, want %lld", (long long) x, (long long) n);
    check_bytes(&st, n * (MPI_Count) sizeof(int), "3 INT as bytes");
    MPI_Get_count(&st, t3, &i);
    CHECK(i == MPI_UNDEFINED, "3 INT: Get_count %d, want MPI_UNDEFINED", i);
    MPI_Status_set_elements_x(&st, t3, 3 * (n - 1));
    x = -1;
    MPI_Get_elements_x(&st, t3, &x);
    CHECK(x == 3 * (n - 1), "3 INT: Get_elements_x %lld, want %lld", (long long) x,
          (long long) (3 * (n - 1)));
#if MPI_VERSION >= 4
    x = -1;
    MPI_Get_count_c(&st, t3, &x);
    CHECK(x == n - 1, "3 INT: Get_count_c %lld, want %lld", (long long) x, (long long) (n - 1));
#endif
    MPI_Status_set_elements(&st, t3, 7);
    i = -1;
    MPI_Get_elements(&st, t3, &i);
    CHECK(i == 7, "3 INT: Get_elements after set_elements(7): %d", i);
    MPI_Get_count(&st, t3, &i);
    CHECK(i == MPI_UNDEFINED, "3 INT: Get_count after set_elements(7): %d", i);
    check_bytes(&st, 7 * sizeof(int), "7 INT as bytes");
    MPI_Type_free(&t3);

    /* {int, int, double}: 3 basic elements in 16 bytes. */
    MPI_Datatype s;
    int bl[2] = {2, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, ty, &s);
    MPI_Type_commit(&s);
    MPI_Status_set_elements(&st, s, 4); /* one whole element and one int */
    i = -1;
    MPI_Get_elements(&st, s, &i);
    CHECK(i == 4, "struct: Get_elements %d, want 4", i);
    check_bytes(&st, 20, "struct as bytes");
    MPI_Status_set_elements_x(&st, s, 3 * n);
    x = -1;
    MPI_Get_elements_x(&st, s, &x);
    CHECK(x == 3 * n, "struct: Get_elements_x %lld, want %lld", (long long) x, (long long) (3 * n));
    check_bytes(&st, 16 * n, "struct x n as bytes");
    MPI_Type_free(&s);
}

static void bad_counts(void)
{
    MPI_Status st;
    int rc;
    memset(&st, 0, sizeof st);
    MPI_Status_set_elements_x(&st, MPI_BYTE, 12345);
    MPI_Status_set_cancelled(&st, 1);
    rc = MPI_Status_set_elements_x(&st, MPI_INT, (MPI_Count) 1 << 62);
    CHECK(err_class(rc) == MPI_ERR_COUNT, "2^62 ints: class %d, want MPI_ERR_COUNT", err_class(rc));
    rc = MPI_Status_set_elements_x(&st, MPI_BYTE, -1);
    CHECK(err_class(rc) == MPI_ERR_COUNT, "-1 bytes: class %d, want MPI_ERR_COUNT", err_class(rc));
    check_bytes(&st, 12345, "after refused counts");
    CHECK(cancelled(&st) == 1, "refused counts cleared cancelled");
}

/* A generalized request whose query sets a count beyond 2^32. */
static const MPI_Count greq_count = 0x5a5a5a5a5aLL;

static int query_fn(void *extra, MPI_Status *st)
{
    (void) extra;
    MPI_Status_set_elements_x(st, MPI_BYTE, greq_count);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    (void) extra;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void) extra;
    (void) complete;
    return MPI_SUCCESS;
}

static void greq_counts(void)
{
    MPI_Request r;
    MPI_Status st;
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &r);
    MPI_Grequest_complete(r);
    memset(&st, 0, sizeof st);
    MPI_Wait(&r, &st);
    CHECK(r == MPI_REQUEST_NULL, "greq: request not freed");
    check_bytes(&st, greq_count, "greq");
    CHECK(cancelled(&st) == 0, "greq: cancelled %d", cancelled(&st));
}

static void real_message(void)
{
    int rank, size, out[5] = {1, 2, 3, 4, 5}, in[5], n = -1;
    MPI_Status st;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Sendrecv(out, 5, MPI_INT, (rank + 1) % size, 9, in, 5, MPI_INT, (rank + size - 1) % size, 9,
                 MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 5, "Sendrecv: count %d", n);
    check_bytes(&st, 5 * sizeof(int), "Sendrecv");
    CHECK(cancelled(&st) == 0, "Sendrecv: cancelled");
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    bytes_counts();
    typed_counts();
    bad_counts();
    greq_counts();
    real_message();
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
