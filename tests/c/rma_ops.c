/* rma_ops: one-sided operations for every window flavor (create,
 * allocate, shared, dynamic) x synchronization mode (fence, post/start/
 * complete/wait, lock/unlock, lock_all/flush) x operation (put, get,
 * accumulate, get_accumulate, request forms) x target datatype class
 * (contiguous, vector, indexed, struct). Each rank puts to its right
 * neighbour, gets from its left one, and accumulates into every rank;
 * the results are checked element by element. */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define N 64 /* ints per window */

enum { F_CREATE, F_ALLOC, F_SHARED, F_DYNAMIC, NFLAVOR };
enum { S_FENCE, S_PSCW, S_LOCK, S_LOCKALL, NSYNC };
enum { T_CONTIG, T_VECTOR, T_INDEXED, T_STRUCT, NTYPE };
static const char *fname[] = {"create", "allocate", "shared", "dynamic"};
static const char *sname[] = {"fence", "pscw", "lock", "lock_all"};
static const char *tname[] = {"contiguous", "vector", "indexed", "struct"};

static int rank, size;
static MPI_Group world_group;

/* make_type builds the target type of class t and its count, and lists
 * the window elements it covers in type-map order (idx, returns how many). */
static int make_type(int t, MPI_Datatype *dt, int *count, int *idx)
{
    switch (t) {
    case T_CONTIG:
        *dt = MPI_INT;
        MPI_Type_dup(MPI_INT, dt);
        *count = 20;
        break;
    case T_VECTOR:
        MPI_Type_vector(4, 2, 3, MPI_INT, dt); /* extent 11 ints */
        *count = 5;
        break;
    case T_INDEXED: {
        int bl[3] = {1, 3, 2}, dp[3] = {0, 2, 7};
        MPI_Type_indexed(3, bl, dp, MPI_INT, dt); /* extent 9 ints */
        *count = 6;
        break;
    }
    default: {
        int bl[2] = {1, 2};
        MPI_Aint dp[2] = {4, 16};
        MPI_Datatype ty[2] = {MPI_INT, MPI_INT}, s;
        MPI_Type_create_struct(2, bl, dp, ty, &s); /* data at ints 1, 4, 5 */
        MPI_Type_create_resized(s, 0, 6 * sizeof(int), dt);
        MPI_Type_free(&s);
        *count = 9;
        break;
    }
    }
    MPI_Type_commit(dt);
    int all[N], packed[N], pos = 0, sz;
    for (int i = 0; i < N; i++) all[i] = i;
    MPI_Pack_size(*count, *dt, MPI_COMM_SELF, &sz);
    MPI_Pack(all, *count, *dt, packed, sizeof packed, &pos, MPI_COMM_SELF);
    memcpy(idx, packed, pos);
    return pos / (int)sizeof(int);
}

/* epoch_begin/epoch_end open and close an access (and exposure) epoch of
 * mode s for ops to every rank; lock modes lock target by target inside
 * do_ops instead. */
static void epoch_begin(int s, MPI_Win win)
{
    if (s == S_FENCE) MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    if (s == S_PSCW) {
        MPI_Win_post(world_group, 0, win);
        MPI_Win_start(world_group, 0, win);
    }
    if (s == S_LOCKALL) MPI_Win_lock_all(0, win);
}

static void epoch_end(int s, MPI_Win win)
{
    if (s == S_FENCE) MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (s == S_PSCW) {
        MPI_Win_complete(win);
        MPI_Win_wait(win);
    }
    if (s == S_LOCKALL) {
        MPI_Win_flush_all(win);
        MPI_Win_unlock_all(win);
    }
    if (s == S_LOCK || s == S_LOCKALL) MPI_Barrier(MPI_COMM_WORLD);
}

static void lock(int s, int target, int type, MPI_Win win)
{
    if (s == S_LOCK) MPI_Win_lock(type, target, 0, win);
}

static void unlock(int s, int target, MPI_Win win)
{
    if (s == S_LOCK) MPI_Win_unlock(target, win);
    if (s == S_LOCKALL) MPI_Win_flush(target, win);
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    for (int f = 0; f < NFLAVOR; f++) {
        int *mem = NULL;
        MPI_Win win;
        MPI_Aint *bases = malloc(size * sizeof(MPI_Aint));
        if (f == F_CREATE) {
            mem = malloc(N * sizeof(int));
            MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else if (f == F_ALLOC) {
            MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
        } else if (f == F_SHARED) {
            /* Across hosts (rma_hosts.sh) the processes cannot share
             * memory: MPI_ERR_RMA_SHARED, and the flavor is skipped. */
            MPI_Comm node;
            int nodesize, rc, cls;
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
            MPI_Comm_size(node, &nodesize);
            MPI_Comm_free(&node);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            rc = MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
            MPI_Error_class(rc, &cls);
            if (nodesize < size) {
                MTEST_CHECK(errs, cls == MPI_ERR_RMA_SHARED, "allocate_shared across hosts: class %d, expected MPI_ERR_RMA_SHARED", cls);
                free(bases);
                continue;
            }
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "allocate_shared on one host failed (class %d)", cls);
        } else {
            mem = malloc(N * sizeof(int));
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
            MPI_Win_attach(win, mem, N * sizeof(int));
        }
        MPI_Aint mybase = 0;
        if (f == F_DYNAMIC) MPI_Get_address(mem, &mybase);
        MPI_Allgather(&mybase, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);

        for (int s = 0; s < NSYNC; s++) {
            for (int t = 0; t < NTYPE; t++) {
                MPI_Datatype dt;
                int tc, idx[N];
                int n = make_type(t, &dt, &tc, idx);
                int origin[N], got[N], fetched[N];
                const char *where = fname[f];
#define DISP(r, i) ((f == F_DYNAMIC ? bases[r] : 0) + (MPI_Aint)(i) * (f == F_DYNAMIC ? (MPI_Aint)sizeof(int) : 1))

                /* put: to the right neighbour, contiguous origin. */
                for (int i = 0; i < N; i++) mem[i] = rank * 1000 + i;
                for (int i = 0; i < n; i++) origin[i] = -(rank * 1000 + i) - 1;
                MPI_Barrier(MPI_COMM_WORLD);
                epoch_begin(s, win);
                lock(s, right, MPI_LOCK_EXCLUSIVE, win);
                if (t == T_VECTOR)
                    MPI_Put(origin, n, MPI_INT, right, DISP(right, 0), tc, dt, win);
                else {
                    MPI_Request rq;
                    MPI_Rput(origin, n, MPI_INT, right, DISP(right, 0), tc, dt, win, &rq);
                    MPI_Wait(&rq, MPI_STATUS_IGNORE);
                }
                unlock(s, right, win);
                epoch_end(s, win);
                {
                    int exp[N];
                    for (int i = 0; i < N; i++) exp[i] = rank * 1000 + i;
                    for (int i = 0; i < n; i++) exp[idx[i]] = -(left * 1000 + i) - 1;
                    for (int i = 0; i < N; i++)
                        MTEST_CHECK(errs, mem[i] == exp[i], "%s %s %s put: mem[%d] = %d, expected %d", where, sname[s], tname[t], i, mem[i], exp[i]);
                }

                /* get: from the left neighbour, into a contiguous origin. */
                for (int i = 0; i < N; i++) mem[i] = rank * 1000 + i;
                memset(got, 0, sizeof got);
                MPI_Barrier(MPI_COMM_WORLD);
                epoch_begin(s, win);
                lock(s, left, MPI_LOCK_SHARED, win);
                if (t == T_INDEXED) {
                    MPI_Request rq;
                    MPI_Rget(got, n, MPI_INT, left, DISP(left, 0), tc, dt, win, &rq);
                    MPI_Wait(&rq, MPI_STATUS_IGNORE);
                } else
                    MPI_Get(got, n, MPI_INT, left, DISP(left, 0), tc, dt, win);
                unlock(s, left, win);
                epoch_end(s, win);
                for (int i = 0; i < n; i++)
                    MTEST_CHECK(errs, got[i] == left * 1000 + idx[i], "%s %s %s get: got[%d] = %d, expected %d", where, sname[s], tname[t], i, got[i], left * 1000 + idx[i]);

                /* accumulate: every rank adds rank+1 to the covered
                 * elements of every rank; then get_accumulate with
                 * MPI_NO_OP reads them back from the right neighbour. */
                for (int i = 0; i < N; i++) mem[i] = i;
                for (int i = 0; i < n; i++) origin[i] = rank + 1;
                MPI_Barrier(MPI_COMM_WORLD);
                epoch_begin(s, win);
                for (int k = 0; k < size; k++) {
                    int tr = (rank + k) % size;
                    lock(s, tr, MPI_LOCK_SHARED, win);
                    if (t == T_STRUCT) {
                        MPI_Request rq;
                        MPI_Raccumulate(origin, n, MPI_INT, tr, DISP(tr, 0), tc, dt, MPI_SUM, win, &rq);
                        MPI_Wait(&rq, MPI_STATUS_IGNORE);
                    } else
                        MPI_Accumulate(origin, n, MPI_INT, tr, DISP(tr, 0), tc, dt, MPI_SUM, win);
                    unlock(s, tr, win);
                }
                epoch_end(s, win);
                {
                    int exp[N], add = size * (size + 1) / 2;
                    for (int i = 0; i < N; i++) exp[i] = i;
                    for (int i = 0; i < n; i++) exp[idx[i]] += add;
                    for (int i = 0; i < N; i++)
                        MTEST_CHECK(errs, mem[i] == exp[i], "%s %s %s accumulate: mem[%d] = %d, expected %d", where, sname[s], tname[t], i, mem[i], exp[i]);
                    MPI_Barrier(MPI_COMM_WORLD);
                    epoch_begin(s, win);
                    lock(s, right, MPI_LOCK_SHARED, win);
                    MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, fetched, n, MPI_INT, right, DISP(right, 0), tc, dt, MPI_NO_OP, win);
                    unlock(s, right, win);
                    epoch_end(s, win);
                    for (int i = 0; i < n; i++)
                        MTEST_CHECK(errs, fetched[i] == idx[i] + add, "%s %s %s get_accumulate(NO_OP): [%d] = %d, expected %d", where, sname[s], tname[t], i, fetched[i], idx[i] + add);
                }

                /* get_accumulate(MPI_SUM) then MPI_REPLACE on the right
                 * neighbour: fetched old values, then the new ones land. */
                for (int i = 0; i < N; i++) mem[i] = 7 * i;
                for (int i = 0; i < n; i++) origin[i] = 1000000 + i;
                MPI_Barrier(MPI_COMM_WORLD);
                epoch_begin(s, win);
                lock(s, right, MPI_LOCK_EXCLUSIVE, win);
                MPI_Get_accumulate(origin, n, MPI_INT, fetched, n, MPI_INT, right, DISP(right, 0), tc, dt, MPI_SUM, win);
                MPI_Accumulate(origin, n, MPI_INT, right, DISP(right, 0), tc, dt, MPI_REPLACE, win);
                unlock(s, right, win);
                epoch_end(s, win);
                for (int i = 0; i < n; i++) {
                    MTEST_CHECK(errs, fetched[i] == 7 * idx[i], "%s %s %s get_accumulate(SUM): [%d] = %d, expected %d", where, sname[s], tname[t], i, fetched[i], 7 * idx[i]);
                    MTEST_CHECK(errs, mem[idx[i]] == 1000000 + i, "%s %s %s replace: mem[%d] = %d, expected %d", where, sname[s], tname[t], idx[i], mem[idx[i]], 1000000 + i);
                }
                MPI_Type_free(&dt);
            }
        }

        /* fetch_and_op and compare_and_swap on rank 0's element 0. */
        mem[0] = 0;
        mem[1] = -1;
        MPI_Barrier(MPI_COMM_WORLD);
        {
            int one = 1, old[10], mine = rank, cmp = -1, res;
            MPI_Win_lock_all(0, win);
            for (int k = 0; k < 10; k++)
                MPI_Fetch_and_op(&one, &old[k], MPI_INT, 0, DISP(0, 0), MPI_SUM, win);
            MPI_Compare_and_swap(&mine, &cmp, &res, MPI_INT, 0, DISP(0, 1), win);
            MPI_Win_unlock_all(win);
            /* The results are defined once the epoch completed them. */
            for (int k = 0; k < 10; k++)
                MTEST_CHECK(errs, old[k] >= 0 && old[k] < 10 * size && (k == 0 || old[k] > old[k - 1]), "%s fetch_and_op: old[%d] %d", fname[f], k, old[k]);
            int won = res == -1, nwon;
            MPI_Allreduce(&won, &nwon, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            MTEST_CHECK(errs, nwon == 1, "%s compare_and_swap: %d winners", fname[f], nwon);
            if (rank == 0) {
                MTEST_CHECK(errs, mem[0] == 10 * size, "%s fetch_and_op: counter %d, expected %d", fname[f], mem[0], 10 * size);
                MTEST_CHECK(errs, mem[1] >= 0 && mem[1] < size, "%s compare_and_swap: value %d", fname[f], mem[1]);
            }
        }

        if (f == F_DYNAMIC) MPI_Win_detach(win, mem);
        MPI_Win_free(&win);
        MTEST_CHECK(errs, win == MPI_WIN_NULL, "MPI_Win_free left the handle");
        if (f == F_CREATE || f == F_DYNAMIC) free(mem);
        free(bases);
    }
    MPI_Group_free(&world_group);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
