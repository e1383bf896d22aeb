/* threads_sendmany: under MPI_THREAD_MULTIPLE every rank runs NT threads
 * that all send to every other rank at once, ITER rounds each: a thread
 * posts its receives from every peer (its own tag), then sends to every
 * peer, starting with a different one per thread and round, with blocking
 * MPI_Send, MPI_Ssend or MPI_Isend by round, in sizes from 1 int to well
 * above the eager limit, then waits for its receives and checks their
 * contents. Any number of processes; run at 5 on 2 cores, where it hung
 * before the fix. */
#include "mtest.h"

#include <pthread.h>
#include <stdlib.h>

#ifndef NT
#define NT 4
#endif
#ifndef ITER
#define ITER 300
#endif
#define MAXN (40 * 1024)

static int rank, size, iters = ITER;
static int terrs[NT];

static int len_of(int src, int t, int it)
{
    static const int lens[] = {1, 3, 64, 1000, 4100, 20000, MAXN};
    return lens[(src * 3 + t * 5 + it) % 7];
}

static int val(int src, int t, int it, int j) { return src * 1000003 + t * 100003 + it * 31 + j; }

static void *worker(void *arg)
{
    int t = (int)(long)arg, errs = 0;
    int **rbuf = malloc(sizeof(int *) * size);
    int *sbuf = malloc(sizeof(int) * MAXN);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * size);
    MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * size);
    for (int p = 0; p < size; p++)
        rbuf[p] = malloc(sizeof(int) * MAXN);
    for (int it = 0; it < iters; it++) {
        int n = 0;
        for (int p = 0; p < size; p++)
            if (p != rank)
                MPI_Irecv(rbuf[p], MAXN, MPI_INT, p, t, MPI_COMM_WORLD, &rq[n++]);
        int len = len_of(rank, t, it);
        for (int j = 0; j < len; j++)
            sbuf[j] = val(rank, t, it, j);
        int nr = n;
        for (int k = 0; k < size - 1; k++) {
            int p = (rank + 1 + (k + t + it) % (size - 1)) % size;
            switch ((it + t) % 3) {
            case 0:
                MPI_Send(sbuf, len, MPI_INT, p, t, MPI_COMM_WORLD);
                break;
            case 1:
                MPI_Ssend(sbuf, len, MPI_INT, p, t, MPI_COMM_WORLD);
                break;
            default:
                MPI_Isend(sbuf, len, MPI_INT, p, t, MPI_COMM_WORLD, &rq[n++]);
            }
        }
        MPI_Waitall(n, rq, st);
        for (int i = 0, p = 0; p < size; p++) {
            if (p == rank)
                continue;
            int cnt, want = len_of(p, t, it);
            MPI_Get_count(&st[i], MPI_INT, &cnt);
            MTEST_CHECK(errs, st[i].MPI_SOURCE == p && st[i].MPI_TAG == t && cnt == want,
                        "thread %d round %d from %d: source %d tag %d count %d (want %d)", t, it, p,
                        st[i].MPI_SOURCE, st[i].MPI_TAG, cnt, want);
            for (int j = 0; j < want && j < cnt; j++)
                if (rbuf[p][j] != val(p, t, it, j)) {
                    MTEST_CHECK(errs, 0, "thread %d round %d from %d: [%d] = %d", t, it, p, j, rbuf[p][j]);
                    break;
                }
            i++;
        }
        (void)nr;
    }
    for (int p = 0; p < size; p++)
        free(rbuf[p]);
    free(rbuf);
    free(sbuf);
    free(rq);
    free(st);
    terrs[t] = errs;
    return NULL;
}

int main(int argc, char **argv)
{
    int errs = 0, provided;
    pthread_t th[NT];
    /* THREADS_SENDMANY_ITER: rounds per thread (stress loops run many short
     * jobs, each of which also ends in MPI_Finalize). */
    const char *e = getenv("THREADS_SENDMANY_ITER");
    if (e && atoi(e) > 0)
        iters = atoi(e);
    MTest_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        errs++;
    } else {
        for (long i = 0; i < NT; i++)
            pthread_create(&th[i], NULL, worker, (void *)i);
        for (int i = 0; i < NT; i++) {
            pthread_join(th[i], NULL);
            errs += terrs[i];
        }
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
