// The conversions every non-MPICH front shares (see "ABI fronts" in the
// README). A front's C code (capi/zz_front_<abi>.c, generated, and
// capi/front_<abi>.c, hand-written) includes its own public mpi.h first,
// then its front_<abi>.h, which includes this file. Below, MPI_X is always
// the front's value (from the front's header) and GMPI_X the value the
// inner layer speaks: the MPICH ABI of include/mpi.h, which is what the
// generated PMPI_X of capi/zz_pmpi.c (renamed gmpi_inner_X in a front
// build) and the Go runtime behind them understand.
//
// A front header must provide, besides its mpi.h, these functions:
//   int   fr_h_in(const void *h)        front handle -> inner handle
//   void *fr_h_out(int h, int kind)     inner handle -> front handle
//   void  fr_status_out(const struct gmpi_status *, MPI_Status *)
//   void  fr_status_in(const MPI_Status *, struct gmpi_status *)
// and the sentinels FR_STATUS_IGNORE, FR_STATUSES_IGNORE.

#ifndef GMPI_FRONT_H
#define GMPI_FRONT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The inner MPI_Status (MPICH's layout).
struct gmpi_status {
    int count_lo;
    int count_hi_and_cancelled;
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
};

// A status field the inner layer did not write keeps this value: the
// front then leaves the caller's field alone (MPI_ERROR is written only by
// the calls that complete several requests; a status of a test that found
// nothing is not written at all).
#define FR_UNSET ((int)0x80000007)

static inline void fr_status_blank(struct gmpi_status *s, long n)
{
    for (long i = 0; i < n; i++) {
        s[i].MPI_SOURCE = FR_UNSET;
        s[i].MPI_ERROR = FR_UNSET;
    }
}

static inline void fr_status_init(struct gmpi_status *s)
{
    memset(s, 0, sizeof *s);
    fr_status_blank(s, 1);
}

// Inner (MPICH ABI) constants.
#define GMPI_PROC_NULL (-1)
#define GMPI_ANY_SOURCE (-2)
#define GMPI_ROOT (-3)
#define GMPI_ANY_TAG (-1)
#define GMPI_UNDEFINED (-32766)
#define GMPI_IN_PLACE ((void *)-1)
#define GMPI_BOTTOM ((void *)0)
#define GMPI_STATUS_IGNORE ((void *)1)
#define GMPI_STATUSES_IGNORE ((void *)1)
#define GMPI_KEYVAL_INVALID 0x24000000
#define GMPI_MAX_ERROR_STRING 512
#define GMPI_MAX_OBJECT_NAME 128
#define GMPI_MAX_LIBRARY_VERSION_STRING 8192
#define GMPI_MAX_INFO_KEY 255
#define GMPI_MAX_INFO_VAL 1024
#define GMPI_ERR_LASTCODE 0x3fffffff
#define GMPI_MAX_PROCESSOR_NAME 128

// What an express function (gmpi_express_X: capi/express.c, capi/cshm.c)
// returns when it leaves the call to the Go shim.
#define GMPI_EXPRESS_DECLINED (-1)

#include "front_kinds.h"
#include "altstack.h"

// The inner layer, declared with plain C types (the front's mpi.h spells
// the same names differently).
extern int gmpi_inner_Comm_size(int comm, void *size);
extern int gmpi_inner_Comm_remote_size(int comm, void *size);
extern int gmpi_inner_Comm_test_inter(int comm, void *flag);
extern int gmpi_inner_Topo_test(int comm, void *status);
extern int gmpi_inner_Graph_neighbors_count(int comm, int rank, void *n);
extern int gmpi_inner_Dist_graph_neighbors_count(int comm, void *in, void *out, void *weighted);
extern int gmpi_inner_Cartdim_get(int comm, void *ndims);
extern int gmpi_inner_Comm_rank(int comm, void *rank);
extern int gmpi_unsupported(const char *name, int comm);
extern int gmpi_raise_arg(const char *name, const char *msg);
extern int *gmpi_mpich_unweighted(void);
extern int *gmpi_mpich_weights_empty(void);
extern void *gmpi_mpich_pvar_all_handles(void);

// Error classes: X(name, inner value); the front's header defines every
// name (with its own value).
#define GMPI_ERR_CLASSES(X)                                                              \
    X(MPI_SUCCESS, 0) X(MPI_ERR_BUFFER, 1) X(MPI_ERR_COUNT, 2) X(MPI_ERR_TYPE, 3)         \
    X(MPI_ERR_TAG, 4) X(MPI_ERR_COMM, 5) X(MPI_ERR_RANK, 6) X(MPI_ERR_ROOT, 7)            \
    X(MPI_ERR_GROUP, 8) X(MPI_ERR_OP, 9) X(MPI_ERR_TOPOLOGY, 10) X(MPI_ERR_DIMS, 11)      \
    X(MPI_ERR_ARG, 12) X(MPI_ERR_UNKNOWN, 13) X(MPI_ERR_TRUNCATE, 14)                     \
    X(MPI_ERR_OTHER, 15) X(MPI_ERR_INTERN, 16) X(MPI_ERR_IN_STATUS, 17)                   \
    X(MPI_ERR_PENDING, 18) X(MPI_ERR_REQUEST, 19) X(MPI_ERR_ACCESS, 20)                   \
    X(MPI_ERR_AMODE, 21) X(MPI_ERR_BAD_FILE, 22) X(MPI_ERR_CONVERSION, 23)                \
    X(MPI_ERR_DUP_DATAREP, 24) X(MPI_ERR_FILE_EXISTS, 25) X(MPI_ERR_FILE_IN_USE, 26)      \
    X(MPI_ERR_FILE, 27) X(MPI_ERR_INFO, 28) X(MPI_ERR_INFO_KEY, 29)                       \
    X(MPI_ERR_INFO_VALUE, 30) X(MPI_ERR_INFO_NOKEY, 31) X(MPI_ERR_IO, 32)                 \
    X(MPI_ERR_NAME, 33) X(MPI_ERR_NO_MEM, 34) X(MPI_ERR_NOT_SAME, 35)                     \
    X(MPI_ERR_NO_SPACE, 36) X(MPI_ERR_NO_SUCH_FILE, 37) X(MPI_ERR_PORT, 38)               \
    X(MPI_ERR_QUOTA, 39) X(MPI_ERR_READ_ONLY, 40) X(MPI_ERR_SERVICE, 41)                  \
    X(MPI_ERR_SPAWN, 42) X(MPI_ERR_UNSUPPORTED_DATAREP, 43)                               \
    X(MPI_ERR_UNSUPPORTED_OPERATION, 44) X(MPI_ERR_WIN, 45) X(MPI_ERR_BASE, 46)           \
    X(MPI_ERR_LOCKTYPE, 47) X(MPI_ERR_KEYVAL, 48) X(MPI_ERR_RMA_CONFLICT, 49)             \
    X(MPI_ERR_RMA_SYNC, 50) X(MPI_ERR_SIZE, 51) X(MPI_ERR_DISP, 52) X(MPI_ERR_ASSERT, 53) \
    X(MPI_ERR_RMA_RANGE, 55) X(MPI_ERR_RMA_ATTACH, 56) X(MPI_ERR_RMA_SHARED, 57)          \
    X(MPI_ERR_RMA_FLAVOR, 58) X(MPI_T_ERR_MEMORY, 59) X(MPI_T_ERR_NOT_INITIALIZED, 60)    \
    X(MPI_T_ERR_CANNOT_INIT, 61) X(MPI_T_ERR_INVALID_INDEX, 62)                           \
    X(MPI_T_ERR_INVALID_ITEM, 63) X(MPI_T_ERR_INVALID_HANDLE, 64)                         \
    X(MPI_T_ERR_OUT_OF_HANDLES, 65) X(MPI_T_ERR_OUT_OF_SESSIONS, 66)                      \
    X(MPI_T_ERR_INVALID_SESSION, 67) X(MPI_T_ERR_CVAR_SET_NOT_NOW, 68)                    \
    X(MPI_T_ERR_CVAR_SET_NEVER, 69) X(MPI_T_ERR_PVAR_NO_STARTSTOP, 70)                    \
    X(MPI_T_ERR_PVAR_NO_WRITE, 71) X(MPI_T_ERR_PVAR_NO_ATOMIC, 72)                        \
    X(MPI_T_ERR_INVALID_NAME, 73) X(MPI_T_ERR_INVALID, 74) X(MPI_ERR_SESSION, 75)         \
    X(MPI_ERR_PROC_ABORTED, 76) X(MPI_ERR_VALUE_TOO_LARGE, 77)                            \
    X(MPI_T_ERR_NOT_SUPPORTED, 78)

// Error codes: classes are translated, other codes (gmpi's registered
// codes, user codes and classes, all above 127) pass unchanged.
static inline int fr_err_out(int c)
{
    if (c == 0)
        return MPI_SUCCESS; // the common case, without the table
    if (c < 0 || c > 127)
        return c;
    switch (c) {
#define FR_X(name, v) case v: return name;
        GMPI_ERR_CLASSES(FR_X)
#undef FR_X
    }
    return c;
}

// Any value may be a front's class (the standard ABI's MPI_T classes are
// above 1000); no inner code has the low bits of those. A value in the
// inner classes' range that is not one of the front's classes is no error
// code of the front: it becomes one the inner layer rejects (not the inner
// class of that number).
#define FR_NOT_A_CODE (-1000000)
static inline int fr_err_in(int c)
{
#define FR_X(name, v) if (c == name) return v;
    GMPI_ERR_CLASSES(FR_X)
#undef FR_X
    if (c > 0 && c <= 127)
        return FR_NOT_A_CODE - c;
    return c;
}

static inline int fr_rank_in(int r)
{
    if (r >= 0)
        return r;
    if (r == MPI_ANY_SOURCE)
        return GMPI_ANY_SOURCE;
    if (r == MPI_PROC_NULL)
        return GMPI_PROC_NULL;
    if (r == MPI_ROOT)
        return GMPI_ROOT;
    if (r == GMPI_ANY_SOURCE || r == GMPI_PROC_NULL || r == GMPI_ROOT)
        return -1000; // a front's invalid rank must not become a valid inner one
    return r;
}

static inline int fr_rank_out(int r)
{
    if (r >= 0)
        return r;
    if (r == GMPI_ANY_SOURCE)
        return MPI_ANY_SOURCE;
    if (r == GMPI_PROC_NULL)
        return MPI_PROC_NULL;
    if (r == GMPI_ROOT)
        return MPI_ROOT;
    return r;
}

static inline int fr_tag_in(int t) { return t == MPI_ANY_TAG ? GMPI_ANY_TAG : t; }
static inline int fr_tag_out(int t) { return t == GMPI_ANY_TAG ? MPI_ANY_TAG : t; }

static inline void *fr_buf_in(const void *p)
{
    if (p == MPI_IN_PLACE)
        return GMPI_IN_PLACE;
    if (p == MPI_BOTTOM)
        return GMPI_BOTTOM;
    return (void *)p;
}

static inline void *fr_weights_in(const void *p)
{
    if (p == (const void *)MPI_UNWEIGHTED)
        return gmpi_mpich_unweighted();
    if (p == (const void *)MPI_WEIGHTS_EMPTY)
        return gmpi_mpich_weights_empty();
    return (void *)p;
}

// Attribute keyvals: the predefined ones by table, the ones MPI creates
// unchanged (inner keyvals are far from every front's predefined ones).
#define GMPI_KEYVALS(X)                                                                   \
    X(MPI_TAG_UB, 0x64400001) X(MPI_HOST, 0x64400003) X(MPI_IO, 0x64400005)               \
    X(MPI_WTIME_IS_GLOBAL, 0x64400007) X(MPI_UNIVERSE_SIZE, 0x64400009)                   \
    X(MPI_LASTUSEDCODE, 0x6440000b) X(MPI_APPNUM, 0x6440000d) X(MPI_WIN_BASE, 0x66000001) \
    X(MPI_WIN_SIZE, 0x66000003) X(MPI_WIN_DISP_UNIT, 0x66000005)                          \
    X(MPI_WIN_CREATE_FLAVOR, 0x66000007) X(MPI_WIN_MODEL, 0x66000009)                     \
    X(MPI_KEYVAL_INVALID, GMPI_KEYVAL_INVALID)

static inline int fr_keyval_in(int k)
{
#define FR_X(name, v) if (k == (name)) return v;
    GMPI_KEYVALS(FR_X)
#undef FR_X
    return k;
}

static inline int fr_keyval_out(int k)
{
#define FR_X(name, v) if (k == (v)) return name;
    GMPI_KEYVALS(FR_X)
#undef FR_X
    return k;
}

// Enumerations passed as int: X(name, inner value) per family.
#define GMPI_COMBINERS(X)                                                                 \
    X(MPI_COMBINER_NAMED, 1) X(MPI_COMBINER_DUP, 2) X(MPI_COMBINER_CONTIGUOUS, 3)         \
    X(MPI_COMBINER_VECTOR, 4) X(MPI_COMBINER_HVECTOR, 6) X(MPI_COMBINER_INDEXED, 7)       \
    X(MPI_COMBINER_HINDEXED, 9) X(MPI_COMBINER_INDEXED_BLOCK, 10)                         \
    X(MPI_COMBINER_STRUCT, 12) X(MPI_COMBINER_SUBARRAY, 13) X(MPI_COMBINER_DARRAY, 14)    \
    X(MPI_COMBINER_F90_REAL, 15) X(MPI_COMBINER_F90_COMPLEX, 16)                          \
    X(MPI_COMBINER_F90_INTEGER, 17) X(MPI_COMBINER_RESIZED, 18)                           \
    X(MPI_COMBINER_HINDEXED_BLOCK, 19)
#define GMPI_ORDERS(X) X(MPI_ORDER_C, 56) X(MPI_ORDER_FORTRAN, 57)
#define GMPI_DISTRIBS(X)                                                                  \
    X(MPI_DISTRIBUTE_BLOCK, 121) X(MPI_DISTRIBUTE_CYCLIC, 122) X(MPI_DISTRIBUTE_NONE, 123)
#define GMPI_DARGS(X) X(MPI_DISTRIBUTE_DFLT_DARG, -49767)
#define GMPI_LOCKS(X) X(MPI_LOCK_EXCLUSIVE, 234) X(MPI_LOCK_SHARED, 235)
#define GMPI_TOPOS(X) X(MPI_GRAPH, 1) X(MPI_CART, 2) X(MPI_DIST_GRAPH, 3)
#ifndef GMPI_SPLITS
#define GMPI_SPLITS(X) X(MPI_COMM_TYPE_SHARED, 1)
#endif
#define GMPI_TYPECLASSES(X)                                                               \
    X(MPI_TYPECLASS_REAL, 1) X(MPI_TYPECLASS_INTEGER, 2) X(MPI_TYPECLASS_COMPLEX, 3)
#define GMPI_COMPARES(X) X(MPI_IDENT, 0) X(MPI_CONGRUENT, 1) X(MPI_SIMILAR, 2) X(MPI_UNEQUAL, 3)
#define GMPI_THREADS(X)                                                                   \
    X(MPI_THREAD_SINGLE, 0) X(MPI_THREAD_FUNNELED, 1) X(MPI_THREAD_SERIALIZED, 2)         \
    X(MPI_THREAD_MULTIPLE, 3)

// An enumeration value of the front that is not in the table becomes an
// inner value that no table holds, so the inner layer rejects it.
#define FR_ENUM(fam, LIST)                                                                \
    static inline int fr_##fam##_in(int x)                                                \
    {                                                                                     \
        if (x == MPI_UNDEFINED)                                                           \
            return GMPI_UNDEFINED;                                                        \
        LIST(FR_ENUM_IN)                                                                  \
        return -77777;                                                                    \
    }                                                                                     \
    static inline int fr_##fam##_out(int x)                                               \
    {                                                                                     \
        if (x == GMPI_UNDEFINED)                                                          \
            return MPI_UNDEFINED;                                                         \
        LIST(FR_ENUM_OUT)                                                                 \
        return x;                                                                         \
    }
#define FR_ENUM_IN(name, v) if (x == (name)) return v;
#define FR_ENUM_OUT(name, v) if (x == (v)) return name;
// The tool interface's enumerations (MPI_T_cb_safety and
// MPI_T_source_order are enum types in every header; the others int).
#define GMPI_T_VERBOSITIES(X)                                                             \
    X(MPI_T_VERBOSITY_USER_BASIC, 221) X(MPI_T_VERBOSITY_USER_DETAIL, 222)                 \
    X(MPI_T_VERBOSITY_USER_ALL, 223) X(MPI_T_VERBOSITY_TUNER_BASIC, 224)                   \
    X(MPI_T_VERBOSITY_TUNER_DETAIL, 225) X(MPI_T_VERBOSITY_TUNER_ALL, 226)                 \
    X(MPI_T_VERBOSITY_MPIDEV_BASIC, 227) X(MPI_T_VERBOSITY_MPIDEV_DETAIL, 228)             \
    X(MPI_T_VERBOSITY_MPIDEV_ALL, 229)
#define GMPI_T_BINDS(X)                                                                   \
    X(MPI_T_BIND_NO_OBJECT, 9700) X(MPI_T_BIND_MPI_COMM, 9701)                             \
    X(MPI_T_BIND_MPI_DATATYPE, 9702) X(MPI_T_BIND_MPI_ERRHANDLER, 9703)                    \
    X(MPI_T_BIND_MPI_FILE, 9704) X(MPI_T_BIND_MPI_GROUP, 9705) X(MPI_T_BIND_MPI_OP, 9706)   \
    X(MPI_T_BIND_MPI_REQUEST, 9707) X(MPI_T_BIND_MPI_WIN, 9708)                            \
    X(MPI_T_BIND_MPI_MESSAGE, 9709) X(MPI_T_BIND_MPI_INFO, 9710)
#define GMPI_T_SCOPES(X)                                                                  \
    X(MPI_T_SCOPE_CONSTANT, 60438) X(MPI_T_SCOPE_READONLY, 60439)                          \
    X(MPI_T_SCOPE_LOCAL, 60440) X(MPI_T_SCOPE_GROUP, 60441) X(MPI_T_SCOPE_GROUP_EQ, 60442) \
    X(MPI_T_SCOPE_ALL, 60443) X(MPI_T_SCOPE_ALL_EQ, 60444)
#define GMPI_T_PVAR_CLASSES(X)                                                            \
    X(MPI_T_PVAR_CLASS_STATE, 240) X(MPI_T_PVAR_CLASS_LEVEL, 241)                          \
    X(MPI_T_PVAR_CLASS_SIZE, 242) X(MPI_T_PVAR_CLASS_PERCENTAGE, 243)                      \
    X(MPI_T_PVAR_CLASS_HIGHWATERMARK, 244) X(MPI_T_PVAR_CLASS_LOWWATERMARK, 245)           \
    X(MPI_T_PVAR_CLASS_COUNTER, 246) X(MPI_T_PVAR_CLASS_AGGREGATE, 247)                    \
    X(MPI_T_PVAR_CLASS_TIMER, 248) X(MPI_T_PVAR_CLASS_GENERIC, 249)
#define GMPI_T_SAFETIES(X)                                                                \
    X(MPI_T_CB_REQUIRE_NONE, 0) X(MPI_T_CB_REQUIRE_MPI_RESTRICTED, 1)                      \
    X(MPI_T_CB_REQUIRE_THREAD_SAFE, 2) X(MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 3)
#define GMPI_T_ORDERS(X) X(MPI_T_SOURCE_ORDERED, 0) X(MPI_T_SOURCE_UNORDERED, 1)

FR_ENUM(combiner, GMPI_COMBINERS)
FR_ENUM(order, GMPI_ORDERS)
FR_ENUM(distrib, GMPI_DISTRIBS)
FR_ENUM(lock, GMPI_LOCKS)
FR_ENUM(topo, GMPI_TOPOS)
FR_ENUM(split, GMPI_SPLITS)
FR_ENUM(typeclass, GMPI_TYPECLASSES)
FR_ENUM(compare, GMPI_COMPARES)
FR_ENUM(thread, GMPI_THREADS)
FR_ENUM(tverb, GMPI_T_VERBOSITIES)
FR_ENUM(tbind, GMPI_T_BINDS)
FR_ENUM(tscope, GMPI_T_SCOPES)
FR_ENUM(tclass, GMPI_T_PVAR_CLASSES)
FR_ENUM(tsafety, GMPI_T_SAFETIES)
FR_ENUM(torder, GMPI_T_ORDERS)

// MPI_T_PVAR_ALL_HANDLES: the front's constant is the inner one's address.
static inline void *fr_pvar_handle_in(const void *h)
{
    return h == (const void *)MPI_T_PVAR_ALL_HANDLES ? gmpi_mpich_pvar_all_handles() : (void *)h;
}

// Buffered sends: a front's header promises MPI_BSEND_OVERHEAD bytes per
// message, the inner layer needs GMPI_BSEND_OVERHEAD; an attached buffer
// is presented to the inner layer smaller by the difference, so that
// exactly the messages the front's arithmetic allows fit.
#define GMPI_BSEND_OVERHEAD 96
#define FR_BSEND_DELTA (MPI_BSEND_OVERHEAD - GMPI_BSEND_OVERHEAD)
static inline int fr_bsize_in(int s) { return s > FR_BSEND_DELTA ? s - FR_BSEND_DELTA : s; }
static inline int fr_bsize_out(int s) { return s > 0 ? s + FR_BSEND_DELTA : s; }

static inline int fr_darg_in(int x)
{
    return x == MPI_DISTRIBUTE_DFLT_DARG ? -49767 : x;
}

// RMA assertions: a bit set.
#define GMPI_ASSERTS(X)                                                                   \
    X(MPI_MODE_NOCHECK, 1024) X(MPI_MODE_NOSTORE, 2048) X(MPI_MODE_NOPUT, 4096)           \
    X(MPI_MODE_NOPRECEDE, 8192) X(MPI_MODE_NOSUCCEED, 16384)

static inline int fr_assert_in(int a)
{
    int r = 0;
#define FR_X(name, v)                                                                     \
    if (a & (name)) {                                                                     \
        r |= v;                                                                           \
        a &= ~(name);                                                                     \
    }
    GMPI_ASSERTS(FR_X)
#undef FR_X
    return r | (a ? 1 << 30 : 0); // unknown bits stay an error
}

// Temporary arrays for converted handle and status arrays: on the stack
// when small, else on the heap.
#define FR_SMALL 32

static inline void *fr_tmp(void *small, size_t smallbytes, long n, size_t elem)
{
    if (n <= 0)
        return small;
    if ((size_t)n * elem <= smallbytes)
        return small;
    void *p = calloc((size_t)n, elem);
    if (!p) {
        fprintf(stderr, "gmpi: out of memory converting an array of %ld handles or statuses\n", n);
        abort();
    }
    return p;
}

static inline void fr_tmp_free(void *p, void *small)
{
    if (p != small)
        free(p);
}

// fr_str_out copies an inner string into a front buffer of cap bytes,
// truncating, and fixes the length the call reported.
static inline void fr_str_out(char *dst, const char *src, int srccap, int cap, int *resultlen)
{
    if (!dst)
        return;
    if (srccap < cap)
        cap = srccap;
    size_t n = strnlen(src, (size_t)cap - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
    if (resultlen)
        *resultlen = (int)n;
}

// The number of datatypes an alltoallw-style call reads: the (remote)
// group size, or a neighborhood degree (in: 1 for receives, 0 for sends).
static inline long fr_wsize(int comm)
{
    int inter = 0, n = 0;
    if (gmpi_inner_Comm_test_inter(comm, &inter) != 0)
        return 0;
    if (inter)
        gmpi_inner_Comm_remote_size(comm, &n);
    else
        gmpi_inner_Comm_size(comm, &n);
    return n;
}

static inline long fr_degree(int comm, int in)
{
    int topo = 0, n = 0, rank = 0;
    if (gmpi_inner_Topo_test(comm, &topo) != 0)
        return 0;
    switch (topo) {
    case 1: // MPI_GRAPH
        gmpi_inner_Comm_rank(comm, &rank);
        gmpi_inner_Graph_neighbors_count(comm, rank, &n);
        return n;
    case 2: // MPI_CART
        gmpi_inner_Cartdim_get(comm, &n);
        return 2L * n;
    case 3: { // MPI_DIST_GRAPH
        int indeg = 0, outdeg = 0, w = 0;
        gmpi_inner_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &w);
        return in ? indeg : outdeg;
    }
    }
    return 0;
}

// A handle output the inner layer may write again when a nonblocking call
// completes (MPI_Comm_idup's newcomm: its handle at the call, the inner
// null handle at completion if the operation failed): the inner layer
// gets the int of the caller's handle slot that holds the low half of a
// pointer and the slot is zeroed first, so a created inner handle (>=
// 2^31, zero-extended in every front) becomes the front's handle by
// itself, whenever it is written. A null handle written at completion
// stays the inner one: it still converts back (fr_h_in) but does not
// compare equal to the front's null handle.
static inline int *fr_deferred_handle_int(void *slot)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (int *)slot + 1;
#else
    return (int *)slot;
#endif
}

static inline int *fr_deferred_handle(void *slot)
{
    memset(slot, 0, sizeof(void *));
    return fr_deferred_handle_int(slot);
}

// Info keys and values longer than the front allows: FR_INFO_KEY_LIMIT is
// the longest key the front accepts (front_<abi>.h; Open MPI refuses a key
// of MPI_MAX_INFO_KEY characters, which its MPI_MAX_INFO_KEY-byte buffers
// could not hold). gmpi_raise_class raises an inner class through
// MPI_COMM_WORLD's error handler, as the inner info calls do.
extern int gmpi_raise_class(const char *name, int cls, const char *msg);
#ifndef FR_INFO_KEY_LIMIT
#define FR_INFO_KEY_LIMIT MPI_MAX_INFO_KEY
#endif
static inline int fr_info_key_long(const char *k)
{
    return FR_INFO_KEY_LIMIT < GMPI_MAX_INFO_KEY && k && strnlen(k, FR_INFO_KEY_LIMIT + 1) > FR_INFO_KEY_LIMIT;
}
static inline int fr_info_val_long(const char *v)
{
    return MPI_MAX_INFO_VAL < GMPI_MAX_INFO_VAL && v && strnlen(v, MPI_MAX_INFO_VAL + 1) > MPI_MAX_INFO_VAL;
}

// Values of predefined attributes that differ between the ABIs: the
// inner value is a pointer to an inner int; the caller gets a pointer to
// the front's value instead (constant storage: callers only read it).
#define GMPI_WIN_FLAVORS(X)                                                               \
    X(MPI_WIN_FLAVOR_CREATE, 1) X(MPI_WIN_FLAVOR_ALLOCATE, 2) X(MPI_WIN_FLAVOR_DYNAMIC, 3) \
    X(MPI_WIN_FLAVOR_SHARED, 4)
#define GMPI_WIN_MODELS(X) X(MPI_WIN_SEPARATE, 1) X(MPI_WIN_UNIFIED, 2)
static const int fr_attr_consts[] = {
    MPI_PROC_NULL, MPI_ANY_SOURCE,
#define FR_X(name, v) name,
    GMPI_WIN_FLAVORS(FR_X) GMPI_WIN_MODELS(FR_X)
#undef FR_X
    MPI_ERR_LASTCODE,
};

static inline void fr_attr_val_out(int key, void *attribute_val)
{
    const int **pp = (const int **)attribute_val;
    const int *c = fr_attr_consts;
    int v;
    switch (key) { // only the predefined keys' values are pointers to ints
    case 0x64400003:
    case 0x64400005:
    case 0x66000007:
    case 0x66000009:
    case 0x6440000b:
        if (!pp || !*pp)
            return;
        v = **pp;
        break;
    default:
        return;
    }
    switch (key) {
    case 0x64400003: // MPI_HOST
    case 0x64400005: // MPI_IO
        if (v == GMPI_PROC_NULL)
            *pp = &c[0];
        else if (v == GMPI_ANY_SOURCE)
            *pp = &c[1];
        return;
    case 0x66000007: // MPI_WIN_CREATE_FLAVOR
        if (v >= 1 && v <= 4)
            *pp = &c[2 + v - 1];
        return;
    case 0x66000009: // MPI_WIN_MODEL
        if (v >= 1 && v <= 2)
            *pp = &c[6 + v - 1];
        return;
    case 0x6440000b: // MPI_LASTUSEDCODE
        if (v == GMPI_ERR_LASTCODE)
            *pp = &c[8];
        return;
    }
}

// Group_translate_ranks' output: MPI_UNDEFINED and MPI_PROC_NULL.
static inline int fr_rank_undef_out(int r)
{
    return r == GMPI_UNDEFINED ? MPI_UNDEFINED : fr_rank_out(r);
}

static inline long fr_sum(int n, const int *a)
{
    long s = 0;
    for (int i = 0; a && i < n; i++)
        if (a[i] > 0)
            s += a[i];
    return s;
}

#endif
