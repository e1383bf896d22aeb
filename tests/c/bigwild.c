/*
 * Rendezvous-size messages with wildcards, order and derived datatypes,
 * every byte checked (ranks 0 and 1; others only take part in
 * MTest_Finalize):
 *  - 32 messages with one tag, sizes alternating eager and rendezvous,
 *    received in order with MPI_ANY_SOURCE / MPI_ANY_TAG (half of the
 *    receives posted before the sends, half after they arrived);
 *  - a strided vector sent and received as contiguous ints, and back;
 *  - MPI_Ssend of a large message to an MPI_ANY_TAG receive, MPI_Probe
 *    then MPI_Recv of one, MPI_Sendrecv_replace in both directions.
 * With a vendor MPI machine (grid_vmpi) the rendezvous bodies go into
 * receives posted in the vendor before the CTS (devices/vmpi).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpi.h"
#include "mtest.h"

static int errs;

static int pat(int msg, int i) { return msg * 1000003 + i * 7; }

static void fill(int *b, int n, int msg)
{
    for (int i = 0; i < n; i++)
        b[i] = pat(msg, i);
}

static void check(const int *b, int n, int msg, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != pat(msg, i)) {
            MTEST_CHECK(errs, 0, "%s: message %d int %d is %d, want %d", what, msg, i, b[i], pat(msg, i));
            return;
        }
}

enum { M = 32 };

static int msize(int k) { return k % 2 ? 40000 + k * 1000 : 100 + k; } /* ints */

static void ordered(MPI_Comm pair, int me)
{
    int *b[M];
    MPI_Request q[M];
    for (int k = 0; k < M; k++)
        b[k] = malloc(sizeof(int) * (size_t)msize(k));
    if (me == 0) {
        for (int k = 0; k < M; k++) {
            fill(b[k], msize(k), k);
            MPI_Isend(b[k], msize(k), MPI_INT, 1, 5, pair, &q[k]);
        }
        MPI_Waitall(M, q, MPI_STATUSES_IGNORE);
        MPI_Barrier(pair);
    } else {
        for (int k = 0; k < M / 2; k++)
            MPI_Irecv(b[k], msize(k), MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, pair, &q[k]);
        usleep(100000); /* the rest arrive before their receives */
        for (int k = M / 2; k < M; k++)
            MPI_Irecv(b[k], msize(k), MPI_INT, k % 3 ? 0 : MPI_ANY_SOURCE, k % 4 ? 5 : MPI_ANY_TAG, pair, &q[k]);
        MPI_Status st[M];
        MPI_Waitall(M, q, st);
        for (int k = 0; k < M; k++) {
            int cnt = -1;
            MPI_Get_count(&st[k], MPI_INT, &cnt);
            MTEST_CHECK(errs, st[k].MPI_SOURCE == 0 && st[k].MPI_TAG == 5 && cnt == msize(k),
                        "ordered message %d: source %d tag %d count %d (want 0, 5, %d)", k, st[k].MPI_SOURCE,
                        st[k].MPI_TAG, cnt, msize(k));
            check(b[k], msize(k), k, "ordered");
        }
        MPI_Barrier(pair);
    }
    for (int k = 0; k < M; k++)
        free(b[k]);
}

static void vector(MPI_Comm pair, int me)
{
    enum { BLOCKS = 3000, BLEN = 100, STRIDE = 150 };
    MPI_Datatype vec;
    MPI_Type_vector(BLOCKS, BLEN, STRIDE, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *strided = calloc((size_t)BLOCKS * STRIDE, sizeof(int)), *flat = malloc(sizeof(int) * BLOCKS * BLEN);
    for (int dir = 0; dir < 2; dir++) {
        int sender = dir; /* dir 0: 0 sends the vector; 1: 1 sends contiguous to a vector receive */
        if (me == sender) {
            if (dir == 0) {
                for (int j = 0; j < BLOCKS; j++)
                    for (int i = 0; i < BLEN; i++)
                        strided[j * STRIDE + i] = pat(7, j * BLEN + i);
                MPI_Send(strided, 1, vec, 1 - me, 6, pair);
            } else {
                fill(flat, BLOCKS * BLEN, 8);
                MPI_Send(flat, BLOCKS * BLEN, MPI_INT, 1 - me, 6, pair);
            }
        } else if (dir == 0) {
            MPI_Recv(flat, BLOCKS * BLEN, MPI_INT, MPI_ANY_SOURCE, 6, pair, MPI_STATUS_IGNORE);
            check(flat, BLOCKS * BLEN, 7, "vector to contiguous");
        } else {
            for (int i = 0; i < BLOCKS * STRIDE; i++)
                strided[i] = -1;
            MPI_Recv(strided, 1, vec, 1 - me, MPI_ANY_TAG, pair, MPI_STATUS_IGNORE);
            for (int j = 0; j < BLOCKS; j++)
                for (int i = 0; i < STRIDE; i++) {
                    int want = i < BLEN ? pat(8, j * BLEN + i) : -1;
                    if (strided[j * STRIDE + i] != want) {
                        MTEST_CHECK(errs, 0, "contiguous to vector: block %d int %d is %d, want %d", j, i,
                                    strided[j * STRIDE + i], want);
                        j = BLOCKS;
                        break;
                    }
                }
        }
    }
    free(strided);
    free(flat);
    MPI_Type_free(&vec);
}

static void modes(MPI_Comm pair, int me)
{
    enum { N = 300000 };
    int *b = malloc(sizeof(int) * N);
    MPI_Status st;
    int cnt = -1;
    if (me == 0) {
        fill(b, N, 11);
        MPI_Ssend(b, N, MPI_INT, 1, 9, pair);
        fill(b, N / 2, 12);
        MPI_Send(b, N / 2, MPI_INT, 1, 10, pair);
    } else {
        MPI_Recv(b, N, MPI_INT, 0, MPI_ANY_TAG, pair, &st);
        MPI_Get_count(&st, MPI_INT, &cnt);
        MTEST_CHECK(errs, st.MPI_TAG == 9 && cnt == N, "ssend: tag %d count %d", st.MPI_TAG, cnt);
        check(b, N, 11, "ssend");
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, pair, &st);
        MPI_Get_count(&st, MPI_INT, &cnt);
        MTEST_CHECK(errs, st.MPI_SOURCE == 0 && st.MPI_TAG == 10 && cnt == N / 2, "probe: source %d tag %d count %d",
                    st.MPI_SOURCE, st.MPI_TAG, cnt);
        memset(b, 0, sizeof(int) * N);
        MPI_Recv(b, cnt, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, pair, MPI_STATUS_IGNORE);
        check(b, N / 2, 12, "probe");
    }
    fill(b, N, 20 + me);
    MPI_Sendrecv_replace(b, N, MPI_INT, 1 - me, 13, 1 - me, 13, pair, &st);
    check(b, N, 21 - me, "sendrecv_replace");
    free(b);
}

int main(int argc, char **argv)
{
    int me, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, me < 2 ? 0 : MPI_UNDEFINED, me, &pair);
    if (size >= 2 && me < 2) {
        for (int round = 0; round < 3; round++) { /* the tags cycle: reuse */
            ordered(pair, me);
            vector(pair, me);
            modes(pair, me);
        }
        MPI_Comm_free(&pair);
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
