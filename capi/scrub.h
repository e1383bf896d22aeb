/*
 * The stack scrub: a call into Go leaves the C stack below its caller
 * dirty, often deep (the cgo callback's frames, and the runtime's g0 work
 * when the goroutine parks, assists the GC or grows the heap, run on the
 * calling thread's own stack: 3 KiB for a plain call, 64 KiB and more
 * when it parks). Programs that read uninitialized locals (ScaLAPACK
 * 2.2.1's testers, README) then see our garbage where MPICH and Open MPI
 * leave the zeros of a fresh stack. So every call into Go is wrapped in
 * GMPI_SCRUBBED: gmpi_scrub_arm writes sentinel words at a few depths
 * below the caller, gmpi_scrub_done zeroes the first 4 KiB always and
 * further down to the first sentinel still intact below the deepest one
 * overwritten. GMPI_STACK_SCRUB=0 turns it off. Calls that never enter
 * Go (the express lanes) pay nothing.
 */
#ifndef GMPI_SCRUB_H
#define GMPI_SCRUB_H

struct gmpi_scrub {
    unsigned long base;   /* address the depths count from; 0: off */
    unsigned long levels; /* how many sentinel levels were written */
};

struct gmpi_scrub gmpi_scrub_arm(void);
void gmpi_scrub_done(struct gmpi_scrub s);
/* Zero the deepest level unconditionally (after MPI_Init, MPI_Finalize). */
void gmpi_scrub_full(void);
/* Set by the Go side at MPI_Init from GMPI_STACK_SCRUB. */
void gmpi_scrub_set(int on);

#define GMPI_SCRUBBED(call) __extension__({                  \
    struct gmpi_scrub gmpi_s_ = gmpi_scrub_arm();           \
    __typeof__(call) gmpi_r_ = (call);                      \
    gmpi_scrub_done(gmpi_s_);                               \
    gmpi_r_; })

static inline int gmpi_scrub_full_after(int rc)
{
    gmpi_scrub_full();
    return rc;
}

#endif
