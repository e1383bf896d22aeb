/* stack_scrub: after MPI calls (express-lane sends and receives, a
 * receive that waits in Go, a large Isend with its Wait, Iprobe,
 * Allreduce, Bcast small and large, Pack, Comm_dup), the stack below the
 * caller holds nothing the call left beyond the entry's own small frame:
 * with the defaults every call into Go and every express lane runs on the
 * alternate stack (capi/altstack.h), so programs that read uninitialized
 * locals (ScaLAPACK 2.2.1's testers) see what they would see under MPICH
 * or Open MPI. The region is zeroed before each call and nothing but the
 * call runs before the probe (printf and friends use kilobytes of stack
 * themselves); the first round is not counted (the dynamic linker's lazy
 * binding of each function's first call writes kilobytes there, under any
 * MPI library). With GMPI_ALT_STACK=0 (testlist) it checks the opposite,
 * that the probe sees what the calls left deep below, so that the test
 * can fail. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIMIT 512 /* bytes below the caller a call may leave words in */
#define TO (64 * 1024)
#define BIG (64 * 1024)
#define NCALLS 11

/* How deep below this function's frame, which sits where the MPI call's
 * frames started, the deepest nonzero word lies (0: none). */
static __attribute__((noinline)) long depth(void)
{
    uintptr_t base = (uintptr_t)__builtin_frame_address(0);
    for (uintptr_t a = base - TO; a < base; a += 8)
        if (*(volatile uint64_t *)a != 0)
            return (long)(base - a);
    return 0;
}

/* Zero the probed region first. memset's return address lands below the
 * array. */
static __attribute__((noinline)) void clean(void)
{
    volatile char buf[TO + 1024];
    memset((char *)buf, 0, sizeof buf);
    __asm__ volatile("" ::"r"(buf) : "memory");
}

static long d[NCALLS];
static int counting;
#define CALL(i, call)                                                                              \
    do {                                                                                           \
        clean();                                                                                   \
        call;                                                                                      \
        long x_ = depth();                                                                         \
        if (counting && x_ > d[i])                                                                 \
            d[i] = x_;                                                                             \
    } while (0)

static char sbuf[BIG], rbuf[BIG], pbuf[BIG + 64];

int main(int argc, char **argv)
{
    int rank, size, pos = 0, flag;
    double x = 1, y = 0;
    MPI_Request req;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    const char *e = getenv("GMPI_ALT_STACK");
    int alt = !(e && strcmp(e, "0") == 0); /* on by default */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(sbuf, rank + 1, sizeof sbuf);
    for (int it = 0; it < 20; it++) {
        counting = it > 0;
        if (rank == 0) {
            CALL(0, MPI_Send(sbuf, 8, MPI_BYTE, 1, it, MPI_COMM_WORLD));
            usleep(2000); /* rank 1's receive waits: its goroutine parks */
            CALL(1, MPI_Isend(sbuf, BIG, MPI_BYTE, 1, it, MPI_COMM_WORLD, &req));
            CALL(2, MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else if (rank == 1) {
            CALL(3, MPI_Recv(rbuf, 8, MPI_BYTE, 0, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CALL(4, MPI_Recv(rbuf, BIG, MPI_BYTE, 0, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        CALL(5, MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CALL(6, MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        CALL(7, MPI_Bcast(rbuf, 8, MPI_BYTE, 0, MPI_COMM_WORLD));
        CALL(8, MPI_Bcast(rbuf, BIG, MPI_BYTE, 0, MPI_COMM_WORLD));
        pos = 0;
        CALL(9, MPI_Pack(sbuf, BIG, MPI_BYTE, pbuf, sizeof pbuf, &pos, MPI_COMM_WORLD));
        CALL(10, MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        MPI_Comm_free(&dup);
    }
    static const char *names[NCALLS] = {"Send 8 B", "Isend 64 KiB", "Wait", "Recv 8 B", "Recv 64 KiB", "Iprobe",
                                        "Allreduce", "Bcast 8 B", "Bcast 64 KiB", "Pack", "Comm_dup"};
    long deepest = 0;
    int errs = 0;
    for (int i = 0; i < NCALLS; i++) {
        if (d[i] > deepest)
            deepest = d[i];
        if (alt && d[i] > LIMIT) {
            printf("rank %d: %s left a word %ld bytes below the caller (at most %d expected)\n", rank, names[i],
                   d[i], LIMIT);
            errs++;
        }
        if (getenv("SS_VERBOSE"))
            printf("rank %d: %s: %ld\n", rank, names[i], d[i]);
    }
    if (!alt && deepest <= 2048) {
        printf("rank %d: GMPI_ALT_STACK=0 but no call left anything deeper than 2 KiB below the caller: the probe sees nothing\n", rank);
        errs++;
    }
    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
