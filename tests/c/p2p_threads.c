/* p2p_threads: point-to-point under MPI_THREAD_MULTIPLE. Every rank runs
 * NT worker threads and one probing thread, all communicating at once:
 *  - worker t, ITER times: Irecv(ANY_SOURCE, tag ATAG) for every other
 *    rank, Isend to every other rank (tag ATAG), Waitall; then a blocking
 *    Send/Recv exchange around the ring (tag RTAG; every 64th one
 *    rendezvous-sized). ATAG carries the iteration modulo 8: with a single
 *    tag, an ANY_SOURCE receive may take a faster rank's message of the
 *    next iteration, leaving a slower rank's message unmatched, and when
 *    sends are synchronous in effect (rendezvous) that slower rank never
 *    leaves its Waitall: the program would rely on buffering (unsafe);
 *    every message's contents, length, source and per-sender order are
 *    checked;
 *  - the prober Isends PROBES messages to every other rank (tag PTAG),
 *    then receives PROBES from each with Iprobe(ANY_SOURCE) + Recv of the
 *    probed source, checking them.
 * Needs an even number of processes >= 2. */
#include "mtest.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifndef NT
#define NT 4
#endif
#ifndef ITER
#define ITER 3000
#endif
#ifndef PROBES
#define PROBES 500
#endif
#define PTAG 1000
#define ATAG(t, it) ((t) * 8 + ((it) & 7))
#define RTAG(t) (8 * NT + (t))
#define MAXLEN 64
#define BIGLEN (80 * 1024 / (int)sizeof(int))

static int rank, size;
static int terrs[NT + 1];

static int val(int src, int t, int it, int j) { return src * 1000003 + t * 100003 + it * 31 + j; }
static int len_of(int src, int it) { return 1 + (src * 7 + it * 13) % MAXLEN; }

static void *worker(void *arg)
{
    int t = (int)(long)arg, it, i, j, k, errs = 0;
    int nothers = size - 1;
    int *next = calloc(size, sizeof(int));
    int (*rbuf)[MAXLEN + 1] = malloc(sizeof(*rbuf) * (size > 1 ? nothers : 1));
    int sbuf[MAXLEN + 1];
    int *big_s = malloc(BIGLEN * sizeof(int)), *big_r = malloc(BIGLEN * sizeof(int));
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * size);
    MPI_Status *sts = malloc(sizeof(MPI_Status) * 2 * size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    for (it = 0; it < ITER; it++) {
        int n = 0, len = len_of(rank, it);
        /* Nonblocking all-to-all with ANY_SOURCE receives. */
        for (i = 0; i < nothers; i++)
            MPI_Irecv(rbuf[i], MAXLEN + 1, MPI_INT, MPI_ANY_SOURCE, ATAG(t, it), MPI_COMM_WORLD,
                      &reqs[n++]);
        sbuf[0] = it;
        for (j = 0; j < len; j++)
            sbuf[j + 1] = val(rank, t, it, j);
        for (k = 0; k < size; k++)
            if (k != rank)
                MPI_Isend(sbuf, len + 1, MPI_INT, k, ATAG(t, it), MPI_COMM_WORLD, &reqs[n++]);
        MPI_Waitall(n, reqs, sts);
        for (i = 0; i < nothers; i++) {
            int src = sts[i].MPI_SOURCE, cnt, sit, slen;
            MPI_Get_count(&sts[i], MPI_INT, &cnt);
            if (src < 0 || src >= size || src == rank || sts[i].MPI_TAG != ATAG(t, it)) {
                MTEST_CHECK(errs, 0, "thread %d: status source %d tag %d", t, src,
                            sts[i].MPI_TAG);
                continue;
            }
            sit = rbuf[i][0];
            slen = len_of(src, sit);
            /* Messages from one sender arrive in order. */
            MTEST_CHECK(errs, sit == next[src], "thread %d: from %d got iteration %d, want %d",
                        t, src, sit, next[src]);
            next[src] = sit + 1;
            MTEST_CHECK(errs, cnt == slen + 1, "thread %d: from %d it %d: %d ints, want %d", t,
                        src, sit, cnt, slen + 1);
            for (j = 0; j < slen && j + 1 < cnt; j++)
                if (rbuf[i][j + 1] != val(src, t, sit, j)) {
                    MTEST_CHECK(errs, 0, "thread %d: from %d it %d: [%d] = %d", t, src, sit, j,
                                rbuf[i][j + 1]);
                    break;
                }
        }
        /* Blocking ring exchange: even ranks send first. */
        if (size > 1) {
            int blen = (it % 64 == 63) ? BIGLEN : len, cnt;
            MPI_Status st;
            big_s[0] = it;
            for (j = 1; j < blen; j++)
                big_s[j] = val(rank, t, it, j);
            if (rank % 2 == 0) {
                MPI_Send(big_s, blen, MPI_INT, right, RTAG(t), MPI_COMM_WORLD);
                MPI_Recv(big_r, BIGLEN, MPI_INT, left, RTAG(t), MPI_COMM_WORLD, &st);
            } else {
                MPI_Recv(big_r, BIGLEN, MPI_INT, left, RTAG(t), MPI_COMM_WORLD, &st);
                MPI_Send(big_s, blen, MPI_INT, right, RTAG(t), MPI_COMM_WORLD);
            }
            MPI_Get_count(&st, MPI_INT, &cnt);
            MTEST_CHECK(errs, big_r[0] == it && cnt == ((it % 64 == 63) ? BIGLEN : len_of(left, it)),
                        "thread %d: ring it %d got it %d, %d ints", t, it, big_r[0], cnt);
            for (j = 1; j < cnt; j++)
                if (big_r[j] != val(left, t, it, j)) {
                    MTEST_CHECK(errs, 0, "thread %d: ring it %d [%d] = %d", t, it, j, big_r[j]);
                    break;
                }
        }
        if (errs > 20)
            break;
    }
    for (k = 0; k < size; k++)
        if (k != rank)
            MTEST_CHECK(errs, next[k] == ITER || errs > 20, "thread %d: %d messages from %d", t,
                        next[k], k);
    free(next);
    free(rbuf);
    free(big_s);
    free(big_r);
    free(reqs);
    free(sts);
    terrs[t] = errs;
    return NULL;
}

static void *prober(void *arg)
{
    int errs = 0, i, k, got = 0, total = PROBES * (size - 1);
    int *sbuf = malloc(sizeof(int) * 2 * PROBES);
    int *next = calloc(size, sizeof(int));
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * PROBES * size);
    int n = 0;
    (void)arg;

    for (i = 0; i < PROBES; i++) {
        sbuf[2 * i] = rank;
        sbuf[2 * i + 1] = i;
        for (k = 0; k < size; k++)
            if (k != rank)
                MPI_Isend(&sbuf[2 * i], 2, MPI_INT, k, PTAG, MPI_COMM_WORLD, &reqs[n++]);
    }
    while (got < total) {
        int flag = 0, v[2] = {-1, -1};
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, PTAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag)
            continue;
        MPI_Recv(v, 2, MPI_INT, st.MPI_SOURCE, PTAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MTEST_CHECK(errs, v[0] == st.MPI_SOURCE && v[1] == next[st.MPI_SOURCE],
                    "prober: from %d got (%d, %d), want seq %d", st.MPI_SOURCE, v[0], v[1],
                    next[st.MPI_SOURCE]);
        next[st.MPI_SOURCE]++;
        got++;
        if (errs > 20)
            break;
    }
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    free(sbuf);
    free(next);
    free(reqs);
    terrs[NT] = errs;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, errs = 0, i;
    pthread_t th[NT + 1];

    MTest_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (size % 2) {
        fprintf(stderr, "p2p_threads needs an even number of processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (i = 0; i < NT; i++)
        pthread_create(&th[i], NULL, worker, (void *)(long)i);
    pthread_create(&th[NT], NULL, prober, NULL);
    for (i = 0; i <= NT; i++) {
        pthread_join(th[i], NULL);
        errs += terrs[i];
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
