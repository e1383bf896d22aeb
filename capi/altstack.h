/*
 * The alternate stack: every call into Go, and every express lane, runs
 * on a region deep in the calling thread's own stack instead of just below
 * the caller. A cgo callback runs the runtime's g0 work on the calling
 * thread's stack (3 KiB for a plain call, 64 KiB and more when the
 * goroutine parks) and the C lanes have frames of their own; programs
 * that read uninitialized locals (ScaLAPACK 2.2.1's testers, README) then
 * see our garbage where MPICH and Open MPI happen to leave zeros. Below
 * the caller a call now leaves only its entry's own small frame and the
 * switch's return address and saved frame pointer (tests/c/stack_scrub.c
 * checks it). That alone leaves the program's own older garbage there,
 * which the waits of MPICH and Open MPI overwrite with their frames
 * (xsllt's idle ranks read it): so after a call into Go (GMPI_ALTW) and
 * before a coll/shm lane parks (gmpi_alt_wipe_caller) 4 KiB of the
 * caller's stack below the entry are zeroed (GMPI_ALT_WIPE bytes).
 *
 * The region is the thread's stack bottom (above a 1.25 MiB gap, which
 * keeps the main thread's stack growth clear of the mapping below it),
 * so that Go's bounds for the thread's g0, taken from pthread, contain it
 * and a callback that calls MPI again (it runs on the region already:
 * its stack pointer is below the region's top) goes on where it is.
 * Threads with stacks under 4 MiB, callers already within 256 KiB of the
 * region, and GMPI_ALT_STACK=0 call directly. Cost: a thread-local load,
 * a compare and the switch (gmpi_alt_call), a few ns; the wipe some 25 ns
 * more on calls into Go.
 */
#ifndef GMPI_ALTSTACK_H
#define GMPI_ALTSTACK_H

#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
/* Top of this thread's region; 0: not looked yet; GMPI_ALT_NEVER: call directly. */
extern __thread uintptr_t gmpi_alt_top __attribute__((tls_model("initial-exec")));
#define GMPI_ALT_NEVER (~(uintptr_t)0)
#define GMPI_ALT_GAP (256UL << 10)
uintptr_t gmpi_alt_setup(void);
/* gmpi_alt_call(fn, top, args...) calls fn(args...) with the stack pointer
 * at top; up to 13 integer or pointer arguments (the most any Go export
 * or lane takes). Declared as an array, called through a pointer of the
 * callee's return type: a function declaration cast to that type would
 * draw GCC's "called through a non-compatible type" warning. */
extern char gmpi_alt_entry[] __asm__("gmpi_alt_call") __attribute__((visibility("hidden")));

#define GMPI_ALT(fn, ...) __extension__({                                              \
    uintptr_t gmpi_t_ = gmpi_alt_top;                                                  \
    if (__builtin_expect(gmpi_t_ == 0, 0))                                             \
        gmpi_t_ = gmpi_alt_setup();                                                    \
    (uintptr_t)__builtin_frame_address(0) - GMPI_ALT_GAP > gmpi_t_                     \
        ? ((__typeof__(fn(__VA_ARGS__))(*)(void *, uintptr_t, ...))(void *)gmpi_alt_entry)(     \
              (void *)(fn), gmpi_t_, ##__VA_ARGS__)                                    \
        : fn(__VA_ARGS__); })
/* A call into Go: on the region, then the caller's stack below is wiped
 * (gmpi_alt_wipe), as the waits of other libraries overwrite it. */
void gmpi_alt_wipe(void);
void gmpi_alt_wipe_caller(void);
#define GMPI_ALTW(fn, ...) __extension__({                                             \
    __typeof__(fn(__VA_ARGS__)) gmpi_r_ = GMPI_ALT(fn, ##__VA_ARGS__);                 \
    gmpi_alt_wipe();                                                                   \
    gmpi_r_; })
#else
#define GMPI_ALT(fn, ...) fn(__VA_ARGS__)
#define GMPI_ALTW(fn, ...) fn(__VA_ARGS__)
static inline void gmpi_alt_wipe_caller(void) {}
#endif

#endif
