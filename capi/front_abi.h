// The MPI-5 standard ABI front's conversions (see capi/front.h): handles
// are pointers to incomplete structs; the predefined ones are small
// integer constants (below 0x400), translated by a direct table; a handle
// the runtime creates is the inner handle itself, zero-extended (inner
// created handles are at least 0x80000000). So fr_h_in is a compare and at
// most one table load.

#ifndef GMPI_FRONT_ABI_H
#define GMPI_FRONT_ABI_H

#include "../include/abi/mpi.h"

// The split types this ABI names (front.h has the common list).
#define GMPI_SPLITS(X)                                                                    \
    X(MPI_COMM_TYPE_SHARED, 1) X(MPI_COMM_TYPE_HW_GUIDED, 2) X(MPI_COMM_TYPE_HW_UNGUIDED, 3)

// Keys of MPI_MAX_INFO_KEY (256) characters or more are refused: the
// value counts the NUL.
#define FR_INFO_KEY_LIMIT (MPI_MAX_INFO_KEY - 1)
#include "front.h"

// X(standard name, kind, inner handle).
#define GMPI_ABI_PREDEF(X) \
    X(MPI_OP_NULL, FR_OP, 0x18000000) \
    X(MPI_SUM, FR_OP, 0x58000003) \
    X(MPI_MIN, FR_OP, 0x58000002) \
    X(MPI_MAX, FR_OP, 0x58000001) \
    X(MPI_PROD, FR_OP, 0x58000004) \
    X(MPI_BAND, FR_OP, 0x58000006) \
    X(MPI_BOR, FR_OP, 0x58000008) \
    X(MPI_BXOR, FR_OP, 0x5800000a) \
    X(MPI_LAND, FR_OP, 0x58000005) \
    X(MPI_LOR, FR_OP, 0x58000007) \
    X(MPI_LXOR, FR_OP, 0x58000009) \
    X(MPI_MINLOC, FR_OP, 0x5800000b) \
    X(MPI_MAXLOC, FR_OP, 0x5800000c) \
    X(MPI_REPLACE, FR_OP, 0x5800000d) \
    X(MPI_NO_OP, FR_OP, 0x5800000e) \
    X(MPI_COMM_NULL, FR_COMM, 0x04000000) \
    X(MPI_COMM_WORLD, FR_COMM, 0x44000000) \
    X(MPI_COMM_SELF, FR_COMM, 0x44000001) \
    X(MPI_GROUP_NULL, FR_GROUP, 0x08000000) \
    X(MPI_GROUP_EMPTY, FR_GROUP, 0x48000000) \
    X(MPI_WIN_NULL, FR_WIN, 0x20000000) \
    X(MPI_FILE_NULL, FR_FILE, 0) \
    X(MPI_SESSION_NULL, FR_SESSION, 0x38000000) \
    X(MPI_MESSAGE_NULL, FR_MESSAGE, 0x2c000000) \
    X(MPI_MESSAGE_NO_PROC, FR_MESSAGE, 0x6c000000) \
    X(MPI_INFO_NULL, FR_INFO, 0x1c000000) \
    X(MPI_INFO_ENV, FR_INFO, 0x5c000001) \
    X(MPI_ERRHANDLER_NULL, FR_ERRHANDLER, 0x14000000) \
    X(MPI_ERRORS_ARE_FATAL, FR_ERRHANDLER, 0x54000000) \
    X(MPI_ERRORS_RETURN, FR_ERRHANDLER, 0x54000001) \
    X(MPI_ERRORS_ABORT, FR_ERRHANDLER, 0x54000003) \
    X(MPI_REQUEST_NULL, FR_REQUEST, 0x2c000000) \
    X(MPI_DATATYPE_NULL, FR_DATATYPE, 0x0c000000) \
    X(MPI_AINT, FR_DATATYPE, 0x4c000843) \
    X(MPI_COUNT, FR_DATATYPE, 0x4c000845) \
    X(MPI_OFFSET, FR_DATATYPE, 0x4c000844) \
    X(MPI_PACKED, FR_DATATYPE, 0x4c00010f) \
    X(MPI_SHORT, FR_DATATYPE, 0x4c000203) \
    X(MPI_INT, FR_DATATYPE, 0x4c000405) \
    X(MPI_LONG, FR_DATATYPE, 0x4c000807) \
    X(MPI_LONG_LONG, FR_DATATYPE, 0x4c000809) \
    X(MPI_UNSIGNED_SHORT, FR_DATATYPE, 0x4c000204) \
    X(MPI_UNSIGNED, FR_DATATYPE, 0x4c000406) \
    X(MPI_UNSIGNED_LONG, FR_DATATYPE, 0x4c000808) \
    X(MPI_UNSIGNED_LONG_LONG, FR_DATATYPE, 0x4c000819) \
    X(MPI_FLOAT, FR_DATATYPE, 0x4c00040a) \
    X(MPI_C_FLOAT_COMPLEX, FR_DATATYPE, 0x4c000840) \
    X(MPI_CXX_FLOAT_COMPLEX, FR_DATATYPE, 0x4c000834) \
    X(MPI_DOUBLE, FR_DATATYPE, 0x4c00080b) \
    X(MPI_C_DOUBLE_COMPLEX, FR_DATATYPE, 0x4c001041) \
    X(MPI_CXX_DOUBLE_COMPLEX, FR_DATATYPE, 0x4c001035) \
    X(MPI_LOGICAL, FR_DATATYPE, 0x4c00041d) \
    X(MPI_INTEGER, FR_DATATYPE, 0x4c00041b) \
    X(MPI_REAL, FR_DATATYPE, 0x4c00041c) \
    X(MPI_COMPLEX, FR_DATATYPE, 0x4c00081e) \
    X(MPI_DOUBLE_PRECISION, FR_DATATYPE, 0x4c00081f) \
    X(MPI_DOUBLE_COMPLEX, FR_DATATYPE, 0x4c001022) \
    X(MPI_CHARACTER, FR_DATATYPE, 0x4c00011a) \
    X(MPI_LONG_DOUBLE, FR_DATATYPE, 0x4c00100c) \
    X(MPI_C_LONG_DOUBLE_COMPLEX, FR_DATATYPE, 0x4c002042) \
    X(MPI_CXX_LONG_DOUBLE_COMPLEX, FR_DATATYPE, 0x4c002036) \
    X(MPI_FLOAT_INT, FR_DATATYPE, 0x8c000000) \
    X(MPI_DOUBLE_INT, FR_DATATYPE, 0x8c000001) \
    X(MPI_LONG_INT, FR_DATATYPE, 0x8c000002) \
    X(MPI_2INT, FR_DATATYPE, 0x4c000816) \
    X(MPI_SHORT_INT, FR_DATATYPE, 0x8c000003) \
    X(MPI_LONG_DOUBLE_INT, FR_DATATYPE, 0x8c000004) \
    X(MPI_2REAL, FR_DATATYPE, 0x4c000821) \
    X(MPI_2DOUBLE_PRECISION, FR_DATATYPE, 0x4c001023) \
    X(MPI_2INTEGER, FR_DATATYPE, 0x4c000820) \
    X(MPI_C_BOOL, FR_DATATYPE, 0x4c00013f) \
    X(MPI_CXX_BOOL, FR_DATATYPE, 0x4c000133) \
    X(MPI_WCHAR, FR_DATATYPE, 0x4c00040e) \
    X(MPI_INT8_T, FR_DATATYPE, 0x4c000137) \
    X(MPI_UINT8_T, FR_DATATYPE, 0x4c00013b) \
    X(MPI_CHAR, FR_DATATYPE, 0x4c000101) \
    X(MPI_SIGNED_CHAR, FR_DATATYPE, 0x4c000118) \
    X(MPI_UNSIGNED_CHAR, FR_DATATYPE, 0x4c000102) \
    X(MPI_BYTE, FR_DATATYPE, 0x4c00010d) \
    X(MPI_INT16_T, FR_DATATYPE, 0x4c000238) \
    X(MPI_UINT16_T, FR_DATATYPE, 0x4c00023c) \
    X(MPI_INT32_T, FR_DATATYPE, 0x4c000439) \
    X(MPI_UINT32_T, FR_DATATYPE, 0x4c00043d) \
    X(MPI_INT64_T, FR_DATATYPE, 0x4c00083a) \
    X(MPI_UINT64_T, FR_DATATYPE, 0x4c00083e) \
    X(MPI_LOGICAL1, FR_DATATYPE, 0x0c000000) \
    X(MPI_INTEGER1, FR_DATATYPE, 0x4c00012d) \
    X(MPI_LOGICAL2, FR_DATATYPE, 0x0c000000) \
    X(MPI_INTEGER2, FR_DATATYPE, 0x4c00022f) \
    X(MPI_REAL2, FR_DATATYPE, 0x0c000000) \
    X(MPI_LOGICAL4, FR_DATATYPE, 0x0c000000) \
    X(MPI_INTEGER4, FR_DATATYPE, 0x4c000430) \
    X(MPI_REAL4, FR_DATATYPE, 0x4c000427) \
    X(MPI_COMPLEX4, FR_DATATYPE, 0x0c000000) \
    X(MPI_LOGICAL8, FR_DATATYPE, 0x0c000000) \
    X(MPI_INTEGER8, FR_DATATYPE, 0x4c000831) \
    X(MPI_REAL8, FR_DATATYPE, 0x4c000829) \
    X(MPI_COMPLEX8, FR_DATATYPE, 0x4c000828) \
    X(MPI_LOGICAL16, FR_DATATYPE, 0x0c000000) \
    X(MPI_INTEGER16, FR_DATATYPE, 0x0c000000) \
    X(MPI_REAL16, FR_DATATYPE, 0x4c00102b) \
    X(MPI_COMPLEX16, FR_DATATYPE, 0x4c00102a) \
    X(MPI_COMPLEX32, FR_DATATYPE, 0x4c00202c) \

#define FR_STATUS_IGNORE ((MPI_Status *)0)
#define FR_STATUSES_IGNORE ((MPI_Status *)0)
#define FR_ABI_PREDEF_LIMIT 0x400

// Hidden: the hot path loads it directly, not through the GOT.
extern const int gmpi_abi_in[FR_ABI_PREDEF_LIMIT] __attribute__((visibility("hidden")));
extern uintptr_t gmpi_abi_predef(int h, int kind);

static inline int fr_h_in(const void *p)
{
    uintptr_t u = (uintptr_t)p;
    if (u < FR_ABI_PREDEF_LIMIT)
        return gmpi_abi_in[u];
    return (int)u;
}

static inline void *fr_h_out(int h, int kind)
{
    unsigned u = (unsigned)h;
    if ((u >> 30) >= 2) // a handle the runtime created
        return (void *)(uintptr_t)u;
    uintptr_t p = gmpi_abi_predef(h, kind);
    return (void *)(p ? p : (uintptr_t)u);
}

static inline void *fr_file_in(const void *f)
{
    return f == (const void *)MPI_FILE_NULL ? (void *)0 : (void *)f;
}

static inline MPI_File fr_file_out(void *f) { return f ? (MPI_File)f : MPI_FILE_NULL; }

static inline void fr_status_out(const struct gmpi_status *s, MPI_Status *o)
{
    if (s->MPI_SOURCE == FR_UNSET)
        return; // not written
    o->MPI_SOURCE = fr_rank_out(s->MPI_SOURCE);
    o->MPI_TAG = fr_tag_out(s->MPI_TAG);
    if (s->MPI_ERROR != FR_UNSET)
        o->MPI_ERROR = fr_err_out(s->MPI_ERROR);
    o->MPI_internal[0] = s->count_lo;
    o->MPI_internal[1] = s->count_hi_and_cancelled;
    o->MPI_internal[2] = o->MPI_internal[3] = o->MPI_internal[4] = 0;
}

static inline void fr_status_in(const MPI_Status *o, struct gmpi_status *s)
{
    s->MPI_SOURCE = fr_rank_in(o->MPI_SOURCE);
    s->MPI_TAG = fr_tag_in(o->MPI_TAG);
    s->MPI_ERROR = fr_err_in(o->MPI_ERROR);
    s->count_lo = o->MPI_internal[0];
    s->count_hi_and_cancelled = o->MPI_internal[1];
}

// File access modes: a bit set with other bits.
#define GMPI_AMODES(X)                                                                    \
    X(MPI_MODE_CREATE, 1) X(MPI_MODE_RDONLY, 2) X(MPI_MODE_WRONLY, 4) X(MPI_MODE_RDWR, 8)   \
    X(MPI_MODE_DELETE_ON_CLOSE, 16) X(MPI_MODE_UNIQUE_OPEN, 32) X(MPI_MODE_EXCL, 64)       \
    X(MPI_MODE_APPEND, 128) X(MPI_MODE_SEQUENTIAL, 256)

static inline int fr_amode_in(int a)
{
    int r = 0;
#define FR_X(name, v)                                                                     \
    if (a & (name)) {                                                                     \
        r |= v;                                                                           \
        a &= ~(name);                                                                     \
    }
    GMPI_AMODES(FR_X)
#undef FR_X
    return r | (a ? 1 << 30 : 0);
}

static inline int fr_amode_out(int a)
{
    int r = 0;
#define FR_X(name, v)                                                                     \
    if (a & (v))                                                                          \
        r |= name;
    GMPI_AMODES(FR_X)
#undef FR_X
    return r;
}

static inline int fr_whence_in(int w)
{
    switch (w) {
    case MPI_SEEK_SET:
        return 600;
    case MPI_SEEK_CUR:
        return 602;
    case MPI_SEEK_END:
        return 604;
    }
    return -77777;
}

// MPI_*_DUP_FN is (fn *)1 in this ABI: the inner one is MPIR_Dup_fn.
extern int MPIR_Dup_fn(int, int, void *, void *, void *, int *);

static inline void *fr_copyfn_in(void *fn)
{
    return fn == (void *)1 ? (void *)MPIR_Dup_fn : fn;
}

#endif
