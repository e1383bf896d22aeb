//go:build gmpi_ompi

// The Open MPI front's predefined objects (front_ompi_objects.h) and the
// map from an inner predefined handle back to the address programs see.
// This file does not include the front's mpi.h, which declares the same
// objects with an incomplete type.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include "front_kinds.h"
#include "front_ompi_objects.h"

// Each object: the inner handle first, then padding to Open MPI's size (a
// program's copy relocation copies this content, so the handle reads the
// same from the program's copy).
#define OBJ(sym, kind, handle, size)                                                      \
    struct {                                                                              \
        int h;                                                                            \
        char pad[(size) - sizeof(int)];                                                   \
    } sym __attribute__((aligned(64))) = {(int)(handle), {0}};
GMPI_OMPI_OBJECTS(OBJ)
#undef OBJ

struct predef {
    int kind, h;
    const char *name;
    void *own;
};

static const struct predef table[] = {
#define ENT(sym, kind, handle, size) {kind, (int)(handle), #sym, &sym},
    GMPI_OMPI_OBJECTS(ENT)
#undef ENT
};
#define NPREDEF (sizeof table / sizeof table[0])

// An open-addressed hash of (kind, handle) -> the address programs see:
// their copy of the object when the executable has one (a copy
// relocation: the library is linked -Bsymbolic, so its own references
// would name the library's copy), else the library's. When the library
// was loaded with dlopen (mpi4py), the main program's scope does not hold
// it and the library's own address is the one programs see.
#define SLOTS 512
static struct {
    int used, kind, h;
    void *addr;
} slots[SLOTS];
static pthread_once_t once_built = PTHREAD_ONCE_INIT;

static unsigned slot_of(int kind, int h)
{
    return ((unsigned)h * 2654435761u ^ (unsigned)kind * 40503u) % SLOTS;
}

static void build(void)
{
    // The main program's scope, not RTLD_DEFAULT: this library is linked
    // -Bsymbolic, and a -Bsymbolic object's own lookups find itself first.
    void *main_prog = dlopen(NULL, RTLD_NOW | RTLD_NOLOAD);
    for (unsigned i = 0; i < NPREDEF; i++) {
        const struct predef *p = &table[i];
        unsigned s = slot_of(p->kind, p->h);
        while (slots[s].used && !(slots[s].kind == p->kind && slots[s].h == p->h))
            s = (s + 1) % SLOTS;
        if (slots[s].used)
            continue; // an alias (MPI_LONG_LONG): the first name wins
        void *a = main_prog ? dlsym(main_prog, p->name) : 0;
        slots[s].used = 1;
        slots[s].kind = p->kind;
        slots[s].h = p->h;
        slots[s].addr = a ? a : p->own;
    }
}

void *gmpi_ompi_predef(int h, int kind)
{
    pthread_once(&once_built, build);
    unsigned s = slot_of(kind, h);
    while (slots[s].used) {
        if (slots[s].kind == kind && slots[s].h == h)
            return slots[s].addr;
        s = (s + 1) % SLOTS;
    }
    return 0;
}
