/* hetero.c: data between processes of (possibly) different data
 * representations (issue 21). Written to be compiled for every machine
 * of a heterogeneous grid (examples/grid-hetero.toml: ranks 0-1 x86-64,
 * 2-3 s390x): rank r pairs with r + size/2, each computes the values it
 * expects natively, so the test holds whatever the two representations
 * are (and runs as an ordinary test on one machine).
 *
 * Checks: every predefined C type both ways with values whose bytes all
 * differ; long double both ways, exact values and the rounding of values
 * x87 cannot hold; a struct with padding, a vector, an indexed type and a
 * subarray; MPI_BYTE untouched; MPI_Get_count/elements (also of a
 * probe); external32; MPI_PACKED packed on one machine and unpacked on
 * the other; MPI_ERR_TRUNCATE; every reduction collective (blocking and
 * nonblocking) and the others across the machines. */
#include "mtest.h"
#include <complex.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#define N 23

static int errs, rank, size, partner;

#define LDBL_MANT_DIG_IS_113() (LDBL_MANT_DIG == 113)

static int big_endian(void) {
    unsigned x = 1;
    return *(unsigned char *)&x == 0;
}

/* VAL(k) is element k of a test array: distinct bytes in every element. */
#define EXCHANGE(ctype, mpitype, VAL, EQ)                                         \
    do {                                                                          \
        ctype s[N], r[N];                                                         \
        memset(r, 0, sizeof r);                                                   \
        for (int k = 0; k < N; k++) s[k] = VAL;                          \
        MPI_Status st;                                                            \
        MPI_Sendrecv(s, N, mpitype, partner, 1, r, N, mpitype, partner, 1,        \
                     MPI_COMM_WORLD, &st);                                        \
        int cnt;                                                                  \
        MPI_Get_count(&st, mpitype, &cnt);                                        \
        if (cnt != N) {                                                           \
            errs++;                                                               \
            printf("%d: %s: count %d\n", rank, #mpitype, cnt);                    \
        }                                                                         \
        for (int k = 0; k < N; k++) {                                             \
            ctype want = VAL;                                                     \
            if (!(EQ)) {                                                          \
                errs++;                                                           \
                printf("%d: %s[%d] differs\n", rank, #mpitype, k);                \
                break;                                                            \
            }                                                                     \
        }                                                                         \
    } while (0)
#define SAME (r[k] == want)

struct fi { float v; int i; };
struct di { double v; int i; };
struct li { long v; int i; };
struct si { short v; int i; };
struct ldi { long double v; int i; };
struct ii { int v; int i; };
struct ff { float a, b; };
struct dd { double a, b; };
struct q2 { _Float128 a, b; };

static void predefined(void) {
    EXCHANGE(char, MPI_CHAR, 'A' + k, SAME);
    EXCHANGE(signed char, MPI_SIGNED_CHAR, -k - 1, SAME);
    EXCHANGE(unsigned char, MPI_UNSIGNED_CHAR, 200 + k, SAME);
    EXCHANGE(short, MPI_SHORT, -0x0102 - k * 0x0301, SAME);
    EXCHANGE(unsigned short, MPI_UNSIGNED_SHORT, 0xf102 + k * 0x0101, SAME);
    EXCHANGE(int, MPI_INT, -0x01020304 - k * 0x01010101, SAME);
    EXCHANGE(unsigned, MPI_UNSIGNED, 0xf1020304u + k * 0x01010101u, SAME);
    EXCHANGE(long, MPI_LONG, -0x0102030405060708L - k * 0x0101010101010101L, SAME);
    EXCHANGE(unsigned long, MPI_UNSIGNED_LONG, 0xf102030405060708UL + k * 0x0101010101010101UL, SAME);
    EXCHANGE(long long, MPI_LONG_LONG, -0x0102030405060708LL - k, SAME);
    EXCHANGE(unsigned long long, MPI_UNSIGNED_LONG_LONG, 0xf102030405060708ULL + k, SAME);
    EXCHANGE(float, MPI_FLOAT, 1.125f + k * 3.5f, SAME);
    EXCHANGE(double, MPI_DOUBLE, -1.0 / 3.0 + k * 1e10, SAME);
    EXCHANGE(long double, MPI_LONG_DOUBLE, 1.0L + k * 0x1p-60L, SAME);
    EXCHANGE(wchar_t, MPI_WCHAR, L'a' + k * 0x0102, SAME);
    EXCHANGE(_Bool, MPI_C_BOOL, k % 3 == 0, SAME);
    EXCHANGE(int8_t, MPI_INT8_T, -k, SAME);
    EXCHANGE(int16_t, MPI_INT16_T, -0x0102 * k, SAME);
    EXCHANGE(int32_t, MPI_INT32_T, -0x01020304 * k, SAME);
    EXCHANGE(int64_t, MPI_INT64_T, -0x0102030405060708LL + k, SAME);
    EXCHANGE(uint8_t, MPI_UINT8_T, 255 - k, SAME);
    EXCHANGE(uint16_t, MPI_UINT16_T, 0xf102 + k, SAME);
    EXCHANGE(uint32_t, MPI_UINT32_T, 0xf1020304u + k, SAME);
    EXCHANGE(uint64_t, MPI_UINT64_T, 0xf102030405060708ULL + k, SAME);
    EXCHANGE(MPI_Aint, MPI_AINT, 0x0102030405060708L + k, SAME);
    EXCHANGE(MPI_Offset, MPI_OFFSET, -0x0102030405060708L + k, SAME);
    EXCHANGE(MPI_Count, MPI_COUNT, 0x0102030405060708L * (k % 3 - 1), SAME);
    EXCHANGE(float _Complex, MPI_C_FLOAT_COMPLEX, 1.5f + k + (2.25f - k) * I, SAME);
    EXCHANGE(double _Complex, MPI_C_DOUBLE_COMPLEX, 1.0 / 7 + k + (2.0 / 9 - k) * I, SAME);
    EXCHANGE(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX, 0.5L + k + (0.25L - k) * I, SAME);
    EXCHANGE(int, MPI_INTEGER, 0x01020304 + k, SAME);
    EXCHANGE(float, MPI_REAL, 0.75f * k, SAME);
    EXCHANGE(double, MPI_DOUBLE_PRECISION, 1e-300 * (k + 1), SAME);
    EXCHANGE(long, MPI_INTEGER8, 0x0102030405060708L - k, SAME);
#define PAIR(ctype, mpitype, V)                                                   \
    EXCHANGE(ctype, mpitype, ((ctype){V, 0x01020304 + k}), r[k].v == want.v && r[k].i == want.i)
    PAIR(struct fi, MPI_FLOAT_INT, 1.5f * k);
    PAIR(struct di, MPI_DOUBLE_INT, 1.0 / 3 + k);
    PAIR(struct li, MPI_LONG_INT, -0x0102030405060708L + k);
    PAIR(struct si, MPI_SHORT_INT, (short)(0x0102 * k));
    PAIR(struct ldi, MPI_LONG_DOUBLE_INT, 1.0L / 8 + k);
    PAIR(struct ii, MPI_2INT, -0x0a0b0c0d - k);
    PAIR(struct ii, MPI_2INTEGER, 0x0a0b0c0d + k);
#define TWIN(ctype, mpitype, V)                                                   \
    EXCHANGE(ctype, mpitype, ((ctype){V, -(V)}), r[k].a == want.a && r[k].b == want.b)
    TWIN(struct ff, MPI_2REAL, 1.5f + k * 0.25f);
    TWIN(struct dd, MPI_2DOUBLE_PRECISION, 1.0 / 3 + k);
    /* The Fortran and C++ names. */
    EXCHANGE(char, MPI_CHARACTER, 'a' + k, SAME);
    EXCHANGE(int, MPI_LOGICAL, 0x01020304 * (k & 1), SAME);
    EXCHANGE(float _Complex, MPI_COMPLEX, 0.5f + k + (0.75f - k) * I, SAME);
    EXCHANGE(double _Complex, MPI_DOUBLE_COMPLEX, 1.0 / 3 + k + (1.0 / 5 - k) * I, SAME);
    EXCHANGE(float, MPI_REAL4, -0.375f * k - 1, SAME);
    EXCHANGE(double, MPI_REAL8, 1.0 / 7 - k, SAME);
    EXCHANGE(_Float128, MPI_REAL16, 1 + k * 0x1p-100f128, SAME);
    EXCHANGE(float _Complex, MPI_COMPLEX8, 2.5f - k + k * I, SAME);
    EXCHANGE(double _Complex, MPI_COMPLEX16, 1.0 / 9 + k - k * I, SAME);
    EXCHANGE(struct q2, MPI_COMPLEX32, ((struct q2){1 + k * 0x1p-100f128, -1 - k * 0x1p-90f128}),
             r[k].a == want.a && r[k].b == want.b);
    EXCHANGE(int8_t, MPI_INTEGER1, 1 - 2 * k, SAME);
    EXCHANGE(int16_t, MPI_INTEGER2, 0x0102 - 0x0301 * k, SAME);
    EXCHANGE(int32_t, MPI_INTEGER4, 0x01020304 - 0x01030507 * k, SAME);
    EXCHANGE(_Bool, MPI_CXX_BOOL, k % 2, SAME);
    EXCHANGE(float _Complex, MPI_CXX_FLOAT_COMPLEX, 1.25f * k + 3 * I, SAME);
    EXCHANGE(double _Complex, MPI_CXX_DOUBLE_COMPLEX, 1.0 / 11 * k - 7 * I, SAME);
    EXCHANGE(long double _Complex, MPI_CXX_LONG_DOUBLE_COMPLEX, 1.0L / 8 * k + (1 + 0x1p-60L) * I, SAME);
}

/* long double rounding: a binary128 sender's value that x87 cannot hold
 * arrives rounded to nearest, ties to even. */
static void long_double_rounding(void) {
    long double s[4] = {1.0L + 0x1p-63L, 1.0L, 1.0L, -1.0L}, r[4];
    if (LDBL_MANT_DIG_IS_113()) {
        s[1] = 1.0L + 0x1p-64L;              /* tie: to even, 1 */
        s[2] = 1.0L + 0x1p-64L + 0x1p-100L;  /* above half: 1 + 2^-63 */
        s[3] = -(1.0L + 0x1p-63L + 0x1p-64L); /* tie: to even, -(1 + 2^-62) */
    }
    MPI_Sendrecv(s, 4, MPI_LONG_DOUBLE, partner, 2, r, 4, MPI_LONG_DOUBLE, partner, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int peer113;
    int me113 = LDBL_MANT_DIG_IS_113();
    MPI_Sendrecv(&me113, 1, MPI_INT, partner, 3, &peer113, 1, MPI_INT, partner, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    long double want[4] = {1.0L + 0x1p-63L, 1.0L, 1.0L, -1.0L};
    if (peer113 && me113) {
        want[1] = 1.0L + 0x1p-64L;
        want[2] = 1.0L + 0x1p-64L + 0x1p-100L;
        want[3] = -(1.0L + 0x1p-63L + 0x1p-64L);
    } else if (peer113) {
        want[1] = 1.0L;
        want[2] = 1.0L + 0x1p-63L;
        want[3] = -(1.0L + 0x1p-62L);
    }
    for (int k = 0; k < 4; k++)
        if (r[k] != want[k]) {
            errs++;
            printf("%d: long double rounding [%d]\n", rank, k);
        }
}

struct pad { char c; double d; int i[2]; };
static void probe_counts(MPI_Datatype st);

static void derived(void) {
    MPI_Datatype st, vec, idx, sub;
    int bl[3] = {1, 1, 2};
    MPI_Aint disp[3] = {offsetof(struct pad, c), offsetof(struct pad, d), offsetof(struct pad, i)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, bl, disp, types, &st);
    MPI_Type_commit(&st);
    struct pad s[N], r[N];
    memset(s, 0x55, sizeof s);
    memset(r, 0, sizeof r);
    for (int k = 0; k < N; k++) {
        s[k].c = 'a' + k;
        s[k].d = 1.0 / (k + 3);
        s[k].i[0] = 0x01020304 + k;
        s[k].i[1] = -k;
    }
    MPI_Status stt;
    MPI_Sendrecv(s, N, st, partner, 4, r, N, st, partner, 4, MPI_COMM_WORLD, &stt);
    int cnt, elems;
    MPI_Get_count(&stt, st, &cnt);
    MPI_Get_elements(&stt, st, &elems);
    if (cnt != N || elems != 4 * N) {
        errs++;
        printf("%d: struct count %d elements %d\n", rank, cnt, elems);
    }
    for (int k = 0; k < N; k++)
        if (r[k].c != s[k].c || r[k].d != s[k].d || r[k].i[0] != s[k].i[0] || r[k].i[1] != s[k].i[1]) {
            errs++;
            printf("%d: struct[%d]\n", rank, k);
            break;
        }
    /* Vector of every third double, indexed ints, a 2-D subarray. */
    double dv[3 * N], dr[3 * N];
    for (int k = 0; k < 3 * N; k++) dv[k] = k * 0.5 + 0.125, dr[k] = -1;
    MPI_Type_vector(N, 1, 3, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    MPI_Sendrecv(dv, 1, vec, partner, 5, dr, 1, vec, partner, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < 3 * N; k++)
        if (dr[k] != (k % 3 == 0 ? dv[k] : -1)) {
            errs++;
            printf("%d: vector[%d]\n", rank, k);
            break;
        }
    int ib[3] = {2, 1, 3}, id[3] = {0, 5, 9}, iv[12], ir[12];
    for (int k = 0; k < 12; k++) iv[k] = 0x0a0b0c0d + k, ir[k] = 0;
    MPI_Type_indexed(3, ib, id, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    MPI_Sendrecv(iv, 1, idx, partner, 6, ir, 1, idx, partner, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < 12; k++) {
        int in = k < 2 || k == 5 || (k >= 9 && k < 12);
        if (ir[k] != (in ? iv[k] : 0)) {
            errs++;
            printf("%d: indexed[%d]\n", rank, k);
            break;
        }
    }
    int sizes[2] = {6, 5}, subs[2] = {3, 2}, starts[2] = {2, 1};
    long sv[30], sr[30];
    for (int k = 0; k < 30; k++) sv[k] = 0x0102030405060708L * (k + 1), sr[k] = 0;
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_LONG, &sub);
    MPI_Type_commit(&sub);
    MPI_Sendrecv(sv, 1, sub, partner, 7, sr, 1, sub, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < 30; k++) {
        int row = k / 5, col = k % 5;
        int in = row >= 2 && row < 5 && col >= 1 && col < 3;
        if (sr[k] != (in ? sv[k] : 0)) {
            errs++;
            printf("%d: subarray[%d]\n", rank, k);
            break;
        }
    }
    probe_counts(st);
    MPI_Type_free(&st);
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    MPI_Type_free(&sub);
}

/* MPI_BYTE moves the sender's bytes as they are; external32 is the same
 * everywhere; a larger message into a smaller buffer is MPI_ERR_TRUNCATE. */
static void bytes_ext32_truncate(void) {
    int v = 0x01020304, peerbig, mebig = big_endian();
    unsigned char b[4];
    MPI_Sendrecv(&mebig, 1, MPI_INT, partner, 8, &peerbig, 1, MPI_INT, partner, 8, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&v, 4, MPI_BYTE, partner, 9, b, 4, MPI_BYTE, partner, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    unsigned char want[4] = {1, 2, 3, 4};
    if (!peerbig)
        for (int k = 0; k < 4; k++) want[k] = 4 - k;
    if (memcmp(b, want, 4) != 0) {
        errs++;
        printf("%d: MPI_BYTE changed the bytes\n", rank);
    }
    double d[3] = {1.5, -2.25, 1e300}, dr[3];
    char ext[64], extr[64];
    MPI_Aint pos = 0;
    MPI_Pack_external("external32", d, 3, MPI_DOUBLE, ext, sizeof ext, &pos);
    MPI_Sendrecv(ext, (int)pos, MPI_BYTE, partner, 10, extr, (int)pos, MPI_BYTE, partner, 10, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (memcmp(ext, extr, pos) != 0) {
        errs++;
        printf("%d: external32 differs between the machines\n", rank);
    }
    pos = 0;
    MPI_Unpack_external("external32", extr, sizeof extr, &pos, dr, 3, MPI_DOUBLE);
    if (dr[0] != 1.5 || dr[1] != -2.25 || dr[2] != 1e300) {
        errs++;
        printf("%d: external32 unpack\n", rank);
    }
    int big[10] = {0}, small[4];
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request rq;
    MPI_Isend(big, 10, MPI_INT, partner, 11, MPI_COMM_WORLD, &rq);
    int rc = MPI_Recv(small, 4, MPI_INT, partner, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_TRUNCATE) {
        errs++;
        printf("%d: truncated receive gave class %d\n", rank, cls);
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* MPI_PACKED: a buffer MPI_Pack filled on one machine, sent as
 * MPI_PACKED and unpacked on the other reads right (it carries the
 * packer's representation); unpacked in pieces (positions > 0). */
static void packed(void) {
    char buf[512], rbuf[512];
    int pos = 0, n, sz, total = 0;
    int iv[3] = {0x01020304, -0x05060708, 0x7f0a0b0c};
    double dv[2] = {1.0 / 3, -1e300};
    long double lv[2] = {1.0L + 0x1p-60L, -0.1875L};
    long long qv = -0x0102030405060708LL;
    MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &sz), total += sz;
    MPI_Pack_size(2, MPI_DOUBLE, MPI_COMM_WORLD, &sz), total += sz;
    MPI_Pack_size(2, MPI_LONG_DOUBLE, MPI_COMM_WORLD, &sz), total += sz;
    MPI_Pack_size(1, MPI_LONG_LONG, MPI_COMM_WORLD, &sz), total += sz;
    MPI_Pack(iv, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    MPI_Pack(dv, 2, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    MPI_Pack(lv, 2, MPI_LONG_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    MPI_Pack(&qv, 1, MPI_LONG_LONG, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    if (pos > total) {
        errs++;
        printf("%d: packed %d bytes, MPI_Pack_size said at most %d\n", rank, pos, total);
    }
    MPI_Status st;
    MPI_Sendrecv(buf, pos, MPI_PACKED, partner, 12, rbuf, sizeof rbuf, MPI_PACKED, partner, 12, MPI_COMM_WORLD,
                 &st);
    MPI_Get_count(&st, MPI_PACKED, &n);
    int ir[3] = {0}, rp = 0;
    double dr[2] = {0};
    long double lr[2] = {0};
    long long qr = 0;
    MPI_Unpack(rbuf, n, &rp, ir, 3, MPI_INT, MPI_COMM_WORLD);
    MPI_Unpack(rbuf, n, &rp, dr, 2, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Unpack(rbuf, n, &rp, lr, 2, MPI_LONG_DOUBLE, MPI_COMM_WORLD);
    MPI_Unpack(rbuf, n, &rp, &qr, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    if (rp != n || memcmp(ir, iv, sizeof iv) != 0 || dr[0] != dv[0] || dr[1] != dv[1] || lr[0] != lv[0] ||
        lr[1] != lv[1] || qr != qv) {
        errs++;
        printf("%d: MPI_PACKED from the partner: position %d of %d, ints %x %x %x, %g %g, long long %llx\n",
               rank, rp, n, ir[0], ir[1], ir[2], dr[0], dr[1], (unsigned long long)qr);
    }
}

/* A probe's status counts in the receiver's terms (MPI_Get_count and
 * MPI_Get_elements with the receiver's datatypes). */
static void probe_counts(MPI_Datatype st) {
    struct pad s[5], r[5];
    memset(s, 0, sizeof s);
    for (int k = 0; k < 5; k++) s[k].c = 'p', s[k].d = k + 0.5, s[k].i[0] = k, s[k].i[1] = -k;
    MPI_Request rq;
    MPI_Status pst, rst;
    MPI_Isend(s, 5, st, partner, 13, MPI_COMM_WORLD, &rq);
    MPI_Probe(partner, 13, MPI_COMM_WORLD, &pst);
    int cnt, el;
    MPI_Get_count(&pst, st, &cnt);
    MPI_Get_elements(&pst, st, &el);
    if (cnt != 5 || el != 20) {
        errs++;
        printf("%d: probed struct message: count %d elements %d, want 5 and 20\n", rank, cnt, el);
    }
    MPI_Recv(r, 5, st, partner, 13, MPI_COMM_WORLD, &rst);
    MPI_Get_count(&rst, st, &cnt);
    MPI_Get_elements(&rst, MPI_DOUBLE, &el);
    if (cnt != 5 || el != MPI_UNDEFINED || r[4].d != 4.5 || r[4].i[1] != -4) {
        errs++;
        printf("%d: received struct message: count %d, elements of double %d\n", rank, cnt, el);
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

/* Collectives over all machines: the reductions convert before they
 * combine. */
static void collectives(void) {
    long double ld = rank == 0 ? 1.0L / 3 : 0;
    MPI_Bcast(&ld, 1, MPI_LONG_DOUBLE, 0, MPI_COMM_WORLD);
    if (ld != 1.0L / 3 && !(ld > 0.3333333333333333L && ld < 0.3333333333333334L)) {
        errs++;
        printf("%d: bcast long double\n", rank);
    }
    int iv[N], ir[N];
    double dv[N], dr[N];
    for (int k = 0; k < N; k++) iv[k] = 0x01020304 * (rank + 1) + k, dv[k] = rank * 0.5 + k;
    MPI_Allreduce(iv, ir, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(dv, dr, N, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int k = 0; k < N; k++) {
        int want = 0;
        for (int p = 0; p < size; p++) want += 0x01020304 * (p + 1) + k;
        if (ir[k] != want || dr[k] != (size - 1) * 0.5 + k) {
            errs++;
            printf("%d: allreduce[%d]\n", rank, k);
            break;
        }
    }
    struct di in = {rank == size - 1 ? 99.5 : rank, rank}, out;
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    if (out.v != 99.5 || out.i != size - 1) {
        errs++;
        printf("%d: maxloc %g %d\n", rank, out.v, out.i);
    }
    long lv = 0x0102030405060708L + rank, lr = 0;
    MPI_Reduce(&lv, &lr, 1, MPI_LONG, MPI_SUM, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1 && lr != 0x0102030405060708L * size + size * (size - 1) / 2) {
        errs++;
        printf("%d: reduce long\n", rank);
    }
    int sc;
    int one = rank + 1;
    MPI_Scan(&one, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sc != (rank + 1) * (rank + 2) / 2) {
        errs++;
        printf("%d: scan %d\n", rank, sc);
    }
    short all[64];
    short mine = (short)(0x0102 * (rank + 1));
    MPI_Allgather(&mine, 1, MPI_SHORT, all, 1, MPI_SHORT, MPI_COMM_WORLD);
    for (int p = 0; p < size && p < 64; p++)
        if (all[p] != (short)(0x0102 * (p + 1))) {
            errs++;
            printf("%d: allgather[%d]\n", rank, p);
            break;
        }
    /* Every reduction, blocking and nonblocking, on data that converts. */
    for (int nb = 0; nb < 2; nb++) {
        long double lsum[2], lmine[2] = {rank + 0.5L, 1.0L / 4 * rank};
        long ex = -1, lone = 0x0102030405060708L * (rank + 1);
        double blk[64], rsb = 0, rs2[2] = {0};
        int rcounts[64];
        for (int p = 0; p < size && p < 32; p++) {
            blk[2 * p] = rank + p * 0.25, blk[2 * p + 1] = -rank;
            rcounts[p] = p == 0 ? 2 : 1;
        }
        MPI_Request rq[5];
        if (nb) {
            MPI_Iallreduce(lmine, lsum, 2, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
            MPI_Iexscan(&lone, &ex, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
            MPI_Ireduce_scatter_block(blk, &rsb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[2]);
            MPI_Ireduce_scatter(blk, rs2, rcounts, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &rq[3]);
            MPI_Ireduce(&lone, &lr, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD, &rq[4]);
            MPI_Waitall(5, rq, MPI_STATUSES_IGNORE);
            MPI_Iscan(&one, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(lmine, lsum, 2, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            MPI_Exscan(&lone, &ex, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            MPI_Reduce_scatter_block(blk, &rsb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            MPI_Reduce_scatter(blk, rs2, rcounts, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            MPI_Reduce(&lone, &lr, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        }
        long double w0 = 0, w1 = 0;
        long wex = 0;
        for (int p = 0; p < size; p++) {
            w0 += p + 0.5L, w1 += 1.0L / 4 * p;
            if (p < rank) wex += 0x0102030405060708L * (p + 1);
        }
        /* blk summed: element 2p is sum_q q + p/4, element 2p+1 is
         * -sum_q q; maximum: size-1 + p/4 and 0. reduce_scatter gives
         * rank 0 elements 0 and 1, rank r > 0 element r + 1. */
        double S = size * (size - 1) / 2.0;
        double want_rsb = rank % 2 == 0 ? S + size * (rank / 2) * 0.25 : -S;
        int j = rank == 0 ? 0 : rank + 1;
        double want_rs = j % 2 == 0 ? size - 1 + (j / 2) * 0.25 : 0;
        if (lsum[0] != w0 || lsum[1] != w1 || (rank > 0 && ex != wex) || rsb != want_rsb ||
            rs2[0] != want_rs || (rank == 0 && rs2[1] != 0) ||
            (rank == 0 && lr != 0x0102030405060708L * size * (size + 1) / 2) || sc != (rank + 1) * (rank + 2) / 2) {
            errs++;
            printf("%d: %sblocking reductions: long double %Lg %Lg exscan %lx reduce_scatter_block %g reduce_scatter %g "
                   "%g reduce %lx scan %d\n",
                   rank, nb ? "non" : "", lsum[0], lsum[1], (unsigned long)ex, rsb, rs2[0], rs2[1],
                   (unsigned long)lr, sc);
        }
    }
    int ranks[64], rs[64];
    for (int p = 0; p < size && p < 64; p++) rs[p] = 0x10203 * rank + p;
    MPI_Alltoall(rs, 1, MPI_INT, ranks, 1, MPI_INT, MPI_COMM_WORLD);
    for (int p = 0; p < size && p < 64; p++)
        if (ranks[p] != 0x10203 * p + rank) {
            errs++;
            printf("%d: alltoall[%d]\n", rank, p);
            break;
        }
}

int main(int argc, char **argv) {
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2 != 0) {
        if (rank == 0) printf("hetero needs an even number of processes\n");
        MTest_Finalize(1);
        return 1;
    }
    partner = (rank + size / 2) % size;
    /* Each rank's byte order (MPI_BYTE: untouched): L or B, printed by
     * rank 0 for the grid test to check that it ran on two. */
    char order = big_endian() ? 'B' : 'L', orders[65] = {0};
    if (size <= 64) {
        MPI_Gather(&order, 1, MPI_CHAR, orders, 1, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("hetero: byte orders: %s\n", orders);
    }
    predefined();
    long_double_rounding();
    derived();
    bytes_ext32_truncate();
    packed();
    collectives();
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
