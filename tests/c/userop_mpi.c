/*
 * A user-defined MPI_Op whose function calls MPI (MPI_Comm_rank,
 * MPI_Type_size, MPI_Type_get_extent) must work wherever the library runs
 * it: in the calling thread inside a blocking reduction, and on the
 * background progress goroutine that advances nonblocking reductions
 * while the program computes without calling MPI (the goroutine holds the
 * library's baton then; the op's MPI calls must not wait for it).
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include "mtest.h"

static int op_calls, op_bad;

/* Sums ints; checks what MPI tells it about the datatype on the way. */
static void sum_asking_mpi(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int rank = -1, size = 0;
    MPI_Aint lb = -1, extent = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_size(*dt, &size);
    MPI_Type_get_extent(*dt, &lb, &extent);
    if (rank < 0 || size != (int) sizeof(int) || lb != 0 || extent != (MPI_Aint) sizeof(int))
        op_bad++;
    op_calls++;
    for (int i = 0; i < *len; i++)
        ((int *) inout)[i] += ((int *) in)[i];
}

/* compute spins for about ms milliseconds without calling MPI. */
static void compute(double ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
}

#define N 1000

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    static int in[N], out[N];
    MPI_Op op;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op_create(sum_asking_mpi, 1, &op);
    for (int iter = 0; iter < 20; iter++) {
        for (int i = 0; i < N; i++)
            in[i] = rank + i + iter;
        int want0 = size * (size - 1) / 2 + size * iter;
        /* Nonblocking: the reduction steps run while this rank computes
         * (on the progress goroutine) or in MPI_Wait. */
        MPI_Request req[2];
        MPI_Iallreduce(in, out, N, MPI_INT, op, MPI_COMM_WORLD, &req[0]);
        compute(2);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            if (out[i] != want0 + size * i) {
                if (errs++ < 5)
                    printf("[%d] iallreduce iter %d: out[%d] = %d, want %d\n", rank, iter, i, out[i], want0 + size * i);
                break;
            }
        /* Blocking, while a nonblocking collective keeps the progress
         * goroutine alive: the op runs in this thread, which holds the
         * baton for its call. */
        MPI_Ibarrier(MPI_COMM_WORLD, &req[1]);
        MPI_Reduce(in, out, N, MPI_INT, op, 0, MPI_COMM_WORLD);
        compute(1);
        MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        if (rank == 0)
            for (int i = 0; i < N; i++)
                if (out[i] != want0 + size * i) {
                    if (errs++ < 5)
                        printf("[%d] reduce iter %d: out[%d] = %d, want %d\n", rank, iter, i, out[i], want0 + size * i);
                    break;
                }
    }
    /* And in MPI_Reduce_local, while a nonblocking collective is out. */
    MPI_Request r;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    for (int i = 0; i < N; i++)
        out[i] = i;
    MPI_Reduce_local(in, out, N, MPI_INT, op);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (op_bad) {
        errs++;
        printf("[%d] %d of %d op calls got wrong answers from MPI\n", rank, op_bad, op_calls);
    }
    if (size > 1 && op_calls == 0) {
        errs++;
        printf("[%d] the user op never ran\n", rank);
    }
    MPI_Op_free(&op);
    MTest_Finalize(errs);
    return 0;
}
