/* rma_express: small contiguous puts, gets and flushes on windows whose
 * targets are mapped in every process (allocated and shared windows of
 * one host), which the C library may complete without entering Go: the
 * data lands through every kind of epoch (lock with and without
 * MPI_MODE_NOCHECK, lock_all, fence, post/start), and once an epoch is
 * closed, or outside the window, or with types the fast path does not
 * take, the calls fail with the right class or work as before. Large
 * puts and gets (several of the lane's 128 KiB copy pieces and a rest,
 * at an odd displacement) land whole, and a put or get of a process's
 * window onto itself with overlapping ranges moves like memmove. */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define N 32

static int errs;

static void expect(int rc, int cls, const char *what)
{
    int c;
    MPI_Error_class(rc, &c);
    MTEST_CHECK(errs, c == cls, "%s: error class %d, expected %d", what, c, cls);
}

static void check(int *mem, int from, int base, const char *what)
{
    for (int i = 0; i < 4; i++)
        MTEST_CHECK(errs, mem[from + i] == base + i, "%s: element %d is %d, expected %d", what, from + i,
                    mem[from + i], base + i);
}

static void run(MPI_Win win, int *mem, int rank, int size, const char *flavor)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int v[4], got[4];
    char what[96];

    /* Lock (lazy on another process: the first put takes it), flush, get. */
    for (int i = 0; i < 4; i++) v[i] = 1000 * rank + i;
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Put(v, 4, MPI_INT, right, 0, 4, MPI_INT, win);
    MPI_Put(v, 4, MPI_INT, right, 4, 4, MPI_INT, win);
    MPI_Win_flush(right, win);
    memset(got, 0, sizeof got);
    MPI_Get(got, 4, MPI_INT, right, 4, 4, MPI_INT, win);
    MPI_Win_flush(right, win);
    MPI_Win_unlock(right, win);
    check(got, 0, 1000 * rank, "lock: got back");
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(what, sizeof what, "%s: lock", flavor);
    check(mem, 0, 1000 * left, what);
    check(mem, 4, 1000 * left, what);

    /* The epoch is closed: the same calls fail. */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    expect(MPI_Put(v, 4, MPI_INT, right, 0, 4, MPI_INT, win), MPI_ERR_RMA_SYNC, "put after unlock");
    expect(MPI_Get(got, 4, MPI_INT, right, 0, 4, MPI_INT, win), MPI_ERR_RMA_SYNC, "get after unlock");
    expect(MPI_Win_flush(right, win), MPI_ERR_RMA_SYNC, "flush after unlock");

    /* MPI_MODE_NOCHECK, out of range, mismatched types. */
    MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, win);
    for (int i = 0; i < 4; i++) v[i] = 2000 * rank + i;
    MPI_Put(v, 4, MPI_INT, right, 8, 4, MPI_INT, win);
    expect(MPI_Put(v, 4, MPI_INT, right, N - 2, 4, MPI_INT, win), MPI_ERR_RMA_RANGE, "put across the end");
    expect(MPI_Get(got, 1, MPI_INT, right, N, 1, MPI_INT, win), MPI_ERR_RMA_RANGE, "get past the end");
    expect(MPI_Put(v, 1, MPI_INT, right, -1, 1, MPI_INT, win), MPI_ERR_DISP, "negative displacement");
    expect(MPI_Put(v, 2, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_TYPE, "put of mismatched sizes");
    expect(MPI_Put(v, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK, "target rank out of range");
    expect(MPI_Win_flush(size, win), MPI_ERR_RANK, "flush of a rank out of range");
    MPI_Put(v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win);
    /* Same bytes, other types: 4 ints as 16 bytes. */
    MPI_Put(v, 16, MPI_BYTE, right, 12, 4, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(what, sizeof what, "%s: nocheck", flavor);
    check(mem, 8, 2000 * left, what);
    check(mem, 12, 2000 * left, what);

    /* lock_all. */
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 4; i++) v[i] = 3000 * rank + i;
    MPI_Put(v, 4, MPI_INT, right, 16, 4, MPI_INT, win);
    MPI_Win_flush(right, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(what, sizeof what, "%s: lock_all", flavor);
    check(mem, 16, 3000 * left, what);

    /* Fences in a row (inside a fence epoch the library may meet the
     * others without entering Go), rank 0 closing one with a lock epoch
     * between (its next fence opens an epoch, which enters Go, while the
     * others' do not), then a fence that ends the epochs. */
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int round = 0; round < 6; round++) {
        int w = 10000 * round + rank;
        if (round == 3 && rank == 0) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            MPI_Win_unlock(0, win);
        }
        MPI_Win_fence(0, win);
        MPI_Put(&w, 1, MPI_INT, right, 28, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        MTEST_CHECK(errs, mem[28] == 10000 * round + left, "%s: fence round %d: %d, expected %d", flavor, round,
                    mem[28], 10000 * round + left);
    }
    MPI_Win_fence(0, win);
    for (int i = 0; i < 4; i++) v[i] = 4000 * rank + i;
    MPI_Put(v, 4, MPI_INT, right, 20, 4, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    snprintf(what, sizeof what, "%s: fence", flavor);
    check(mem, 20, 4000 * left, what);
    expect(MPI_Put(v, 4, MPI_INT, right, 20, 4, MPI_INT, win), MPI_ERR_RMA_SYNC, "put after the last fence");

    /* post/start/complete/wait on a ring. */
    MPI_Group world, origins, targets;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &origins);
    MPI_Group_incl(world, 1, &right, &targets);
    MPI_Win_post(origins, 0, win);
    MPI_Win_start(targets, 0, win);
    for (int i = 0; i < 4; i++) v[i] = 5000 * rank + i;
    MPI_Put(v, 4, MPI_INT, right, 24, 4, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    snprintf(what, sizeof what, "%s: pscw", flavor);
    check(mem, 24, 5000 * left, what);
    expect(MPI_Put(v, 4, MPI_INT, right, 24, 4, MPI_INT, win), MPI_ERR_RMA_SYNC, "put after complete");
    MPI_Group_free(&origins);
    MPI_Group_free(&targets);
    MPI_Group_free(&world);
}

#define L (3 * 131072 + 1001) /* bytes of the large window */
#define SHIFT 1000

static unsigned char pat(int rank, int i) { return (unsigned char)(rank * 31 + i * 7 + i / 4096); }

static void large(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, bad = 0;
    unsigned char *mem, *src = malloc(L), *dst = malloc(L);
    MPI_Win win;
    MPI_Win_allocate(L, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    memset(mem, 0, L);
    for (int i = 0; i < L; i++) src[i] = pat(rank, i);

    /* Fence: put L - 3 bytes at displacement 3 of the right neighbour. */
    MPI_Win_fence(0, win);
    MPI_Put(src, L - 3, MPI_BYTE, right, 3, L - 3, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < L - 3; i++) bad += mem[3 + i] != pat(left, i);
    MTEST_CHECK(errs, bad == 0 && mem[0] == 0 && mem[2] == 0, "large put with fence: %d bytes wrong", bad);

    /* Lock_all, get back what this process put there, flush. */
    MPI_Win_lock_all(0, win);
    memset(dst, 0, L);
    MPI_Get(dst, L - 3, MPI_BYTE, right, 3, L - 3, MPI_BYTE, win);
    MPI_Win_flush(right, win);
    bad = 0;
    for (int i = 0; i < L - 3; i++) bad += dst[i] != pat(rank, i);
    MTEST_CHECK(errs, bad == 0, "large get with flush: %d bytes wrong", bad);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Onto itself, overlapping: put [0, L - SHIFT) at SHIFT (the copy
     * must run backwards), then get it back from SHIFT into [0, ...). */
    for (int i = 0; i < L; i++) mem[i] = pat(rank + 1, i);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    MPI_Put(mem, L - SHIFT, MPI_BYTE, rank, SHIFT, L - SHIFT, MPI_BYTE, win);
    MPI_Win_flush(rank, win);
    bad = 0;
    for (int i = 0; i < L - SHIFT; i++) bad += mem[SHIFT + i] != pat(rank + 1, i);
    MTEST_CHECK(errs, bad == 0, "overlapping put onto itself: %d bytes wrong", bad);
    MPI_Get(mem, L - SHIFT, MPI_BYTE, rank, SHIFT, L - SHIFT, MPI_BYTE, win);
    MPI_Win_unlock(rank, win);
    bad = 0;
    for (int i = 0; i < L - SHIFT; i++) bad += mem[i] != pat(rank + 1, i);
    MTEST_CHECK(errs, bad == 0, "overlapping get from itself: %d bytes wrong", bad);

    MPI_Win_free(&win);
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    int rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int *mem;
    MPI_Win win;
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    memset(mem, 0, N * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    run(win, mem, rank, size, "allocate");
    MPI_Win_free(&win);

    MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    memset(mem, 0, N * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    run(win, mem, rank, size, "shared");
    MPI_Win_free(&win);

    large(rank, size);

    MTest_Finalize(errs);
    return 0;
}
