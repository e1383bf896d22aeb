/* rma_shared: MPI_Win_allocate_shared (contiguous and noncontiguous
 * layouts) with neighbours writing each other's segments by plain stores
 * through MPI_Win_shared_query pointers; then a passive-target epoch
 * against a target that computes without calling MPI until the data of
 * the other ranks' puts and accumulates appear in its memory (across
 * hosts too, under rma_hosts.sh: the shared windows then span the
 * processes of each host). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mtest.h"

#define N 100

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Shared windows over the processes of this host (all of them, but
     * under rma_hosts.sh, whose world spans hosts). */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    {
    int rank, size;
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int noncontig = 0; noncontig < 2; noncontig++) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", noncontig ? "true" : "false");
        int *mine;
        MPI_Win win;
        /* Rank-dependent sizes (rank 1 has none). */
        MPI_Aint sz = rank == 1 ? 0 : (N + rank) * sizeof(int);
        MPI_Win_allocate_shared(sz, sizeof(int), info, node, &mine, &win);
        MPI_Info_free(&info);
        int flavor, *fp, flag;
        MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fp, &flag);
        MTEST_CHECK(errs, flag && *fp == MPI_WIN_FLAVOR_SHARED, "flavor %d", flag ? *fp : -1);
        flavor = *fp;
        (void)flavor;
        int *model;
        MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
        MTEST_CHECK(errs, flag && *model == MPI_WIN_UNIFIED, "model");
        /* Every rank's segment through shared_query. */
        int **seg = malloc(size * sizeof(int *));
        for (int r = 0; r < size; r++) {
            MPI_Aint qs;
            int du;
            MPI_Win_shared_query(win, r, &qs, &du, &seg[r]);
            MTEST_CHECK(errs, du == sizeof(int), "disp_unit %d", du);
            MTEST_CHECK(errs, qs == (r == 1 ? 0 : (N + r) * (MPI_Aint)sizeof(int)), "size of rank %d: %ld", r, (long)qs);
            if (r == rank) MTEST_CHECK(errs, seg[r] == mine || qs == 0, "own base differs");
            if (!noncontig && r > 0 && r != 2 && seg[r - 1] && qs > 0)
                MTEST_CHECK(errs, (char *)seg[r] == (char *)seg[r - 1] + (r - 1 == 1 ? 0 : (N + r - 1) * sizeof(int)), "contiguous layout broken at rank %d", r);
        }
        /* Each rank stores into its right neighbour's segment. */
        MPI_Win_lock_all(0, win);
        for (int iter = 0; iter < 5; iter++) {
            if (right != 1)
                for (int i = 0; i < N + right; i++) seg[right][i] = rank * 10000 + iter * 100 + i % 100;
            MPI_Win_sync(win);
            MPI_Barrier(node);
            MPI_Win_sync(win);
            if (rank != 1)
                for (int i = 0; i < N + rank; i++)
                    MTEST_CHECK(errs, mine[i] == left * 10000 + iter * 100 + i % 100, "iter %d: mine[%d] = %d", iter, i, mine[i]);
            MPI_Barrier(node);
        }
        MPI_Win_unlock_all(win);
        free(seg);
        MPI_Win_free(&win);
    }

    }
    MPI_Comm_free(&node);

    /* Passive target: rank 0 waits for the others' data without MPI calls. */
    for (int flavor = 0; flavor < 2; flavor++) {
        int *mem;
        MPI_Win win;
        if (flavor == 0) {
            MPI_Win_allocate(size * sizeof(int) * 2, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
        } else {
            MPI_Alloc_mem(size * sizeof(int) * 2, MPI_INFO_NULL, &mem);
            MPI_Win_create(mem, size * sizeof(int) * 2, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        }
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        for (int i = 0; i < 2 * size; i++) mem[i] = 0;
        MPI_Win_unlock(rank, win);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            /* Compute until every other rank's put and accumulates landed
             * (bounded: about 60 s). */
            volatile int *v = mem;
            double t0 = MPI_Wtime(); /* not an MPI progress call in gmpi, but stay clean: */
            (void)t0;
            long spins = 0;
            for (;;) {
                int done = 1;
                for (int r = 1; r < size; r++)
                    if (v[r] != r + 1 || v[size + r] != 3 * r) done = 0;
                if (done) break;
                if (++spins > 600000) break;
                struct timespec ts = {0, 100000};
                nanosleep(&ts, NULL);
            }
            MTEST_CHECK(errs, spins <= 600000, "passive target data did not arrive while the target computed");
        } else {
            int v = rank + 1, a = rank;
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
            MPI_Win_flush(0, win);
            MPI_Accumulate(&a, 1, MPI_INT, 0, size + rank, 1, MPI_INT, MPI_SUM, win);
            MPI_Accumulate(&a, 1, MPI_INT, 0, size + rank, 1, MPI_INT, MPI_SUM, win);
            MPI_Accumulate(&a, 1, MPI_INT, 0, size + rank, 1, MPI_INT, MPI_SUM, win);
            MPI_Win_unlock(0, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_free(&win);
        if (flavor == 1) MPI_Free_mem(mem);
    }
    /* Exclusive locks held across a collective call: every rank locks
     * rank 0 exclusively, then all meet in a barrier, then each puts and
     * unlocks. A lock must not block the others' barrier (MPI_Win_lock
     * may return before the lock is granted; the put waits for it). */
    {
        int *mem;
        MPI_Win win;
        MPI_Alloc_mem(size * sizeof(int), MPI_INFO_NULL, &mem);
        for (int i = 0; i < size; i++) mem[i] = -1;
        MPI_Win_create(mem, size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        int v = 100 + rank;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            for (int r = 0; r < size; r++) MTEST_CHECK(errs, mem[r] == 100 + r, "exclusive-lock put of rank %d: %d", r, mem[r]);
            MPI_Win_unlock(0, win);
        }
        MPI_Win_free(&win);
        MPI_Free_mem(mem);
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
