/* rma_passive: passive target progress. Rank 0 exposes a window and then
 * computes without calling MPI until every origin has told it, through
 * the window itself, that it is done; the origins meanwhile lock rank 0
 * (exclusive and shared), put, get, accumulate, fetch_and_op and
 * compare_and_swap, flush and unlock. Rank 0 would spin forever (the test
 * fails on its time limit) if its operations needed it to call MPI. Then
 * rank 0 checks the results. Also run across hosts (rma_hosts.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mtest.h"

#define N 256
#define DONE (N - 1)   /* origins done (fetch_and_op on it) */
#define CNT (N - 2)    /* counter of fetch_and_op */
#define CAS (N - 3)    /* compare_and_swap target */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < N; i++) mem[i] = rank == 0 ? 5 * i : 0;
    mem[CAS] = -1;
    mem[CNT] = 0;
    mem[DONE] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        /* Compute without MPI until every origin is done (bounded). */
        volatile int *v = mem;
        double t0 = now(), sum = 0;
        long iters = 0;
        while (v[DONE] < size - 1 && now() - t0 < 30) {
            for (int k = 0; k < 1000; k++) sum += k * 0.5;
            iters++;
        }
        MTEST_CHECK(errs, v[DONE] == size - 1, "target: only %d of %d origins finished while it computed (%.1f s)", v[DONE], size - 1, now() - t0);
        if (sum < 0) printf("%g\n", sum);
    } else {
        int o = rank - 1, one = 1, old, got[4];
        int vals[4] = {rank * 100 + 1, rank * 100 + 2, rank * 100 + 3, rank * 100 + 4};
        /* Exclusive epoch: put 4 values into my slot, read them back. */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(vals, 4, MPI_INT, 0, 4 * o, 4, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Get(got, 4, MPI_INT, 0, 4 * o, 4, MPI_INT, win);
        MPI_Win_unlock(0, win);
        for (int i = 0; i < 4; i++)
            MTEST_CHECK(errs, got[i] == vals[i], "origin %d: got[%d] = %d, expected %d", rank, i, got[i], vals[i]);
        /* Shared epoch: accumulate into a common area, count, swap. */
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        int add[8];
        for (int i = 0; i < 8; i++) add[i] = rank;
        MPI_Accumulate(add, 8, MPI_INT, 0, 128, 8, MPI_INT, MPI_SUM, win);
        for (int k = 0; k < 5; k++) MPI_Fetch_and_op(&one, &old, MPI_INT, 0, CNT, MPI_SUM, win);
        int cmp = -1, res;
        MPI_Compare_and_swap(&rank, &cmp, &res, MPI_INT, 0, CAS, win);
        MPI_Win_flush(0, win);
        MPI_Get(got, 1, MPI_INT, 0, 200, 1, MPI_INT, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, DONE, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        MTEST_CHECK(errs, got[0] == 5 * 200, "origin %d: get of untouched element: %d, expected %d", rank, got[0], 1000);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int o = 0; o < size - 1 && 4 * o + 3 < 128; o++)
            for (int i = 0; i < 4; i++)
                MTEST_CHECK(errs, mem[4 * o + i] == (o + 1) * 100 + i + 1, "mem[%d] = %d, expected %d", 4 * o + i, mem[4 * o + i], (o + 1) * 100 + i + 1);
        int sum = size * (size - 1) / 2;
        for (int i = 0; i < 8; i++)
            MTEST_CHECK(errs, mem[128 + i] == 5 * (128 + i) + sum, "mem[%d] = %d, expected %d", 128 + i, mem[128 + i], 5 * (128 + i) + sum);
        MTEST_CHECK(errs, mem[CNT] == 5 * (size - 1), "counter %d, expected %d", mem[CNT], 5 * (size - 1));
        MTEST_CHECK(errs, mem[CAS] >= 1 && mem[CAS] < size, "compare_and_swap left %d", mem[CAS]);
    }
    MPI_Win_free(&win);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
