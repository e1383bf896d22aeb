/*
 * Large messages in windows: several rendezvous messages in flight at
 * once in both directions, receives posted before and after the sends
 * arrive, truncation, and odd sizes, with every byte checked. Run with
 * single copy on (GMPI_SHM_CMA=1: the receiver and the sender share the
 * copy of each large message) and off (streamed through the ring).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpi.h"
#include "mtest.h"

static unsigned char pat(int msg, size_t i) { return (unsigned char)(msg * 131 + i * 7 + (i >> 12)); }

int main(int argc, char **argv)
{
    int errs = 0, me, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm pair; /* ranks 0 and 1 */
    MPI_Comm_split(MPI_COMM_WORLD, me < 2 ? 0 : MPI_UNDEFINED, me, &pair);
    if (size < 2 || me > 1) {
        MTest_Finalize(errs);
        return 0;
    }
    int other = 1 - me;
    const size_t sizes[] = {300000, 1 << 20, (4 << 20) + 4093};
    enum { W = 4 };
    for (int si = 0; si < 3; si++) {
        size_t n = sizes[si];
        unsigned char *s = malloc(n * W), *r = malloc(n * W);
        for (int round = 0; round < 3; round++) {
            /* round 0: receives posted first; 1: sends first (the RTS
             * wait as unexpected); 2: both at once. */
            MPI_Request q[2 * W];
            for (int k = 0; k < W; k++)
                for (size_t i = 0; i < n; i++)
                    s[k * n + i] = pat(me * 100 + si * 10 + k, i);
            memset(r, 0, n * W);
            if (round == 1 && me == 0)
                usleep(20000);
            for (int k = 0; k < W; k++)
                MPI_Irecv(r + k * n, (int)n, MPI_BYTE, other, k, pair, &q[k]);
            if (round == 0)
                MPI_Barrier(pair);
            for (int k = W - 1; k >= 0; k--) /* tags in reverse: matching by tag */
                MPI_Isend(s + k * n, (int)n, MPI_BYTE, other, k, pair, &q[W + k]);
            MPI_Waitall(2 * W, q, MPI_STATUSES_IGNORE);
            for (int k = 0; k < W; k++)
                for (size_t i = 0; i < n; i++)
                    if (r[k * n + i] != pat(other * 100 + si * 10 + k, i)) {
                        MTEST_CHECK(errs, 0, "size %zu round %d message %d: byte %zu is %d, want %d", n, round, k, i,
                                    r[k * n + i], pat(other * 100 + si * 10 + k, i));
                        break;
                    }
            if (round != 0)
                MPI_Barrier(pair);
        }
        /* Truncation: a receive smaller than the message. */
        MPI_Comm_set_errhandler(pair, MPI_ERRORS_RETURN);
        if (me == 0) {
            MPI_Send(s, (int)n, MPI_BYTE, 1, 99, pair);
        } else {
            MPI_Status st;
            int rc = MPI_Recv(r, (int)(n / 2), MPI_BYTE, 0, 99, pair, &st), cls = 0, cnt = -1;
            if (rc != MPI_SUCCESS)
                MPI_Error_class(rc, &cls);
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            MTEST_CHECK(errs, cls == MPI_ERR_TRUNCATE, "truncated receive of %zu: class %d", n, cls);
            for (size_t i = 0; i < n / 2; i++)
                if (r[i] != pat(0 * 100 + si * 10 + 0, i)) {
                    MTEST_CHECK(errs, 0, "truncated receive of %zu: byte %zu wrong", n, i);
                    break;
                }
        }
        MPI_Comm_set_errhandler(pair, MPI_ERRORS_ARE_FATAL);
        free(s);
        free(r);
    }
    MPI_Comm_free(&pair);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
