/* collov: overlapping nonblocking collectives.
 *  1. Many nonblocking collectives outstanding at once on one
 *     communicator and on several (world, a dup, a reversed split),
 *     completed in an order unrelated to their start order, while a
 *     wildcard receive (MPI_ANY_SOURCE, MPI_ANY_TAG) is posted on every
 *     communicator: collective traffic must never match it, and the
 *     point-to-point message sent afterwards must.
 *  2. Progress without MPI calls: rank 0 starts an MPI_Iallreduce of a
 *     rendezvous-sized vector and then computes without calling MPI
 *     until rank 1 (which waits for the allreduce in MPI_Wait) tells it
 *     through a file that its result arrived; that can only happen if
 *     rank 0's schedule advances in the background (rank 0 combines the
 *     operands and sends the result on). Bounded: after 120 s it is an
 *     error. */
#include "mtest.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NC 3
#define BIG (1 << 18) /* ints: 1 MiB, rendezvous */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int overlapping(void)
{
    int errs = 0, rank, size, i, c, round;
    MPI_Comm comms[NC];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    comms[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[2]);
    for (round = 0; round < 3; round++) {
        enum { NOPS = 6 };
        MPI_Request rq[NC * NOPS], wild[NC];
        int *bc[NC], *ar[NC], *ag[NC], *a2s[NC], *a2r[NC], sc[NC], got[NC];
        int val[NC], cr[NC], n = 1000 + round * 20000;
        MPI_Status st;
        for (c = 0; c < NC; c++) {
            MPI_Comm_rank(comms[c], &cr[c]);
            MPI_Irecv(&got[c], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[c], &wild[c]);
        }
        for (c = 0; c < NC; c++) {
            MPI_Request *q = &rq[c * NOPS];
            bc[c] = malloc(n * sizeof(int));
            ar[c] = malloc(n * sizeof(int));
            ag[c] = malloc(size * sizeof(int));
            a2s[c] = malloc(size * sizeof(int));
            a2r[c] = malloc(size * sizeof(int));
            for (i = 0; i < n; i++)
                bc[c][i] = cr[c] == c % size ? i * 3 + c : -1;
            for (i = 0; i < size; i++)
                a2s[c][i] = cr[c] * 100 + i;
            val[c] = cr[c] + 1;
            sc[c] = -1;
            MPI_Ibcast(bc[c], n, MPI_INT, c % size, comms[c], &q[0]);
            MPI_Iallreduce(&val[c], &ar[c][0], 1, MPI_INT, MPI_SUM, comms[c],
                           &q[1]);
            MPI_Iallgather(&cr[c], 1, MPI_INT, ag[c], 1, MPI_INT, comms[c], &q[2]);
            MPI_Ibarrier(comms[c], &q[3]);
            MPI_Ialltoall(a2s[c], 1, MPI_INT, a2r[c], 1, MPI_INT, comms[c], &q[4]);
            MPI_Iscan(&val[c], &sc[c], 1, MPI_INT, MPI_SUM, comms[c], &q[5]);
        }
        /* complete in reverse order, then some with Waitany */
        for (i = NC * NOPS - 1; i >= NC * NOPS / 2; i--)
            MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
        for (i = 0; i < NC * NOPS / 2; i++) {
            int idx;
            MPI_Waitany(NC * NOPS / 2, rq, &idx, MPI_STATUS_IGNORE);
        }
        for (c = 0; c < NC; c++) {
            int flag;
            for (i = 0; i < n; i++)
                if (bc[c][i] != i * 3 + c) {
                    fprintf(stderr, "[%d] comm %d round %d: bcast[%d] = %d\n", rank, c, round, i,
                            bc[c][i]);
                    errs++;
                    break;
                }
            if (ar[c][0] != size * (size + 1) / 2)
                errs++, fprintf(stderr, "[%d] allreduce %d\n", rank, ar[c][0]);
            if (sc[c] != (cr[c] + 1) * (cr[c] + 2) / 2)
                errs++, fprintf(stderr, "[%d] scan %d\n", rank, sc[c]);
            for (i = 0; i < size; i++) {
                if (ag[c][i] != i)
                    errs++, fprintf(stderr, "[%d] allgather[%d] %d\n", rank, i, ag[c][i]);
                if (a2r[c][i] != i * 100 + cr[c])
                    errs++, fprintf(stderr, "[%d] alltoall[%d] %d\n", rank, i, a2r[c][i]);
            }
            MPI_Test(&wild[c], &flag, MPI_STATUS_IGNORE);
            if (flag) {
                fprintf(stderr, "[%d] a wildcard receive matched collective traffic\n", rank);
                errs++;
            }
            free(bc[c]), free(ar[c]), free(ag[c]), free(a2s[c]), free(a2r[c]);
        }
        /* now the point-to-point messages the wildcards wait for (after
         * every process checked that its wildcards are still pending) */
        MPI_Barrier(MPI_COMM_WORLD);
        for (c = 0; c < NC; c++) {
            int v = 7000 + cr[c];
            MPI_Send(&v, 1, MPI_INT, (cr[c] + 1) % size, 5, comms[c]);
            MPI_Wait(&wild[c], &st);
            if (got[c] != 7000 + (cr[c] + size - 1) % size || st.MPI_TAG != 5) {
                fprintf(stderr, "[%d] wildcard receive got %d tag %d\n", rank, got[c], st.MPI_TAG);
                errs++;
            }
        }
    }
    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
    return errs;
}

static int background(void)
{
    int errs = 0, rank, size, i, *buf, *out;
    char path[64] = "";
    MPI_Request rq;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        snprintf(path, sizeof path, "/tmp/gmpi_collov_%d", (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    buf = malloc(BIG * sizeof(int));
    out = malloc(BIG * sizeof(int));
    for (i = 0; i < BIG; i++)
        buf[i] = i + rank, out[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iallreduce(buf, out, BIG, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    if (rank == 0) {
        /* compute without MPI calls until rank 1 says it has the data */
        double t0 = now();
        volatile double x = 0;
        while (access(path, F_OK) != 0) {
            for (i = 0; i < 100000; i++)
                x += i * 0.5;
            if (now() - t0 > 120) {
                fprintf(stderr, "rank 0: the allreduce made no progress without MPI calls\n");
                errs++;
                break;
            }
        }
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        unlink(path);
    } else {
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        if (rank == 1) {
            FILE *f = fopen(path, "w");
            if (f)
                fclose(f);
        }
    }
    {
        for (i = 0; i < BIG; i++)
            if (out[i] != size * i + size * (size - 1) / 2) {
                fprintf(stderr, "[%d] background allreduce[%d] = %d\n", rank, i, out[i]);
                errs++;
                break;
            }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf), free(out);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    errs += overlapping();
    if (size > 1)
        errs += background();
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
