/* rma_accops: accumulate with every predefined op (on int, and
 * MPI_MAXLOC/MPI_MINLOC on the padded pair type MPI_DOUBLE_INT and on
 * MPI_2INT), accumulate ordering (replace then sum then replace from one
 * origin, in one epoch), element atomicity (every rank adds to the same
 * counters many times), exclusion by exclusive locks, large transfers (put, get and get_accumulate of
 * more than one message piece, with a derived origin type), and the
 * request forms Rget and Rget_accumulate. Every rank targets its right
 * neighbour. Also run across hosts (rma_hosts.sh). */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define NOPS 12
#define BIG (300 * 1024) /* ints: 1.2 MB */

typedef struct {
    double v;
    int i;
} dint;

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Op ops[NOPS] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND,
                        MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_REPLACE, MPI_NO_OP};
    const char *names[NOPS] = {"max", "min", "sum", "prod", "land", "band", "lor", "bor", "lxor", "bxor", "replace", "no_op"};

    /* Window: NOPS x 4 ints, 4 DOUBLE_INT, 4 2INT, 8 counters, BIG ints. */
    size_t bytes = NOPS * 4 * sizeof(int) + 4 * sizeof(dint) + 8 * sizeof(int) + 8 * sizeof(int) + BIG * sizeof(int);
    char *base;
    MPI_Win win;
    MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    int *iv = (int *)base;
    dint *dv = (dint *)(iv + NOPS * 4);
    int *pv = (int *)(dv + 4);
    int *cnt = pv + 8;
    int *big = cnt + 8;
    MPI_Aint o_iv = 0, o_dv = (char *)dv - base, o_pv = (char *)pv - base, o_cnt = (char *)cnt - base, o_big = (char *)big - base;

    /* Every op on int. */
    int tv[4] = {6, 0, -3, 12}, ov[4] = {5, 3, -3, 10};
    for (int k = 0; k < NOPS; k++)
        for (int j = 0; j < 4; j++) iv[k * 4 + j] = tv[j];
    for (int j = 0; j < 4; j++) {
        dv[j].v = j;
        dv[j].i = 10 + j;
        pv[2 * j] = j;
        pv[2 * j + 1] = 10 + j;
    }
    memset(cnt, 0, 8 * sizeof(int));
    for (int i = 0; i < BIG; i++) big[i] = rank * 7 + i;
    MPI_Win_fence(0, win);
    for (int k = 0; k < NOPS; k++)
        MPI_Accumulate(ov, 4, MPI_INT, right, o_iv + k * 4 * sizeof(int), 4, MPI_INT, ops[k], win);
    dint od[4] = {{5, 1}, {-1, 2}, {2, 3}, {3, 99}};
    MPI_Accumulate(od, 2, MPI_DOUBLE_INT, right, o_dv, 2, MPI_DOUBLE_INT, MPI_MAXLOC, win);
    MPI_Accumulate(od + 2, 2, MPI_DOUBLE_INT, right, o_dv + 2 * sizeof(dint), 2, MPI_DOUBLE_INT, MPI_MINLOC, win);
    int op2[4] = {7, 1, 0, 5};
    MPI_Accumulate(op2, 2, MPI_2INT, right, o_pv, 2, MPI_2INT, MPI_MAXLOC, win);
    MPI_Win_fence(0, win);
    for (int k = 0; k < NOPS; k++)
        for (int j = 0; j < 4; j++) {
            int t = tv[j], o = ov[j], e;
            switch (k) {
            case 0: e = t > o ? t : o; break;
            case 1: e = t < o ? t : o; break;
            case 2: e = t + o; break;
            case 3: e = t * o; break;
            case 4: e = t && o; break;
            case 5: e = t & o; break;
            case 6: e = t || o; break;
            case 7: e = t | o; break;
            case 8: e = !t != !o; break;
            case 9: e = t ^ o; break;
            case 10: e = o; break;
            default: e = t;
            }
            MTEST_CHECK(errs, iv[k * 4 + j] == e, "%s: [%d] = %d, expected %d", names[k], j, iv[k * 4 + j], e);
        }
    MTEST_CHECK(errs, dv[0].v == 5 && dv[0].i == 1 && dv[1].v == 1 && dv[1].i == 11, "maxloc double_int: (%g,%d) (%g,%d)", dv[0].v, dv[0].i, dv[1].v, dv[1].i);
    MTEST_CHECK(errs, dv[2].v == 2 && dv[2].i == 3 && dv[3].v == 3 && dv[3].i == 13, "minloc double_int: (%g,%d) (%g,%d)", dv[2].v, dv[2].i, dv[3].v, dv[3].i);
    MTEST_CHECK(errs, pv[0] == 7 && pv[1] == 1 && pv[2] == 1 && pv[3] == 11, "maxloc 2int: (%d,%d) (%d,%d)", pv[0], pv[1], pv[2], pv[3]);

    MPI_Barrier(MPI_COMM_WORLD); /* the checks before the next writes */

    /* Ordering: replace, sum, replace, sum from one origin in one epoch. */
    int a1[4] = {100, 100, 100, 100}, a2[4] = {1, 2, 3, 4}, a3[4] = {-5, -5, -5, -5};
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    for (int r = 0; r < 20; r++) {
        MPI_Accumulate(a1, 4, MPI_INT, right, o_iv, 4, MPI_INT, MPI_REPLACE, win);
        MPI_Accumulate(a2, 4, MPI_INT, right, o_iv, 4, MPI_INT, MPI_SUM, win);
        MPI_Accumulate(a3, 4, MPI_INT, right, o_iv, 4, MPI_INT, MPI_REPLACE, win);
        MPI_Accumulate(a2, 4, MPI_INT, right, o_iv, 4, MPI_INT, MPI_SUM, win);
    }
    int got[4];
    MPI_Get_accumulate(NULL, 0, MPI_INT, got, 4, MPI_INT, right, o_iv, 4, MPI_INT, MPI_NO_OP, win);
    MPI_Win_unlock(right, win);
    for (int j = 0; j < 4; j++)
        MTEST_CHECK(errs, got[j] == -5 + a2[j], "ordering: [%d] = %d, expected %d", j, got[j], -5 + a2[j]);

    /* Atomicity: every rank adds to every rank's counters. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    int ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    for (int r = 0; r < 50; r++)
        for (int t = 0; t < size; t++) {
            MPI_Accumulate(ones, 8, MPI_INT, t, o_cnt, 8, MPI_INT, MPI_SUM, win);
            int one = 1, old;
            MPI_Fetch_and_op(&one, &old, MPI_INT, t, o_cnt, MPI_SUM, win);
        }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int j = 0; j < 8; j++)
        MTEST_CHECK(errs, cnt[j] == 50 * size * (j == 0 ? 2 : 1), "atomicity: counter[%d] = %d, expected %d", j, cnt[j], 50 * size * (j == 0 ? 2 : 1));
    MPI_Barrier(MPI_COMM_WORLD); /* the checks before the next writes to counter[7] */

    /* Exclusive locks exclude: get, add one and put back rank 0's last
     * counter under an exclusive lock, 20 times on every rank. */
    for (int r = 0; r < 20; r++) {
        int v;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT, 0, o_cnt + 7 * sizeof(int), 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_INT, 0, o_cnt + 7 * sizeof(int), 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MTEST_CHECK(errs, cnt[7] == 50 * size + 20 * size, "exclusive lock: counter %d, expected %d", cnt[7], 70 * size);

    /* Large: get the left neighbour's BIG ints into every other int of a
     * buffer (vector origin), put them back doubled with an Rput-free
     * put, fetch with Rget_accumulate(SUM 1) and check. */
    int *buf = malloc(2 * BIG * sizeof(int)), *res = malloc(BIG * sizeof(int)), *onesb = malloc(BIG * sizeof(int));
    MPI_Datatype every2;
    MPI_Type_vector(BIG, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    for (int i = 0; i < BIG; i++) onesb[i] = 1;
    MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
    MPI_Request rq;
    MPI_Rget(buf, 1, every2, left, o_big, BIG, MPI_INT, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Win_unlock(left, win);
    int bad = 0;
    for (int i = 0; i < BIG; i++) bad += buf[2 * i] != left * 7 + i;
    MTEST_CHECK(errs, bad == 0, "large get: %d wrong", bad);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < BIG; i++) buf[2 * i] *= 2;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, left, 0, win);
    MPI_Put(buf, 1, every2, left, o_big, BIG, MPI_INT, win);
    MPI_Rget_accumulate(onesb, BIG, MPI_INT, res, BIG, MPI_INT, left, o_big, BIG, MPI_INT, MPI_SUM, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Win_unlock(left, win);
    bad = 0;
    for (int i = 0; i < BIG; i++) bad += res[i] != 2 * (left * 7 + i);
    MTEST_CHECK(errs, bad == 0, "large get_accumulate: %d wrong", bad);
    MPI_Barrier(MPI_COMM_WORLD);
    bad = 0;
    for (int i = 0; i < BIG; i++) bad += big[i] != 2 * (rank * 7 + i) + 1;
    MTEST_CHECK(errs, bad == 0, "large put then accumulate: %d wrong", bad);
    MPI_Type_free(&every2);
    free(buf);
    free(res);
    free(onesb);
    MPI_Win_free(&win);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
