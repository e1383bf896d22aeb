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
 * the other, typed messages received as MPI_PACKED and packed ones
 * received typed, forwarded packed buffers, MPI_Bcast of packed data;
 * long (rendezvous) messages; MPI_ERR_TRUNCATE; every reduction
 * collective (blocking, nonblocking, persistent, a user operation) and
 * the other collectives with roots on either machine; every
 * intercommunicator collective between the machines and between groups
 * that each span both. */
#include "mtest.h"
#include <complex.h>
#include <math.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define N 23

static int errs, rank, size, partner;

#define LDBL_MANT_DIG_IS_113() (LDBL_MANT_DIG == 113)

static int big_endian(void) {
    unsigned x = 1;
    return *(unsigned char *)&x == 0;
}

/* Test values: element k of every array has bytes that all differ (so
 * that any byte misplaced by a conversion shows), built from a list of
 * different bytes, most significant first; each machine builds the same
 * values natively. distinct() makes n different nonzero bytes for
 * element k; fix[j] >= 0 fixes byte j (a float's sign and exponent),
 * bit j of top asks for byte j >= 0x80 (x87's explicit integer bit). */
static void distinct(unsigned char *b, int n, int k, const int *fix, unsigned long long top) {
    unsigned char used[256] = {1};
    for (int j = 0; j < n; j++)
        if (fix[j] >= 0) used[fix[j]] = 1;
    unsigned v = 1 + 37u * (unsigned)k;
    for (int j = 0; j < n; j++) {
        if (fix[j] >= 0) {
            b[j] = (unsigned char)fix[j];
            continue;
        }
        while (used[v & 0xff] || ((top >> j & 1) && (v & 0xff) < 0x80)) v += 31;
        b[j] = (unsigned char)v;
        used[b[j]] = 1;
        v += 31;
    }
}

/* put_be stores n bytes given most significant first in native order. */
static void put_be(void *dst, const unsigned char *b, int n) {
    for (int j = 0; j < n; j++) ((unsigned char *)dst)[big_endian() ? j : n - 1 - j] = b[j];
}

/* ldval is the long double of 10 bytes in x87's layout (sign and
 * exponent, then the 64-bit significand): exact in x87 and binary128
 * alike, computed so on both machines. */
static long double ldval(const unsigned char *b) {
    uint64_t m = 0;
    for (int j = 2; j < 10; j++) m = m << 8 | b[j];
    long double v = ldexpl((long double)m, ((b[0] & 0x7f) << 8 | b[1]) - 16383 - 63);
    return b[0] & 0x80 ? -v : v;
}

enum { KI, KF, KLD }; /* integer (or character), IEEE float, long double */
struct part { void *p; int n, kind; };

/* gen fills the parts of element k (one value, or the two halves of a
 * complex or pair type) with bytes that all differ across the parts. */
static void gen(const struct part *ps, int np, int k) {
    unsigned char b[64];
    int fix[64];
    unsigned long long top = 0;
    int n = 0;
    for (int i = 0; i < np; i++) {
        int sz = ps[i].kind == KLD ? 10 : ps[i].n;
        for (int j = 0; j < sz; j++) fix[n + j] = -1;
        int sign = (k + i) & 1 ? 0x80 : 0;
        if (ps[i].kind == KF)
            fix[n] = sign | (ps[i].n == 2 ? 0x3c : 0x3f); /* exponent about 0: normal */
        if (ps[i].kind == KLD) {
            fix[n] = sign | 0x3f;
            top |= 1ull << (n + 2);
        }
        n += sz;
    }
    distinct(b, n, k, fix, top);
    n = 0;
    for (int i = 0; i < np; i++) {
        if (ps[i].kind != KLD) {
            put_be(ps[i].p, b + n, ps[i].n);
            n += ps[i].n;
            continue;
        }
        long double v = ldval(b + n);
        memcpy(ps[i].p, &v, sizeof v);
        if (LDBL_MANT_DIG == 64) {
            /* x87 (little-endian): the 10 bytes reversed. */
            const unsigned char *q = ps[i].p;
            for (int j = 0; j < 10; j++)
                if (q[j] != b[n + 9 - j]) {
                    errs++;
                    printf("%d: long double test value %d is not the x87 bytes planned\n", rank, k);
                    break;
                }
        }
        n += 10;
    }
}

#define GI(x, k) gen((struct part[]){{&(x), sizeof(x), KI}}, 1, k)
#define GF(x, k) gen((struct part[]){{&(x), sizeof(x), KF}}, 1, k)
#define GLD(x, k) gen((struct part[]){{&(x), 16, KLD}}, 1, k)
#define GC(x, k) gen((struct part[]){{&(x), sizeof(x) / 2, KF}, {(char *)&(x) + sizeof(x) / 2, sizeof(x) / 2, KF}}, 2, k)
#define GLDC(x, k) gen((struct part[]){{&(x), 16, KLD}, {(char *)&(x) + 16, 16, KLD}}, 2, k)
#define GPAIR(x, k, kv) gen((struct part[]){{&(x).v, sizeof((x).v), kv}, {&(x).i, sizeof((x).i), KI}}, 2, k)
#define GTWIN(x, k) gen((struct part[]){{&(x).a, sizeof((x).a), KF}, {&(x).b, sizeof((x).b), KF}}, 2, k)
#define GBOOL(x, k) ((x) = (k) % 3 == 0)

/* Sends N values of ctype made by GEN to the partner, which sends its
 * own: both check theirs (and MPI_Get_count) with EQ. */
#define EXCHANGE(ctype, mpitype, GEN, EQ)                                         \
    do {                                                                          \
        ctype s[N], r[N];                                                         \
        memset(r, 0, sizeof r);                                                   \
        memset(s, 0, sizeof s);                                                   \
        for (int k = 0; k < N; k++) GEN(s[k], k);                                 \
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
            ctype want;                                                           \
            memset(&want, 0, sizeof want);                                        \
            GEN(want, k);                                                         \
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

/* Every predefined datatype but MPI_BYTE and MPI_PACKED (below), both
 * ways. */
static void predefined(void) {
    EXCHANGE(char, MPI_CHAR, GI, SAME);
    EXCHANGE(signed char, MPI_SIGNED_CHAR, GI, SAME);
    EXCHANGE(unsigned char, MPI_UNSIGNED_CHAR, GI, SAME);
    EXCHANGE(short, MPI_SHORT, GI, SAME);
    EXCHANGE(unsigned short, MPI_UNSIGNED_SHORT, GI, SAME);
    EXCHANGE(int, MPI_INT, GI, SAME);
    EXCHANGE(unsigned, MPI_UNSIGNED, GI, SAME);
    EXCHANGE(long, MPI_LONG, GI, SAME);
    EXCHANGE(unsigned long, MPI_UNSIGNED_LONG, GI, SAME);
    EXCHANGE(long long, MPI_LONG_LONG, GI, SAME);
    EXCHANGE(long long, MPI_LONG_LONG_INT, GI, SAME);
    EXCHANGE(unsigned long long, MPI_UNSIGNED_LONG_LONG, GI, SAME);
    EXCHANGE(float, MPI_FLOAT, GF, SAME);
    EXCHANGE(double, MPI_DOUBLE, GF, SAME);
    EXCHANGE(long double, MPI_LONG_DOUBLE, GLD, SAME);
    EXCHANGE(wchar_t, MPI_WCHAR, GI, SAME);
    EXCHANGE(_Bool, MPI_C_BOOL, GBOOL, SAME);
    EXCHANGE(int8_t, MPI_INT8_T, GI, SAME);
    EXCHANGE(int16_t, MPI_INT16_T, GI, SAME);
    EXCHANGE(int32_t, MPI_INT32_T, GI, SAME);
    EXCHANGE(int64_t, MPI_INT64_T, GI, SAME);
    EXCHANGE(uint8_t, MPI_UINT8_T, GI, SAME);
    EXCHANGE(uint16_t, MPI_UINT16_T, GI, SAME);
    EXCHANGE(uint32_t, MPI_UINT32_T, GI, SAME);
    EXCHANGE(uint64_t, MPI_UINT64_T, GI, SAME);
    EXCHANGE(MPI_Aint, MPI_AINT, GI, SAME);
    EXCHANGE(MPI_Offset, MPI_OFFSET, GI, SAME);
    EXCHANGE(MPI_Count, MPI_COUNT, GI, SAME);
    EXCHANGE(float _Complex, MPI_C_FLOAT_COMPLEX, GC, SAME);
    EXCHANGE(float _Complex, MPI_C_COMPLEX, GC, SAME);
    EXCHANGE(double _Complex, MPI_C_DOUBLE_COMPLEX, GC, SAME);
    EXCHANGE(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX, GLDC, SAME);
    EXCHANGE(uint16_t, MPIX_C_FLOAT16, GF, SAME); /* binary16 bits: no _Float16 on s390x */
    EXCHANGE(int, MPI_INTEGER, GI, SAME);
    EXCHANGE(float, MPI_REAL, GF, SAME);
    EXCHANGE(double, MPI_DOUBLE_PRECISION, GF, SAME);
    EXCHANGE(long, MPI_INTEGER8, GI, SAME);
#define PAIR_EQ (r[k].v == want.v && r[k].i == want.i)
#define GPF(x, k) GPAIR(x, k, KF)
#define GPI(x, k) GPAIR(x, k, KI)
#define GPLD(x, k) GPAIR(x, k, KLD)
    EXCHANGE(struct fi, MPI_FLOAT_INT, GPF, PAIR_EQ);
    EXCHANGE(struct di, MPI_DOUBLE_INT, GPF, PAIR_EQ);
    EXCHANGE(struct li, MPI_LONG_INT, GPI, PAIR_EQ);
    EXCHANGE(struct si, MPI_SHORT_INT, GPI, PAIR_EQ);
    EXCHANGE(struct ldi, MPI_LONG_DOUBLE_INT, GPLD, PAIR_EQ);
    EXCHANGE(struct ii, MPI_2INT, GPI, PAIR_EQ);
    EXCHANGE(struct ii, MPI_2INTEGER, GPI, PAIR_EQ);
    EXCHANGE(struct ff, MPI_2REAL, GTWIN, r[k].a == want.a && r[k].b == want.b);
    EXCHANGE(struct dd, MPI_2DOUBLE_PRECISION, GTWIN, r[k].a == want.a && r[k].b == want.b);
    /* The Fortran and C++ names. */
    EXCHANGE(char, MPI_CHARACTER, GI, SAME);
    EXCHANGE(int, MPI_LOGICAL, GI, SAME);
    EXCHANGE(float _Complex, MPI_COMPLEX, GC, SAME);
    EXCHANGE(double _Complex, MPI_DOUBLE_COMPLEX, GC, SAME);
    EXCHANGE(float, MPI_REAL4, GF, SAME);
    EXCHANGE(double, MPI_REAL8, GF, SAME);
    EXCHANGE(_Float128, MPI_REAL16, GF, SAME);
    EXCHANGE(float _Complex, MPI_COMPLEX8, GC, SAME);
    EXCHANGE(double _Complex, MPI_COMPLEX16, GC, SAME);
    EXCHANGE(struct q2, MPI_COMPLEX32, GTWIN, r[k].a == want.a && r[k].b == want.b);
    EXCHANGE(int8_t, MPI_INTEGER1, GI, SAME);
    EXCHANGE(int16_t, MPI_INTEGER2, GI, SAME);
    EXCHANGE(int32_t, MPI_INTEGER4, GI, SAME);
    EXCHANGE(_Bool, MPI_CXX_BOOL, GBOOL, SAME);
    EXCHANGE(float _Complex, MPI_CXX_FLOAT_COMPLEX, GC, SAME);
    EXCHANGE(double _Complex, MPI_CXX_DOUBLE_COMPLEX, GC, SAME);
    EXCHANGE(long double _Complex, MPI_CXX_LONG_DOUBLE_COMPLEX, GLDC, SAME);
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

/* Any message may be received as MPI_PACKED and a packed one typed:
 * between the machines (the partner) and on one machine (the neighbour,
 * rank ^ 1). A typed message received as MPI_PACKED unpacks right (the
 * receive sized by a probe's MPI_Get_count(MPI_PACKED), never more than
 * MPI_Pack_size); a packed message received typed reads right; a
 * buffer received from the other machine and sent on as MPI_PACKED
 * still reads right, typed or unpacked; MPI_Bcast of packed data from a
 * root on either machine. */
struct mix { int i[3]; double d[2]; long double ld; long l; };

static void mix_fill(struct mix *m, int o) {
    memset(m, 0, sizeof *m);
    for (int j = 0; j < 3; j++) m->i[j] = 0x01020304 * (j + 1) + o;
    for (int j = 0; j < 2; j++) m->d[j] = 1.0 / (3 + j) + o;
    m->ld = 1.0L + 0x1p-60L * (o + 1);
    m->l = -0x0102030405060708L - o;
}

static void mix_check(const struct mix *m, int o, const char *what) {
    struct mix w;
    mix_fill(&w, o);
    if (memcmp(m->i, w.i, sizeof w.i) != 0 || m->d[0] != w.d[0] || m->d[1] != w.d[1] || m->ld != w.ld ||
        m->l != w.l) {
        errs++;
        printf("%d: %s (from rank %d): ints %x %x %x doubles %g %g long %lx\n", rank, what, o, m->i[0], m->i[1],
               m->i[2], m->d[0], m->d[1], (unsigned long)m->l);
    }
}

static void packed_crossing(void) {
    MPI_Datatype mt;
    int bl[4] = {3, 2, 1, 1};
    MPI_Aint disp[4] = {offsetof(struct mix, i), offsetof(struct mix, d), offsetof(struct mix, ld),
                        offsetof(struct mix, l)};
    MPI_Datatype ty[4] = {MPI_INT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_LONG};
    MPI_Type_create_struct(4, bl, disp, ty, &mt);
    MPI_Type_commit(&mt);
    int psz;
    MPI_Pack_size(1, mt, MPI_COMM_WORLD, &psz);
    int neighbour = rank ^ 1;
    char *fwd = NULL;
    int fwdn = 0;
    for (int side = 0; side < 2; side++) {
        int peer = side == 0 ? partner : neighbour;
        const char *where = side == 0 ? "other machine" : "same machine";
        /* Typed out, MPI_PACKED in. */
        struct mix m, got;
        mix_fill(&m, rank);
        MPI_Request rq;
        MPI_Status st;
        MPI_Isend(&m, 1, mt, peer, 20, MPI_COMM_WORLD, &rq);
        MPI_Probe(peer, 20, MPI_COMM_WORLD, &st);
        int pn, n;
        MPI_Get_count(&st, MPI_PACKED, &pn);
        if (pn > psz || pn <= 0) {
            errs++;
            printf("%d: probe counts %d bytes of MPI_PACKED (%s), MPI_Pack_size says %d\n", rank, pn, where, psz);
            pn = psz;
        }
        char *buf = malloc(pn);
        MPI_Recv(buf, pn, MPI_PACKED, peer, 20, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_PACKED, &n);
        int pos = 0;
        memset(&got, 0, sizeof got);
        MPI_Unpack(buf, n, &pos, &got, 1, mt, MPI_COMM_WORLD);
        if (n != pn || pos != n) {
            errs++;
            printf("%d: typed into MPI_PACKED (%s): count %d of %d, unpacked to %d\n", rank, where, n, pn, pos);
        }
        mix_check(&got, peer, side == 0 ? "typed into MPI_PACKED, other machine" : "typed into MPI_PACKED, same machine");
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        if (side == 0) {
            fwd = buf, fwdn = n;
        } else {
            free(buf);
        }
        /* MPI_PACKED out (packed in pieces), typed in. */
        char pk[512];
        pos = 0;
        MPI_Pack(m.i, 3, MPI_INT, pk, sizeof pk, &pos, MPI_COMM_WORLD);
        MPI_Pack(m.d, 2, MPI_DOUBLE, pk, sizeof pk, &pos, MPI_COMM_WORLD);
        MPI_Pack(&m.ld, 1, MPI_LONG_DOUBLE, pk, sizeof pk, &pos, MPI_COMM_WORLD);
        MPI_Pack(&m.l, 1, MPI_LONG, pk, sizeof pk, &pos, MPI_COMM_WORLD);
        memset(&got, 0, sizeof got);
        MPI_Sendrecv(pk, pos, MPI_PACKED, peer, 21, &got, 1, mt, peer, 21, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, mt, &n);
        if (n != 1) {
            errs++;
            printf("%d: MPI_PACKED into typed (%s): count %d\n", rank, where, n);
        }
        mix_check(&got, peer, side == 0 ? "MPI_PACKED into typed, other machine" : "MPI_PACKED into typed, same machine");
    }
    /* What came from the other machine, sent on to the neighbour as
     * MPI_PACKED twice: received typed, then packed and unpacked. */
    int origin = ((rank ^ 1) + size / 2) % size; /* the neighbour's partner */
    struct mix got;
    MPI_Request rq[2];
    MPI_Isend(fwd, fwdn, MPI_PACKED, neighbour, 22, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(fwd, fwdn, MPI_PACKED, neighbour, 23, MPI_COMM_WORLD, &rq[1]);
    memset(&got, 0, sizeof got);
    MPI_Recv(&got, 1, mt, neighbour, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    mix_check(&got, origin, "forwarded MPI_PACKED into typed");
    char *buf = malloc(psz);
    MPI_Status st;
    int n, pos = 0;
    MPI_Recv(buf, psz, MPI_PACKED, neighbour, 23, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_PACKED, &n);
    memset(&got, 0, sizeof got);
    MPI_Unpack(buf, n, &pos, &got, 1, mt, MPI_COMM_WORLD);
    mix_check(&got, origin, "forwarded MPI_PACKED unpacked");
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    free(fwd);
    /* MPI_Bcast of packed data from either machine. */
    for (int root = 0; root < size; root += size - 1) {
        struct mix m;
        pos = 0;
        memset(buf, 0, psz);
        if (rank == root) {
            mix_fill(&m, root);
            MPI_Pack(&m, 1, mt, buf, psz, &pos, MPI_COMM_WORLD);
        }
        MPI_Bcast(buf, psz, MPI_PACKED, root, MPI_COMM_WORLD);
        pos = 0;
        memset(&got, 0, sizeof got);
        MPI_Unpack(buf, psz, &pos, &got, 1, mt, MPI_COMM_WORLD);
        mix_check(&got, root, "MPI_Bcast of MPI_PACKED");
        if (size == 1)
            break;
    }
    free(buf);
    MPI_Type_free(&mt);
}

/* What MPI_Pack wrote (its header included) is what an MPI_PACKED
 * receive gets, from either machine, as in a homogeneous job: the
 * receiver's MPI_Get_count and MPI_Get_elements say the sender's final
 * position (also a probe's), MPI_Unpack ends there, and a typed receive
 * counts the elements only; MPI_Pack_size of nothing is 0; a buffer is
 * read right whatever communicator unpacks it (MPI_COMM_SELF). */
static void packed_counts(void) {
    int sz0 = -1, psz, pos = 0;
    MPI_Pack_size(0, MPI_INT, MPI_COMM_WORLD, &sz0);
    if (sz0 != 0) {
        errs++;
        printf("%d: MPI_Pack_size of 0 ints is %d\n", rank, sz0);
    }
    int iv[3] = {0x01020304 + rank, -0x05060708 - rank, 0x7f0a0b0c ^ rank};
    char buf[64], rbuf[64];
    MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &psz);
    MPI_Pack(iv, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    if (pos > psz) {
        errs++;
        printf("%d: packed %d bytes, MPI_Pack_size says %d\n", rank, pos, psz);
    }
    for (int side = 0; side < 2; side++) {
        int peer = side == 0 ? partner : rank ^ 1, their = -1, n = -1, el = -1;
        const char *where = side == 0 ? "other machine" : "same machine";
        int want[3] = {0x01020304 + peer, -0x05060708 - peer, 0x7f0a0b0c ^ peer}, ir[3] = {0}, rp = 0;
        MPI_Status st;
        MPI_Request rq;
        MPI_Sendrecv(&pos, 1, MPI_INT, peer, 30, &their, 1, MPI_INT, peer, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* received as MPI_PACKED */
        MPI_Isend(buf, pos, MPI_PACKED, peer, 31, MPI_COMM_WORLD, &rq);
        MPI_Probe(peer, 31, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_PACKED, &n);
        if (n != their) {
            errs++;
            printf("%d: probe of %d packed bytes (%s) counts %d\n", rank, their, where, n);
        }
        memset(rbuf, 0, sizeof rbuf);
        MPI_Recv(rbuf, sizeof rbuf, MPI_PACKED, peer, 31, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_PACKED, &n);
        MPI_Get_elements(&st, MPI_PACKED, &el);
        MPI_Unpack(rbuf, n, &rp, ir, 3, MPI_INT, MPI_COMM_WORLD);
        if (n != their || el != their || rp != n || memcmp(ir, want, sizeof ir) != 0) {
            errs++;
            printf("%d: %d packed bytes (%s) received as MPI_PACKED: count %d, elements %d, unpacked to %d, %x %x %x\n",
                   rank, their, where, n, el, rp, ir[0], ir[1], ir[2]);
        }
        rp = 0;
        memset(ir, 0, sizeof ir);
        MPI_Unpack(rbuf, n, &rp, ir, 3, MPI_INT, MPI_COMM_SELF);
        if (rp != n || memcmp(ir, want, sizeof ir) != 0) {
            errs++;
            printf("%d: packed bytes (%s) unpacked with MPI_COMM_SELF: to %d of %d, %x %x %x\n", rank, where, rp, n,
                   ir[0], ir[1], ir[2]);
        }
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        /* received typed */
        MPI_Isend(buf, pos, MPI_PACKED, peer, 32, MPI_COMM_WORLD, &rq);
        MPI_Probe(peer, 32, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        MPI_Get_elements(&st, MPI_INT, &el);
        if (n != 3 || el != 3) {
            errs++;
            printf("%d: probe of packed ints (%s) counts %d ints, %d elements\n", rank, where, n, el);
        }
        memset(ir, 0, sizeof ir);
        MPI_Recv(ir, 3, MPI_INT, peer, 32, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        if (n != 3 || memcmp(ir, want, sizeof ir) != 0) {
            errs++;
            printf("%d: packed ints (%s) received typed: count %d, %x %x %x\n", rank, where, n, ir[0], ir[1], ir[2]);
        }
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
}

/* Long messages (rendezvous) convert too, into a larger receive buffer
 * whose rest stays untouched. */
static void long_messages(void) {
    enum { M = 40000, R = 50000 };
    double *s = malloc(M * sizeof(double)), *r = malloc(R * sizeof(double));
    long double *ls = malloc(M / 4 * sizeof(long double)), *lr = malloc(R / 4 * sizeof(long double));
    for (int k = 0; k < M; k++) s[k] = k * 0.5 + rank;
    for (int k = 0; k < R; k++) r[k] = -1;
    for (int k = 0; k < M / 4; k++) ls[k] = 1.0L / 3 + k;
    for (int k = 0; k < R / 4; k++) lr[k] = -1;
    MPI_Status st;
    int cnt;
    MPI_Sendrecv(s, M, MPI_DOUBLE, partner, 30, r, R, MPI_DOUBLE, partner, 30, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    for (int k = 0; k < R; k++)
        if (r[k] != (k < M ? k * 0.5 + partner : -1) || cnt != M) {
            errs++;
            printf("%d: long message of doubles: count %d, [%d] %g\n", rank, cnt, k, r[k]);
            break;
        }
    MPI_Sendrecv(ls, M / 4, MPI_LONG_DOUBLE, partner, 31, lr, R / 4, MPI_LONG_DOUBLE, partner, 31, MPI_COMM_WORLD,
                 &st);
    MPI_Get_count(&st, MPI_LONG_DOUBLE, &cnt);
    long double third = 1.0L / 3;
    int peer113;
    int me113 = LDBL_MANT_DIG == 113;
    MPI_Sendrecv(&me113, 1, MPI_INT, partner, 32, &peer113, 1, MPI_INT, partner, 32, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int k = 0; k < R / 4; k++) {
        long double want = k < M / 4 ? third + k : -1;
        /* 1/3 in binary128 rounds to x87's 1/3; x87's widens exactly. */
        int ok = lr[k] == want || (k < M / 4 && peer113 != me113 && fabsl(lr[k] - want) < 1e-18L * (k + 1));
        if (!ok || cnt != M / 4) {
            errs++;
            printf("%d: long message of long doubles: count %d, [%d] %Lg\n", rank, cnt, k, lr[k]);
            break;
        }
    }
    free(s), free(r), free(ls), free(lr);
}

/* The collectives without reductions, roots on either machine, data
 * that converts; a user-defined operation; persistent reductions; an
 * intercommunicator between the two halves (the two machines on the
 * heterogeneous grid). */
static void more_collectives(void) {
    int roots[2] = {0, size - 1};
    MPI_Barrier(MPI_COMM_WORLD);
    for (int ri = 0; ri < 2; ri++) {
        int root = roots[ri];
        long mine[2] = {0x0102030405060708L * (rank + 1), -rank - 1}, *all = malloc(2 * size * sizeof(long));
        double d = root == rank ? 1.0 / 7 : 0;
        MPI_Bcast(&d, 1, MPI_DOUBLE, root, MPI_COMM_WORLD);
        MPI_Gather(mine, 2, MPI_LONG, all, 2, MPI_LONG, root, MPI_COMM_WORLD);
        if (d != 1.0 / 7) {
            errs++;
            printf("%d: bcast from %d\n", rank, root);
        }
        if (rank == root)
            for (int p = 0; p < size; p++)
                if (all[2 * p] != 0x0102030405060708L * (p + 1) || all[2 * p + 1] != -p - 1) {
                    errs++;
                    printf("%d: gather at %d [%d]\n", rank, root, p);
                    break;
                }
        long back[2] = {0};
        MPI_Scatter(all, 2, MPI_LONG, back, 2, MPI_LONG, root, MPI_COMM_WORLD);
        if (back[0] != mine[0] || back[1] != mine[1]) {
            errs++;
            printf("%d: scatter from %d\n", rank, root);
        }
        /* v forms: rank p contributes p + 1 floats. */
        int *cnts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int)), tot = 0;
        for (int p = 0; p < size; p++) cnts[p] = p + 1, displs[p] = tot, tot += p + 1;
        float *fv = malloc((rank + 1) * sizeof(float)), *fall = malloc(tot * sizeof(float));
        for (int j = 0; j <= rank; j++) fv[j] = rank * 10 + j + 0.25f;
        MPI_Gatherv(fv, rank + 1, MPI_FLOAT, fall, cnts, displs, MPI_FLOAT, root, MPI_COMM_WORLD);
        if (rank == root)
            for (int p = 0; p < size; p++)
                for (int j = 0; j <= p; j++)
                    if (fall[displs[p] + j] != p * 10 + j + 0.25f) {
                        errs++;
                        printf("%d: gatherv at %d\n", rank, root);
                        p = size;
                        break;
                    }
        memset(fv, 0, (rank + 1) * sizeof(float));
        MPI_Scatterv(fall, cnts, displs, MPI_FLOAT, fv, rank + 1, MPI_FLOAT, root, MPI_COMM_WORLD);
        for (int j = 0; j <= rank; j++)
            if (fv[j] != rank * 10 + j + 0.25f) {
                errs++;
                printf("%d: scatterv from %d\n", rank, root);
                break;
            }
        if (ri == 0) {
            memset(fall, 0, tot * sizeof(float));
            MPI_Allgatherv(fv, rank + 1, MPI_FLOAT, fall, cnts, displs, MPI_FLOAT, MPI_COMM_WORLD);
            for (int p = 0; p < size; p++)
                for (int j = 0; j <= p; j++)
                    if (fall[displs[p] + j] != p * 10 + j + 0.25f) {
                        errs++;
                        printf("%d: allgatherv\n", rank);
                        p = size;
                        break;
                    }
            /* alltoallv and alltoallw: one long to each (w: as a
             * 1-element contiguous type). */
            long *so = malloc(size * sizeof(long)), *ro = malloc(size * sizeof(long));
            int *ones = malloc(size * sizeof(int)), *dsp = malloc(size * sizeof(int)), *bd = malloc(size * sizeof(int));
            MPI_Datatype *tys = malloc(size * sizeof(MPI_Datatype)), c1;
            MPI_Type_contiguous(1, MPI_LONG, &c1);
            MPI_Type_commit(&c1);
            for (int p = 0; p < size; p++) {
                so[p] = 0x0102030405060708L * rank + p, ones[p] = 1, dsp[p] = p, bd[p] = p * (int)sizeof(long);
                tys[p] = c1;
            }
            MPI_Alltoallv(so, ones, dsp, MPI_LONG, ro, ones, dsp, MPI_LONG, MPI_COMM_WORLD);
            for (int p = 0; p < size; p++)
                if (ro[p] != 0x0102030405060708L * p + rank) {
                    errs++;
                    printf("%d: alltoallv[%d]\n", rank, p);
                    break;
                }
            memset(ro, 0, size * sizeof(long));
            MPI_Alltoallw(so, ones, bd, tys, ro, ones, bd, tys, MPI_COMM_WORLD);
            for (int p = 0; p < size; p++)
                if (ro[p] != 0x0102030405060708L * p + rank) {
                    errs++;
                    printf("%d: alltoallw[%d]\n", rank, p);
                    break;
                }
            MPI_Type_free(&c1);
            free(so), free(ro), free(ones), free(dsp), free(bd), free(tys);
        }
        /* A reduction whose root is on either machine. */
        double dsum = 0, dmine = 1.0 / (rank + 3);
        MPI_Reduce(&dmine, &dsum, 1, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root) {
            double w = 0;
            for (int p = 0; p < size; p++) w += 1.0 / (p + 3);
            if (fabs(dsum - w) > 1e-12) {
                errs++;
                printf("%d: reduce at %d: %g, want %g\n", rank, root, dsum, w);
            }
        }
        free(all), free(cnts), free(displs), free(fv), free(fall);
    }
}

static void usermax(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    long *a = in, *b = inout;
    for (int k = 0; k < *len; k++)
        if (a[k] > b[k]) b[k] = a[k];
}

static void user_and_persistent(void) {
    MPI_Op op;
    MPI_Op_create(usermax, 1, &op);
    long v[2] = {0x0102030405060708L * (rank + 1), -0x0102030405060708L * (rank + 1)}, r[2];
    MPI_Allreduce(v, r, 2, MPI_LONG, op, MPI_COMM_WORLD);
    if (r[0] != 0x0102030405060708L * size || r[1] != -0x0102030405060708L) {
        errs++;
        printf("%d: user operation: %lx %lx\n", rank, (unsigned long)r[0], (unsigned long)r[1]);
    }
    MPI_Op_free(&op);
    MPI_Request rq;
    long double ld = rank + 0.25L, lds = 0;
    MPI_Allreduce_init(&ld, &lds, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
    for (int it = 0; it < 2; it++) {
        ld = rank + 0.25L + it;
        MPI_Start(&rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        long double w = 0;
        for (int p = 0; p < size; p++) w += p + 0.25L + it;
        if (lds != w) {
            errs++;
            printf("%d: persistent allreduce of long double, round %d: %Lg\n", rank, it, lds);
        }
    }
    MPI_Request_free(&rq);
}

/* Intercommunicator collectives across representations: every
 * operation, blocking and nonblocking, roots in either group, data that
 * converts (struct mix), reductions of double, long double, long and a
 * non-commutative user operation (2x2 matrices, MTestMat) whose results
 * are checked against the operands combined in rank order. */

/* The reductions' operand types: 0 double (sum), 1 long double (sum),
 * 2 long (sum), 3 MTestMat (matrix product, not commutative). */
enum { NRED = 4 };
static MPI_Datatype red_dt[NRED];
static MPI_Op red_op[NRED];
static const size_t red_size[NRED] = {sizeof(double), sizeof(long double), sizeof(long), sizeof(MTestMat)};
static const char *const red_name[NRED] = {"double sum", "long double sum", "long sum", "matrix product"};

/* red_val stores world rank w's operand element k of type t at out. */
static void red_val(int t, int w, int k, void *out) {
    switch (t) {
    case 0: *(double *)out = (w + 1) * 0.5 + k * 8; break;
    case 1: *(long double *)out = (w + 1) + 0x1p-40L * (k + 1); break; /* exact in x87 and binary128 */
    case 2: *(long *)out = 0x0102030405060708L * (w + 1) + k; break;
    default: *(MTestMat *)out = MTestMatOf(w, k);
    }
}

/* red_want stores element k of the reduction of the operands of world
 * ranks ws[0..n-1] (in that order) at out. */
static void red_want(int t, const int *ws, int n, int k, void *out) {
    double d = 0;
    long double ld = 0;
    long l = 0;
    MTestMat m = MTestMatOf(ws[0], k);
    for (int i = 0; i < n; i++) {
        double xd;
        long double xld;
        long xl;
        red_val(0, ws[i], k, &xd), d += xd;
        red_val(1, ws[i], k, &xld), ld += xld;
        red_val(2, ws[i], k, &xl), l += xl;
        if (i > 0)
            m = MTestMatMul(m, MTestMatOf(ws[i], k));
    }
    switch (t) {
    case 0: *(double *)out = d; break;
    case 1: *(long double *)out = ld; break;
    case 2: *(long *)out = l; break;
    default: *(MTestMat *)out = m;
    }
}

static int red_same(int t, const void *a, const void *b) {
    switch (t) {
    case 0: return *(const double *)a == *(const double *)b;
    case 1: return *(const long double *)a == *(const long double *)b;
    case 2: return *(const long *)a == *(const long *)b;
    }
    return memcmp(a, b, sizeof(MTestMat)) == 0;
}

static MPI_Datatype mix_type(void) {
    MPI_Datatype mt;
    int bl[4] = {3, 2, 1, 1};
    MPI_Aint disp[4] = {offsetof(struct mix, i), offsetof(struct mix, d), offsetof(struct mix, ld),
                        offsetof(struct mix, l)};
    MPI_Datatype ty[4] = {MPI_INT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_LONG};
    MPI_Type_create_struct(4, bl, disp, ty, &mt);
    MPI_Type_commit(&mt);
    return mt;
}

/* A blocking call or its nonblocking form (then waited for); an error
 * is reported, never fatal (the errors of inter return). */
#define RUN(what, call, icall)                                                                   \
    do {                                                                                         \
        MPI_Request rq_;                                                                         \
        int rc_ = nb ? (icall) : (call);                                                         \
        if (rc_ == MPI_SUCCESS && nb)                                                            \
            rc_ = MPI_Wait(&rq_, MPI_STATUS_IGNORE);                                             \
        if (rc_ != MPI_SUCCESS) {                                                                \
            char s_[MPI_MAX_ERROR_STRING];                                                       \
            int l_;                                                                              \
            MPI_Error_string(rc_, s_, &l_);                                                      \
            errs++;                                                                              \
            printf("%d: %s, %s %s: %s\n", rank, name, nb ? "nonblocking" : "blocking", what, s_); \
        }                                                                                        \
    } while (0)

static void inter_colls(MPI_Comm inter, const char *name) {
    int lsize, rsize, lrank, me = rank;
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &lrank);
    /* The world ranks of both groups, in group rank order. */
    int *lw = malloc(lsize * sizeof(int)), *rw = malloc(rsize * sizeof(int)), *idx = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) idx[i] = i;
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(inter, &g);
    MPI_Group_translate_ranks(g, lsize, idx, wg, lw);
    MPI_Group_free(&g);
    MPI_Comm_remote_group(inter, &g);
    MPI_Group_translate_ranks(g, rsize, idx, wg, rw);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    int first = lw[0] < rw[0]; /* this group holds world rank 0 */
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Datatype mt = mix_type();
    int n = lsize > rsize ? lsize : rsize;
    struct mix m, *all = malloc(n * sizeof(struct mix)), *out = malloc(n * sizeof(struct mix));
    int *ones = malloc(n * sizeof(int)), *rev = malloc(n * sizeof(int)), *brev = malloc(n * sizeof(int));
    MPI_Datatype *mts = malloc(n * sizeof(MPI_Datatype));
    for (int nb = 0; nb < 2; nb++) {
        RUN("barrier", MPI_Barrier(inter), MPI_Ibarrier(inter, &rq_));
        /* Rooted operations: root the last process of the first group,
         * then the first of the second. */
        for (int rg = 0; rg < 2; rg++) {
            int inroot = rg == 0 ? first : !first; /* the root is in this group */
            int gsize = inroot ? lsize : rsize, rr = rg == 0 ? gsize - 1 : 0;
            int root = inroot ? (lrank == rr ? MPI_ROOT : MPI_PROC_NULL) : rr;
            int rootw = inroot ? lw[rr] : rw[rr];
            int isroot = root == MPI_ROOT, recv = !inroot;
            char what[64];
            /* bcast */
            memset(&m, 0, sizeof m);
            if (isroot)
                mix_fill(&m, me);
            RUN("bcast", MPI_Bcast(&m, 1, mt, root, inter), MPI_Ibcast(&m, 1, mt, root, inter, &rq_));
            if (recv) {
                snprintf(what, sizeof what, "%s bcast from %d", name, rootw);
                mix_check(&m, rootw, what);
            }
            /* gather, gatherv (blocks in reverse order) */
            for (int v = 0; v < 2; v++) {
                mix_fill(&m, me);
                memset(all, 0, n * sizeof *all);
                for (int i = 0; i < rsize; i++) ones[i] = 1, rev[i] = rsize - 1 - i;
                if (v == 0)
                    RUN("gather", MPI_Gather(&m, 1, mt, all, 1, mt, root, inter),
                        MPI_Igather(&m, 1, mt, all, 1, mt, root, inter, &rq_));
                else
                    RUN("gatherv", MPI_Gatherv(&m, 1, mt, all, ones, rev, mt, root, inter),
                        MPI_Igatherv(&m, 1, mt, all, ones, rev, mt, root, inter, &rq_));
                if (isroot)
                    for (int i = 0; i < rsize; i++) {
                        snprintf(what, sizeof what, "%s %s at %d", name, v ? "gatherv" : "gather", me);
                        mix_check(&all[v ? rsize - 1 - i : i], rw[i], what);
                    }
            }
            /* scatter, scatterv: block i is mix_fill(remote i) */
            for (int v = 0; v < 2; v++) {
                if (isroot)
                    for (int i = 0; i < rsize; i++) {
                        mix_fill(&all[v ? rsize - 1 - i : i], rw[i]);
                        ones[i] = 1, rev[i] = rsize - 1 - i;
                    }
                memset(&m, 0, sizeof m);
                if (v == 0)
                    RUN("scatter", MPI_Scatter(all, 1, mt, &m, 1, mt, root, inter),
                        MPI_Iscatter(all, 1, mt, &m, 1, mt, root, inter, &rq_));
                else
                    RUN("scatterv", MPI_Scatterv(all, ones, rev, mt, &m, 1, mt, root, inter),
                        MPI_Iscatterv(all, ones, rev, mt, &m, 1, mt, root, inter, &rq_));
                if (recv) {
                    snprintf(what, sizeof what, "%s %s from %d", name, v ? "scatterv" : "scatter", rootw);
                    mix_check(&m, me, what);
                }
            }
            /* reduce: the other group's operands combined at the root */
            for (int t = 0; t < NRED; t++) {
                enum { K = 3 };
                long double sb[K * 2], rb[K * 2], want; /* room for K elements of any type */
                char *s = (char *)sb, *r = (char *)rb;
                for (int k = 0; k < K; k++) red_val(t, me, k, s + k * red_size[t]);
                memset(rb, 0, sizeof rb);
                RUN(red_name[t], MPI_Reduce(s, r, K, red_dt[t], red_op[t], root, inter),
                    MPI_Ireduce(s, r, K, red_dt[t], red_op[t], root, inter, &rq_));
                for (int k = 0; isroot && k < K; k++) {
                    red_want(t, rw, rsize, k, &want);
                    if (!red_same(t, r + k * red_size[t], &want)) {
                        errs++;
                        printf("%d: %s, %s reduce of %s, element %d wrong\n", rank, name,
                               nb ? "nonblocking" : "blocking", red_name[t], k);
                    }
                }
            }
        }
        /* allgather, allgatherv (reverse order) */
        for (int v = 0; v < 2; v++) {
            mix_fill(&m, me);
            memset(all, 0, n * sizeof *all);
            for (int i = 0; i < rsize; i++) ones[i] = 1, rev[i] = rsize - 1 - i;
            if (v == 0)
                RUN("allgather", MPI_Allgather(&m, 1, mt, all, 1, mt, inter),
                    MPI_Iallgather(&m, 1, mt, all, 1, mt, inter, &rq_));
            else
                RUN("allgatherv", MPI_Allgatherv(&m, 1, mt, all, ones, rev, mt, inter),
                    MPI_Iallgatherv(&m, 1, mt, all, ones, rev, mt, inter, &rq_));
            for (int i = 0; i < rsize; i++)
                mix_check(&all[v ? rsize - 1 - i : i], rw[i], v ? "intercommunicator allgatherv" : "intercommunicator allgather");
        }
        /* alltoall, alltoallv (reverse order), alltoallw (byte
         * displacements, reverse order): remote j gets 100 * me + its
         * world rank */
        for (int v = 0; v < 3; v++) {
            for (int j = 0; j < rsize; j++) {
                int b = v ? rsize - 1 - j : j;
                mix_fill(&out[b], 100 * me + rw[j]);
                ones[j] = 1, rev[j] = b, brev[j] = b * (int)sizeof(struct mix), mts[j] = mt;
            }
            memset(all, 0, n * sizeof *all);
            if (v == 0)
                RUN("alltoall", MPI_Alltoall(out, 1, mt, all, 1, mt, inter),
                    MPI_Ialltoall(out, 1, mt, all, 1, mt, inter, &rq_));
            else if (v == 1)
                RUN("alltoallv", MPI_Alltoallv(out, ones, rev, mt, all, ones, rev, mt, inter),
                    MPI_Ialltoallv(out, ones, rev, mt, all, ones, rev, mt, inter, &rq_));
            else
                RUN("alltoallw", MPI_Alltoallw(out, ones, brev, mts, all, ones, brev, mts, inter),
                    MPI_Ialltoallw(out, ones, brev, mts, all, ones, brev, mts, inter, &rq_));
            for (int i = 0; i < rsize; i++) {
                const char *what[3] = {"intercommunicator alltoall", "intercommunicator alltoallv",
                                       "intercommunicator alltoallw"};
                mix_check(&all[v ? rsize - 1 - i : i], 100 * rw[i] + me, what[v]);
            }
        }
        /* allreduce, reduce_scatter_block (2 elements per process),
         * reduce_scatter (local rank i gets i + 1 elements; the groups'
         * totals agree when their sizes do) */
        for (int t = 0; t < NRED; t++) {
            int tot = lsize * (lsize + 1) / 2, K = tot > 2 * lsize ? tot : 2 * lsize;
            char *s = malloc(K * red_size[t]), *r = malloc(K * red_size[t]);
            long double want;
            int *cnts = malloc(lsize * sizeof(int));
            for (int k = 0; k < K; k++) red_val(t, me, k, s + k * red_size[t]);
            for (int op = 0; op < 3; op++) {
                static const char *const opn[3] = {"allreduce", "reduce_scatter_block", "reduce_scatter"};
                if (op > 0 && lsize != rsize)
                    break;
                int count = op == 0 ? 2 : op == 1 ? 2 : lrank + 1, lo = 0;
                for (int i = 0; i < lsize; i++) cnts[i] = i + 1;
                for (int i = 0; i < lrank; i++) lo += op == 1 ? 2 : op == 2 ? i + 1 : 0;
                memset(r, 0, K * red_size[t]);
                if (op == 0)
                    RUN("allreduce", MPI_Allreduce(s, r, count, red_dt[t], red_op[t], inter),
                        MPI_Iallreduce(s, r, count, red_dt[t], red_op[t], inter, &rq_));
                else if (op == 1)
                    RUN("reduce_scatter_block", MPI_Reduce_scatter_block(s, r, 2, red_dt[t], red_op[t], inter),
                        MPI_Ireduce_scatter_block(s, r, 2, red_dt[t], red_op[t], inter, &rq_));
                else
                    RUN("reduce_scatter", MPI_Reduce_scatter(s, r, cnts, red_dt[t], red_op[t], inter),
                        MPI_Ireduce_scatter(s, r, cnts, red_dt[t], red_op[t], inter, &rq_));
                for (int k = 0; k < count; k++) {
                    red_want(t, rw, rsize, lo + k, &want);
                    if (!red_same(t, r + k * red_size[t], &want)) {
                        errs++;
                        printf("%d: %s, %s %s of %s, element %d wrong\n", rank, name,
                               nb ? "nonblocking" : "blocking", opn[op], red_name[t], lo + k);
                        break;
                    }
                }
            }
            free(s), free(r), free(cnts);
        }
    }
    /* A persistent allreduce of long double, started twice. */
    long double ps[2], pr[2], pw;
    MPI_Request prq;
    int rc = MPI_Allreduce_init(ps, pr, 2, MPI_LONG_DOUBLE, MPI_SUM, inter, MPI_INFO_NULL, &prq);
    for (int it = 0; rc == MPI_SUCCESS && it < 2; it++) {
        for (int k = 0; k < 2; k++) red_val(1, me, k + it, &ps[k]);
        pr[0] = pr[1] = 0;
        MPI_Start(&prq);
        MPI_Wait(&prq, MPI_STATUS_IGNORE);
        for (int k = 0; k < 2; k++) {
            red_want(1, rw, rsize, k + it, &pw);
            if (pr[k] != pw) {
                errs++;
                printf("%d: %s, persistent allreduce of long double, start %d, element %d wrong\n", rank, name, it, k);
            }
        }
    }
    if (rc == MPI_SUCCESS)
        MPI_Request_free(&prq);
    else {
        errs++;
        printf("%d: %s: MPI_Allreduce_init failed\n", rank, name);
    }
    MPI_Type_free(&mt);
    free(lw), free(rw), free(idx), free(all), free(out), free(ones), free(rev), free(brev), free(mts);
}

/* Two intercommunicators: the first half (x86 on the grid) and the
 * second (s390x), each group of one representation; even and odd world
 * ranks, each group of both. */
static void intercommunicators(void) {
    MPI_Type_contiguous(4, MPI_UINT32_T, &red_dt[3]);
    MPI_Type_commit(&red_dt[3]);
    red_dt[0] = MPI_DOUBLE, red_dt[1] = MPI_LONG_DOUBLE, red_dt[2] = MPI_LONG;
    red_op[0] = red_op[1] = red_op[2] = MPI_SUM;
    MPI_Op_create(MTestMatmulFn, 0, &red_op[3]);
    for (int how = 0; how < 2; how++) {
        MPI_Comm half, inter;
        int lo = how == 0 ? rank < size / 2 : rank % 2 == 0;
        int rleader = how == 0 ? (lo ? size / 2 : 0) : (lo ? 1 : 0);
        if (size < 2)
            break;
        MPI_Comm_split(MPI_COMM_WORLD, lo, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rleader, 40 + how, &inter);
        inter_colls(inter, how == 0 ? "intercommunicator of the halves" : "intercommunicator of even and odd ranks");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    MPI_Op_free(&red_op[3]);
    MPI_Type_free(&red_dt[3]);
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
    packed_crossing();
    packed_counts();
    long_messages();
    collectives();
    more_collectives();
    user_and_persistent();
    intercommunicators();
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
