/* threads_anysrc: under MPI_THREAD_MULTIPLE every rank runs threads that
 * send and receive at once with wildcards, probes and several
 * communicators, ITER rounds each:
 *   - "mixed" threads (one per duplicated communicator of their own) send
 *     one message to every peer with Isend/Issend, then receive
 *     messages with MPI_ANY_SOURCE and MPI_ANY_TAG until every peer's
 *     message of the round is in, each receive with another
 *     receive style (Recv, Probe+Recv, Iprobe loop+Recv, Mprobe+Mrecv,
 *     Improbe loop+Imrecv, Irecv+Test loop), then wait for their sends;
 *   - a sender/receiver pair sharing a communicator and a tag: the sender
 *     uses blocking Send/Ssend to every peer, the receiver takes them with
 *     MPI_ANY_SOURCE and a fixed tag;
 *   - the main thread polls MPI_Iprobe on MPI_COMM_WORLD (where nothing is
 *     sent) until the workers are done.
 * Every message carries its source, thread and round; each receiver checks
 * that every source's rounds arrive complete and in order (non-overtaking)
 * and that the payload is intact. Run at 5 and 8 ranks on 2 cores; the
 * stress script loops it. */
#include "mtest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NMIX 3
#define NT (NMIX + 2)
#ifndef ITER
#define ITER 60
#endif
#define MAXN (24 * 1024)
#define PAIRTAG 77

static int rank, size, iters = ITER;
static int terrs[NT];
static MPI_Comm comms[NMIX + 1];
static atomic_int done;

static int len_of(int src, int t, int it)
{
    static const int lens[] = {4, 5, 64, 1000, 4100, 20000, MAXN};
    return lens[(src * 3 + t * 5 + it) % 7];
}

static int val(int src, int t, int it, int j) { return src * 1000003 + t * 100003 + it * 31 + j; }

static void fill(int *b, int t, int it)
{
    int len = len_of(rank, t, it);
    b[0] = rank;
    b[1] = t;
    b[2] = it;
    for (int j = 3; j < len; j++)
        b[j] = val(rank, t, it, j);
}

/* check verifies one received message: its header, length and payload, and
 * that it is the next round expected from its source. */
static void check(int *errs, int *b, MPI_Status *st, int t, int *next)
{
    int cnt, src = st->MPI_SOURCE;
    MPI_Get_count(st, MPI_INT, &cnt);
    MTEST_CHECK(*errs, src >= 0 && src < size && src != rank, "thread %d: source %d", t, src);
    if (src < 0 || src >= size)
        return;
    int it = next[src]++;
    int want = len_of(src, t, it);
    MTEST_CHECK(*errs, cnt == want && b[0] == src && b[1] == t && b[2] == it,
                "thread %d from %d: count %d (want %d) header %d %d %d (want %d %d %d)", t, src, cnt,
                want, b[0], b[1], b[2], src, t, it);
    for (int j = 3; j < want && j < cnt; j++)
        if (b[j] != val(src, t, it, j)) {
            MTEST_CHECK(*errs, 0, "thread %d round %d from %d: [%d] = %d", t, it, src, j, b[j]);
            break;
        }
}

static void recv_one(int style, int *rb, MPI_Comm c, int tag, MPI_Status *st)
{
    int flag = 0;
    MPI_Message m;
    MPI_Request r;
    switch (style % 6) {
    case 0:
        MPI_Recv(rb, MAXN, MPI_INT, MPI_ANY_SOURCE, tag, c, st);
        break;
    case 1:
        MPI_Probe(MPI_ANY_SOURCE, tag, c, st);
        MPI_Recv(rb, MAXN, MPI_INT, st->MPI_SOURCE, st->MPI_TAG, c, st);
        break;
    case 2:
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, tag, c, &flag, st);
        MPI_Recv(rb, MAXN, MPI_INT, st->MPI_SOURCE, st->MPI_TAG, c, st);
        break;
    case 3:
        MPI_Mprobe(MPI_ANY_SOURCE, tag, c, &m, st);
        MPI_Mrecv(rb, MAXN, MPI_INT, &m, st);
        break;
    case 4:
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, tag, c, &flag, &m, st);
        MPI_Imrecv(rb, MAXN, MPI_INT, &m, &r);
        MPI_Wait(&r, st);
        break;
    default:
        MPI_Irecv(rb, MAXN, MPI_INT, MPI_ANY_SOURCE, tag, c, &r);
        while (!flag)
            MPI_Test(&r, &flag, st);
    }
}

static void *mixed(void *arg)
{
    int t = (int)(long)arg, errs = 0;
    int *next = calloc(size, sizeof(int));
    int *sbuf = malloc(sizeof(int) * MAXN);
    int *rbuf = malloc(sizeof(int) * MAXN);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * size);
    MPI_Comm c = comms[t];
    for (int it = 0; it < iters; it++) {
        int n = 0;
        fill(sbuf, t, it);
        for (int k = 0; k < size - 1; k++) {
            int p = (rank + 1 + (k + t + it) % (size - 1)) % size;
            if ((it + k) % 2)
                MPI_Issend(sbuf, len_of(rank, t, it), MPI_INT, p, it % 5, c, &rq[n++]);
            else
                MPI_Isend(sbuf, len_of(rank, t, it), MPI_INT, p, it % 5, c, &rq[n++]);
        }
        /* Receive until this round's message from every peer is in: a
         * peer a round ahead may deliver its next message first, and a
         * fixed count of size-1 receives would then leave a peer's
         * Issend of this round unmatched while both sides wait in
         * MPI_Waitall (a deadlock of the test, not of MPI). */
        for (int k = 0;; k++) {
            int p = 0;
            while (p < size && (p == rank || next[p] > it))
                p++;
            if (p == size)
                break;
            MPI_Status st;
            recv_one(it + k + t, rbuf, c, MPI_ANY_TAG, &st);
            check(&errs, rbuf, &st, t, next);
        }
        MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    }
    for (int p = 0; p < size; p++)
        MTEST_CHECK(errs, p == rank || next[p] == iters, "thread %d: %d rounds from %d", t, next[p], p);
    free(next);
    free(sbuf);
    free(rbuf);
    free(rq);
    terrs[t] = errs;
    atomic_fetch_add(&done, 1);
    return NULL;
}

static void *pair_sender(void *arg)
{
    int t = (int)(long)arg;
    int *sbuf = malloc(sizeof(int) * MAXN);
    for (int it = 0; it < iters; it++) {
        fill(sbuf, t, it);
        for (int k = 0; k < size - 1; k++) {
            int p = (rank + 1 + (k + it) % (size - 1)) % size;
            if (it % 2)
                MPI_Ssend(sbuf, len_of(rank, t, it), MPI_INT, p, PAIRTAG, comms[NMIX]);
            else
                MPI_Send(sbuf, len_of(rank, t, it), MPI_INT, p, PAIRTAG, comms[NMIX]);
        }
    }
    free(sbuf);
    atomic_fetch_add(&done, 1);
    return NULL;
}

static void *pair_receiver(void *arg)
{
    int t = (int)(long)arg, errs = 0;
    int *next = calloc(size, sizeof(int));
    int *rbuf = malloc(sizeof(int) * MAXN);
    for (int i = 0; i < iters * (size - 1); i++) {
        MPI_Status st;
        recv_one(i, rbuf, comms[NMIX], PAIRTAG, &st);
        check(&errs, rbuf, &st, t - 1, next);
    }
    for (int p = 0; p < size; p++)
        MTEST_CHECK(errs, p == rank || next[p] == iters, "receiver: %d rounds from %d", next[p], p);
    free(next);
    free(rbuf);
    terrs[t] = errs;
    atomic_fetch_add(&done, 1);
    return NULL;
}

int main(int argc, char **argv)
{
    int errs = 0, provided;
    pthread_t th[NT];
    const char *e = getenv("THREADS_ANYSRC_ITER");
    if (e && atoi(e) > 0)
        iters = atoi(e);
    MTest_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        errs++;
    } else if (size > 1) {
        for (int i = 0; i <= NMIX; i++)
            MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
        for (long i = 0; i < NMIX; i++)
            pthread_create(&th[i], NULL, mixed, (void *)i);
        pthread_create(&th[NMIX], NULL, pair_sender, (void *)(long)NMIX);
        pthread_create(&th[NMIX + 1], NULL, pair_receiver, (void *)(long)(NMIX + 1));
        /* The main thread polls a communicator nobody sends on until the
         * workers are done. */
        while (atomic_load(&done) < NT) {
            int flag;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, !flag, "a message arrived on MPI_COMM_WORLD");
            usleep(200);
        }
        for (int i = 0; i < NT; i++) {
            pthread_join(th[i], NULL);
            errs += terrs[i];
        }
        for (int i = 0; i <= NMIX; i++)
            MPI_Comm_free(&comms[i]);
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
