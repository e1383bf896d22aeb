//go:build gmpi_abi

// The hand-written part of the MPI-5 standard ABI front: the handle tables,
// the functions only this ABI has (MPI_Abi_get_version, MPI_Abi_get_info,
// the *_toint/*_fromint converters), the calls into user code
// (front_callbacks.inc) and the variadic MPI_Pcontrol.

#include <pthread.h>
#include <stdio.h>
#include "front_abi.h"

// Standard constant -> inner handle; 0 (no inner handle) elsewhere.
const int gmpi_abi_in[FR_ABI_PREDEF_LIMIT] = {
#define IN(name, kind, inner) [(uintptr_t)(name)] = (int)(inner),
    GMPI_ABI_PREDEF(IN)
#undef IN
};

// (kind, inner handle) -> standard constant, an open-addressed hash built
// on first use.
#define SLOTS 512
static struct {
    int used, kind, h;
    uintptr_t v;
} slots[SLOTS];
static pthread_once_t once_built = PTHREAD_ONCE_INIT;

static unsigned slot_of(int kind, int h)
{
    return ((unsigned)h * 2654435761u ^ (unsigned)kind * 40503u) % SLOTS;
}

static void add(int kind, int h, uintptr_t v)
{
    unsigned s = slot_of(kind, h);
    while (slots[s].used && !(slots[s].kind == kind && slots[s].h == h))
        s = (s + 1) % SLOTS;
    if (slots[s].used)
        return; // an alias or a type gmpi lacks: the first name wins
    slots[s].used = 1;
    slots[s].kind = kind;
    slots[s].h = h;
    slots[s].v = v;
}

static void build(void)
{
#define ADD(name, kind, inner) add(kind, (int)(inner), (uintptr_t)(name));
    GMPI_ABI_PREDEF(ADD)
#undef ADD
}

uintptr_t gmpi_abi_predef(int h, int kind)
{
    pthread_once(&once_built, build);
    unsigned s = slot_of(kind, h);
    while (slots[s].used) {
        if (slots[s].kind == kind && slots[s].h == h)
            return slots[s].v;
        s = (s + 1) % SLOTS;
    }
    return 0;
}

#include "front_callbacks.inc"
#include "front_fstatus.inc"

// --- the standard ABI's own functions -----------------------------------

#pragma weak MPI_Abi_get_version = PMPI_Abi_get_version
int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    if (!abi_major || !abi_minor)
        return fr_err_out(gmpi_raise_arg("MPI_Abi_get_version", "a version pointer is NULL"));
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}

extern int gmpi_inner_Info_create(void *info);
extern int gmpi_inner_Info_set(int info, const char *key, const char *value);

// MPI_Abi_get_info: a new info object describing the ABI (the sizes of
// the integer types the standard leaves to the platform).
#pragma weak MPI_Abi_get_info = PMPI_Abi_get_info
int PMPI_Abi_get_info(MPI_Info *info)
{
    if (!info)
        return fr_err_out(gmpi_raise_arg("MPI_Abi_get_info", "info is NULL"));
    int h = 0;
    int rc = gmpi_inner_Info_create(&h);
    if (rc != 0)
        return fr_err_out(rc);
    char buf[32];
    static const struct {
        const char *key;
        int size;
    } sizes[] = {
        {"mpi_aint_size", sizeof(MPI_Aint)},   {"mpi_count_size", sizeof(MPI_Count)},
        {"mpi_offset_size", sizeof(MPI_Offset)}, {"mpi_fint_size", sizeof(MPI_Fint)},
    };
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        snprintf(buf, sizeof buf, "%d", sizes[i].size);
        if ((rc = gmpi_inner_Info_set(h, sizes[i].key, buf)) != 0)
            return fr_err_out(rc);
    }
    *info = (MPI_Info)fr_h_out(h, FR_INFO);
    return MPI_SUCCESS;
}

// The integer of a handle is its representation: the standard constant of
// a predefined handle, the inner handle of one the runtime created; so
// fromint(toint(h)) == h for every handle.
#define TOINT(name, type)                                                                 \
    int PMPI_##name##_toint(type h) { return (int)(uintptr_t)h; }                         \
    type PMPI_##name##_fromint(int i) { return (type)(uintptr_t)(unsigned)i; }            \
    int MPI_##name##_toint(type h) __attribute__((weak, alias("PMPI_" #name "_toint")));  \
    type MPI_##name##_fromint(int i) __attribute__((weak, alias("PMPI_" #name "_fromint")));
GMPI_ABI_TOINT(TOINT)
#undef TOINT

// --- MPI_Pcontrol ------------------------------------------------------------

extern int gmpi_inner_Pcontrol(const int level, ...);

#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    return fr_err_out(gmpi_inner_Pcontrol(level));
}
