// The Open MPI 4.x front's conversions (see capi/front.h): handles are
// pointers. A predefined handle points to an object the library exports
// under Open MPI's name and with its size, whose first int is the inner
// handle; a handle the runtime creates is the inner handle itself, zero-
// extended (inner handles of created objects are below 2^32, the objects
// are not). So fr_h_in costs a test and at most one load, no lookup.

#ifndef GMPI_FRONT_OMPI_H
#define GMPI_FRONT_OMPI_H

#include "../include/openmpi/mpi.h"

// The split types gmpi has (front.h's list has only MPI_COMM_TYPE_SHARED).
#define GMPI_SPLITS(X)                                                                    \
    X(MPI_COMM_TYPE_SHARED, 1) X(MPI_COMM_TYPE_HW_GUIDED, 2) X(MPI_COMM_TYPE_HW_UNGUIDED, 3)

// Open MPI refuses info keys of MPI_MAX_INFO_KEY characters or more.
#define FR_INFO_KEY_LIMIT (MPI_MAX_INFO_KEY - 1)
#include "front.h"

#include "front_ompi_objects.h"

struct gmpi_ompi_predefined {
    int h;
};

#define FR_STATUS_IGNORE ((MPI_Status *)0)
#define FR_STATUSES_IGNORE ((MPI_Status *)0)

static inline int fr_h_in(const void *p)
{
    uintptr_t u = (uintptr_t)p;
    if (u >> 32)
        return *(const int *)p;
    return (int)u;
}

// fr_predef returns the address programs see for a predefined object
// (front_ompi.c), or 0 when h is not predefined of that kind.
extern void *gmpi_ompi_predef(int h, int kind);

static inline void *fr_h_out(int h, int kind)
{
    unsigned u = (unsigned)h;
    if ((u >> 30) >= 2) // a handle the runtime created
        return (void *)(uintptr_t)u;
    void *p = gmpi_ompi_predef(h, kind);
    return p ? p : (void *)(uintptr_t)u;
}

// MPI_File is a pointer in both ABIs; only MPI_FILE_NULL differs.
static inline void *fr_file_in(const void *f)
{
    // The program may hold its own copy of ompi_mpi_file_null.
    if (f == (const void *)MPI_FILE_NULL || f == gmpi_ompi_predef(0, FR_FILE))
        return (void *)0;
    return (void *)f;
}

static inline MPI_File fr_file_out(void *f)
{
    return f ? (MPI_File)f : (MPI_File)gmpi_ompi_predef(0, FR_FILE);
}

static inline void fr_status_out(const struct gmpi_status *s, MPI_Status *o)
{
    if (s->MPI_SOURCE == FR_UNSET)
        return; // not written
    o->MPI_SOURCE = fr_rank_out(s->MPI_SOURCE);
    o->MPI_TAG = fr_tag_out(s->MPI_TAG);
    if (s->MPI_ERROR != FR_UNSET)
        o->MPI_ERROR = fr_err_out(s->MPI_ERROR);
    o->_cancelled = s->count_hi_and_cancelled & 1;
    o->_ucount = (size_t)(unsigned)s->count_lo |
                 (size_t)((unsigned)s->count_hi_and_cancelled >> 1) << 32;
}

static inline void fr_status_in(const MPI_Status *o, struct gmpi_status *s)
{
    s->MPI_SOURCE = fr_rank_in(o->MPI_SOURCE);
    s->MPI_TAG = fr_tag_in(o->MPI_TAG);
    s->MPI_ERROR = fr_err_in(o->MPI_ERROR);
    s->count_lo = (int)(unsigned)o->_ucount;
    s->count_hi_and_cancelled = (int)((unsigned)(o->_ucount >> 32) << 1) | (o->_cancelled ? 1 : 0);
}

// File modes, seek positions and the predefined copy callbacks are the
// same as the inner ones in this ABI.
static inline int fr_amode_in(int a) { return a; }
static inline int fr_amode_out(int a) { return a; }
static inline int fr_whence_in(int w) { return w; }
static inline void *fr_copyfn_in(void *fn) { return fn; }

#endif
