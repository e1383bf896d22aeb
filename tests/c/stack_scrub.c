/* stack_scrub: after MPI calls that enter Go (a receive that waits, a
 * large Isend with its Wait, Allreduce, Bcast, Pack, Comm_dup), the stack
 * below the caller is zero from 2 KiB to 32 KiB down, as a fresh stack is
 * under MPICH or Open MPI (capi/scrub.h; ScaLAPACK's testers read such
 * memory as uninitialized locals). The region is zeroed before each call
 * and nothing but the call runs before the probe (printf and friends use
 * kilobytes of stack themselves). It runs with GMPI_STACK_SCRUB=1; without
 * it (the default, testlist) it
 * checks the opposite, that the probe sees what the calls left there
 * (the first calls go deepest: the dynamic linker's lazy binding, the
 * runtime's first entries), so that the test can fail. Run with
 * GMPI_EXPRESS=0 (testlist): the C lanes never enter Go and are not
 * scrubbed, and their own frames (coll/shm's Allreduce) reach past 2 KiB
 * as any library's may. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FROM 2048
#define TO (32 * 1024)
#define BIG (64 * 1024)

/* Nonzero bytes between FROM and TO below this function's frame, which
 * sits where the MPI call's frames started. */
static __attribute__((noinline)) long dirty(void)
{
    uintptr_t base = (uintptr_t)__builtin_frame_address(0);
    long n = 0;
    for (uintptr_t a = base - TO; a < base - FROM; a += 8)
        if (*(volatile uint64_t *)a != 0)
            n++;
    return n;
}

/* Zero the probed region first: the dynamic linker's lazy binding of a
 * function's first call (here or in the library) leaves kilobytes of its
 * own there. memset's return address lands below the array. */
static __attribute__((noinline)) void clean(void)
{
    volatile char buf[TO + 1024];
    memset((char *)buf, 0, sizeof buf);
    __asm__ volatile("" ::"r"(buf) : "memory");
}

#define CALL(i, call) do { clean(); call; d[i] += dirty(); } while (0)

static char sbuf[BIG], rbuf[BIG], pbuf[BIG + 64];

int main(int argc, char **argv)
{
    long d[8] = {0};
    int rank, size, pos = 0;
    double x = 1, y = 0;
    MPI_Request req;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    const char *on = getenv("GMPI_STACK_SCRUB");
    int scrub = on && strcmp(on, "1") == 0; /* off by default */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(sbuf, rank + 1, sizeof sbuf);
    for (int it = 0; it < 20; it++) {
        if (rank == 0) {
            usleep(2000); /* rank 1's receive waits: its goroutine parks */
            CALL(0, MPI_Isend(sbuf, BIG, MPI_BYTE, 1, it, MPI_COMM_WORLD, &req));
            CALL(1, MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else if (rank == 1) {
            CALL(2, MPI_Recv(rbuf, BIG, MPI_BYTE, 0, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        CALL(3, MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        CALL(4, MPI_Bcast(rbuf, 8, MPI_BYTE, 0, MPI_COMM_WORLD));
        CALL(5, MPI_Bcast(rbuf, BIG, MPI_BYTE, 0, MPI_COMM_WORLD));
        pos = 0;
        CALL(6, MPI_Pack(sbuf, BIG, MPI_BYTE, pbuf, sizeof pbuf, &pos, MPI_COMM_WORLD));
        CALL(7, MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        MPI_Comm_free(&dup);
    }
    static const char *names[8] = {"Isend", "Wait", "Recv", "Allreduce", "Bcast 8 B", "Bcast 64 KiB", "Pack", "Comm_dup"};
    long total = 0;
    int errs = 0;
    for (int i = 0; i < 8; i++) {
        total += d[i];
        if (scrub && d[i] != 0) {
            printf("rank %d: %ld nonzero words left 2-32 KiB below the caller after %s\n", rank, d[i], names[i]);
            errs++;
        }
    }
    if (getenv("SS_VERBOSE")) printf("rank %d: %ld\n", rank, total);
    if (!scrub && total == 0) {
        printf("rank %d: GMPI_STACK_SCRUB off but no call left anything below the caller: the probe sees nothing\n", rank);
        errs++;
    }
    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
