/* The stack scrub (scrub.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "scrub.h"

#define SCRUB_MARGIN 8192UL /* never write this close to the thread's stack bound */
#define SCRUB_SENTINEL 0x9e3779b97f4a7c15ULL

/* Depths of the sentinel words below the base, shallowest first. */
static const unsigned long depths[] = {
    4UL << 10, 5UL << 10, 6UL << 10, 8UL << 10, 12UL << 10, 16UL << 10, 24UL << 10,
    32UL << 10, 48UL << 10, 64UL << 10, 96UL << 10, 128UL << 10, 192UL << 10, 256UL << 10,
};
#define NLEVELS (sizeof depths / sizeof depths[0])

static volatile int scrub_off = 1; /* GMPI_STACK_SCRUB is off by default */

void gmpi_scrub_set(int on) { scrub_off = !on; }

/* The lowest address this thread may write, or 0 before the first look. */
static __thread uintptr_t stack_lo, stack_hi;

static void stack_bounds(void)
{
    pthread_attr_t a;
    void *addr = 0;
    size_t size = 0;
    stack_lo = 1; /* looked: unknown */
    stack_hi = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return;
    if (pthread_attr_getstack(&a, &addr, &size) == 0 && size > 0) {
        stack_lo = (uintptr_t)addr;
        stack_hi = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&a);
}

/* How many levels fit above the thread's stack bound below base; off a
 * known thread stack (coroutines) only what Go itself assumes: 32 KiB. */
static unsigned long fitting_levels(uintptr_t base)
{
    if (stack_lo == 0)
        stack_bounds();
    uintptr_t lo = stack_lo, hi = stack_hi;
    if (!(base > lo && base <= hi))
        lo = base - (32UL << 10);
    unsigned long n = 0;
    while (n < NLEVELS && base - lo >= depths[n] + SCRUB_MARGIN)
        n++;
    return n;
}

__attribute__((noinline)) struct gmpi_scrub gmpi_scrub_arm(void)
{
    struct gmpi_scrub s = {0, 0};
    if (scrub_off)
        return s;
    uintptr_t base = (uintptr_t)__builtin_frame_address(0) & ~(uintptr_t)63;
    s.base = base;
    s.levels = fitting_levels(base);
    for (unsigned long i = 0; i < s.levels; i++)
        *(volatile uint64_t *)(base - depths[i]) = SCRUB_SENTINEL;
    return s;
}

/* Zero n bytes just below this function's frame. */
static __attribute__((noinline)) void zero_below(unsigned long n)
{
    char *p = __builtin_alloca(n);
#if defined(__x86_64__)
    /* Not memset: its call would leave its return address below p. */
    void *d = p;
    unsigned long c = n;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0) : "memory");
#else
    memset(p, 0, n); /* a leaf with the return address in a register */
#endif
    __asm__ volatile("" ::"r"(p) : "memory");
}

__attribute__((noinline)) void gmpi_scrub_done(struct gmpi_scrub s)
{
    if (s.base == 0)
        return;
    /* Deepest level overwritten; its next level is where Go stopped. */
    unsigned long deep = 0;
    for (unsigned long i = 0; i < s.levels; i++)
        if (*(volatile uint64_t *)(s.base - depths[i]) != SCRUB_SENTINEL)
            deep = i + 1;
    /* Down to the second intact level below the deepest overwritten one
     * (Go's frames have holes: one intact word is not proof enough; a
     * plain call dirties 3-4.5 KiB), at least the second level. */
    unsigned long to = depths[1] + 64;
    if (s.levels > 0) {
        unsigned long k = deep + 1 < s.levels ? deep + 1 : s.levels - 1;
        to = depths[k] + 64;
    }
    /* The intact sentinels below that go one by one. */
    for (unsigned long i = 0; i < s.levels; i++)
        if (depths[i] + 64 > to)
            *(volatile uint64_t *)(s.base - depths[i]) = 0;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    /* zero_below's frame sits below here; cover down to base - to. */
    unsigned long n = to + 256 - (s.base - here < to ? s.base - here : 0);
    zero_below(n);
}

__attribute__((noinline)) void gmpi_scrub_full(void)
{
    if (scrub_off)
        return;
    uintptr_t base = (uintptr_t)__builtin_frame_address(0);
    unsigned long n = fitting_levels(base);
    if (n > 0)
        zero_below(depths[n - 1]);
}
