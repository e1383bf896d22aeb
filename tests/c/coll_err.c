/* coll_err: argument errors of the collectives, reported as MPICH does
 * (class, and a message naming the function and the argument), in the
 * blocking, nonblocking, persistent and large-count forms, on
 * intracommunicators and an intercommunicator. After the errors, the
 * communicator still works (a correct allreduce). */
#include "mtest_err.h"
#include <stdlib.h>

int main(int argc, char **argv)
{
    int errs = 0, rank, size, i, one = 1, out = 0;
    int sb[64], rb[64], counts[64], displs[64], negc[64];
    MPI_Datatype types[64];
    MPI_Request rq;
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Datatype uncommitted;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    for (i = 0; i < 64; i++)
        counts[i] = 1, displs[i] = i, negc[i] = i == size - 1 ? -1 : 1, types[i] = MPI_INT;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);

    /* root out of range */
    EXPECT_ERR(errs, MPI_Bcast(sb, 1, MPI_INT, size, comm), MPI_ERR_ROOT, "MPI_Bcast", "root");
    EXPECT_ERR(errs, MPI_Ibcast(sb, 1, MPI_INT, -1, comm, &rq), MPI_ERR_ROOT, "MPI_Ibcast", "root");
    EXPECT_ERR(errs, MPI_Gather(sb, 1, MPI_INT, rb, 1, MPI_INT, size + 3, comm), MPI_ERR_ROOT,
               "MPI_Gather", "root");
    EXPECT_ERR(errs, MPI_Scatterv_init(sb, counts, displs, MPI_INT, rb, 1, MPI_INT, MPI_ROOT, comm,
                                       MPI_INFO_NULL, &rq),
               MPI_ERR_ROOT, "MPI_Scatterv_init", "root");
    EXPECT_ERR(errs, MPI_Reduce_c(sb, rb, 1, MPI_INT, MPI_SUM, -5, comm), MPI_ERR_ROOT,
               "MPI_Reduce_c", "root");

    /* negative counts */
    EXPECT_ERR(errs, MPI_Allreduce(sb, rb, -1, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT,
               "MPI_Allreduce", "count");
    EXPECT_ERR(errs, MPI_Iallgather(sb, -2, MPI_INT, rb, 1, MPI_INT, comm, &rq), MPI_ERR_COUNT,
               "MPI_Iallgather", "sendcount");
    EXPECT_ERR(errs, MPI_Alltoall_c(sb, 1, MPI_INT, rb, -4, MPI_INT, comm), MPI_ERR_COUNT,
               "MPI_Alltoall_c", "recvcount");
    EXPECT_ERR(errs, MPI_Alltoallv(sb, negc, displs, MPI_INT, rb, counts, displs, MPI_INT, comm),
               MPI_ERR_COUNT, "MPI_Alltoallv", "sendcounts");
    EXPECT_ERR(errs, MPI_Reduce_scatter(sb, rb, negc, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT,
               "MPI_Reduce_scatter", "recvcounts");
    EXPECT_ERR(errs, MPI_Scan_init(sb, rb, -1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &rq),
               MPI_ERR_COUNT, "MPI_Scan_init", "count");

    /* datatypes and ops */
    EXPECT_ERR(errs, MPI_Allgather(sb, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INT, comm), MPI_ERR_TYPE,
               "MPI_Allgather", "sendtype");
    EXPECT_ERR(errs, MPI_Bcast(sb, 1, uncommitted, 0, comm), MPI_ERR_TYPE, "MPI_Bcast", "datatype");
    EXPECT_ERR(errs, MPI_Allreduce(sb, rb, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP,
               "MPI_Allreduce", NULL);
    EXPECT_ERR(errs, MPI_Exscan(sb, rb, 1, MPI_BYTE, MPI_SUM, comm), MPI_ERR_OP, "MPI_Exscan", NULL);
    types[0] = MPI_DATATYPE_NULL;
    EXPECT_ERR(errs, MPI_Alltoallw(sb, counts, displs, types, rb, counts, displs, types, comm),
               MPI_ERR_TYPE, "MPI_Alltoallw", "sendtypes");
    types[0] = MPI_INT;

    /* buffers: NULL with a positive count, aliasing, MPI_IN_PLACE misuse */
    EXPECT_ERR(errs, MPI_Bcast(NULL, 3, MPI_INT, 0, comm), MPI_ERR_BUFFER, "MPI_Bcast", "buffer");
    EXPECT_ERR(errs, MPI_Iallreduce(NULL, rb, 2, MPI_INT, MPI_SUM, comm, &rq), MPI_ERR_BUFFER,
               "MPI_Iallreduce", "sendbuf");
    EXPECT_ERR(errs, MPI_Allreduce(sb, sb, 2, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
               "MPI_Allreduce", "sendbuf");
    EXPECT_ERR(errs, MPI_Allgather(sb, 1, MPI_INT, sb, 1, MPI_INT, comm), MPI_ERR_BUFFER,
               "MPI_Allgather", "sendbuf");
    EXPECT_ERR(errs, MPI_Alltoall(sb, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm), MPI_ERR_BUFFER,
               "MPI_Alltoall", "recvbuf");
    EXPECT_ERR(errs, MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER, "MPI_Bcast",
               "buffer");
    EXPECT_ERR(errs, MPI_Gather(sb, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, rank, comm),
               MPI_ERR_BUFFER, "MPI_Gather", "recvbuf");
    if (size > 1) {
        EXPECT_ERR(errs, MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, rb, 1, MPI_INT, (rank + 1) % size, comm),
                   MPI_ERR_BUFFER, "MPI_Gather", "sendbuf");
        EXPECT_ERR(errs,
                   MPI_Iscatter(sb, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, (rank + 1) % size, comm, &rq),
                   MPI_ERR_BUFFER, "MPI_Iscatter", "recvbuf");
        EXPECT_ERR(errs, MPI_Reduce(MPI_IN_PLACE, rb, 1, MPI_INT, MPI_SUM, (rank + 1) % size, comm),
                   MPI_ERR_BUFFER, "MPI_Reduce", "sendbuf");
    }
    EXPECT_ERR(errs, MPI_Gatherv(sb, 1, MPI_INT, rb, NULL, displs, MPI_INT, rank, comm), MPI_ERR_ARG,
               "MPI_Gatherv", "recvcounts");

    /* request and info of the nonblocking and persistent forms */
    EXPECT_ERR(errs, MPI_Ibarrier(comm, NULL), MPI_ERR_ARG, "MPI_Ibarrier", "request");
    EXPECT_ERR(errs, MPI_Barrier_init(comm, (MPI_Info)0x1c0000ff, &rq), MPI_ERR_INFO,
               "MPI_Barrier_init", "info");
    EXPECT_ERR(errs, MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Barrier", "comm");

    /* intercommunicator: no scan, no MPI_IN_PLACE */
    if (size > 1) {
        MPI_Comm local, ic;
        int grp = rank % 2;
        MPI_Comm_split(MPI_COMM_WORLD, grp, rank, &local);
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, grp ? 0 : 1, 3, &ic);
        MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
        EXPECT_ERR(errs, MPI_Scan(sb, rb, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM, "MPI_Scan", "comm");
        EXPECT_ERR(errs, MPI_Allreduce(MPI_IN_PLACE, rb, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_BUFFER,
                   "MPI_Allreduce", "sendbuf");
        EXPECT_ERR(errs, MPI_Bcast(sb, 1, MPI_INT, 99, ic), MPI_ERR_ROOT, "MPI_Bcast", "root");
        EXPECT_OK(errs, MPI_Barrier(ic));
        MPI_Comm_free(&ic);
        MPI_Comm_free(&local);
    }

    /* NULL buffers with positive counts, also with derived datatypes whose
     * displacements are small (MPI_BOTTOM with them touches the first
     * page), and counts whose span overflows: MPI_ERR_BUFFER and
     * MPI_ERR_COUNT, never a panic turned into MPI_ERR_INTERN. */
    {
        MPI_Datatype pair, huge;
        int pos = 0;
        char pk[64];
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        MPI_Type_contiguous(1 << 30, MPI_INT, &huge);
        MPI_Type_commit(&huge);
        EXPECT_ERR(errs, MPI_Allreduce(sb, NULL, 4, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER, "MPI_Allreduce", "recvbuf");
        EXPECT_ERR(errs, MPI_Allreduce(sb, NULL, 2, pair, MPI_SUM, comm), MPI_ERR_BUFFER, "MPI_Allreduce", "recvbuf");
        EXPECT_ERR(errs, MPI_Bcast(NULL, 2, pair, 0, comm), MPI_ERR_BUFFER, "MPI_Bcast", "buffer");
        EXPECT_ERR(errs, MPI_Allreduce(sb, rb, 1000, huge, MPI_SUM, comm), MPI_ERR_COUNT, "MPI_Allreduce", NULL);
        EXPECT_ERR(errs, MPI_Allgather(sb, 1, MPI_INT, NULL, 1, MPI_INT, comm), MPI_ERR_BUFFER, "MPI_Allgather", "recvbuf");
        EXPECT_ERR(errs, MPI_Reduce_local(sb, NULL, 2, pair, MPI_SUM), MPI_ERR_BUFFER, "MPI_Reduce_local", "inoutbuf");
        EXPECT_ERR(errs, MPI_Reduce_local(sb, rb, 1000, huge, MPI_SUM), MPI_ERR_COUNT, "MPI_Reduce_local", NULL);
        EXPECT_ERR(errs, MPI_Pack(NULL, 2, MPI_INT, pk, 64, &pos, comm), MPI_ERR_BUFFER, "MPI_Pack", "inbuf");
        pos = 0;
        EXPECT_ERR(errs, MPI_Unpack(pk, 64, &pos, NULL, 2, MPI_INT, comm), MPI_ERR_BUFFER, "MPI_Unpack", "outbuf");
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        EXPECT_ERR(errs, MPI_Send(sb, 1000, huge, 0, 0, MPI_COMM_SELF), MPI_ERR_COUNT, "MPI_Send", NULL);
        MPI_Datatype mid;
        MPI_Type_contiguous(1 << 16, MPI_INT, &mid);
        MPI_Type_commit(&mid);
        for (i = 0; i < size; i++)
            counts[i] = 0, displs[i] = 0;
        counts[size - 1] = 1;
        displs[size - 1] = 0x7fffffff;
        EXPECT_ERR(errs, MPI_Allgatherv(sb, 1, mid, rb, counts, displs, mid, comm), MPI_ERR_ARG, "MPI_Allgatherv", "displs");
        MPI_Type_free(&mid);
        /* MPI_BOTTOM with absolute addresses stays valid. */
        MPI_Aint addr;
        MPI_Datatype abs;
        int blk = 1, v = rank + 1;
        MPI_Get_address(&v, &addr);
        MPI_Type_create_hindexed(1, &blk, &addr, MPI_INT, &abs);
        MPI_Type_commit(&abs);
        EXPECT_OK(errs, MPI_Bcast(MPI_BOTTOM, 1, abs, 0, comm));
        MTEST_CHECK(errs, v == 1, "bcast into MPI_BOTTOM gave %d", v);
        MPI_Type_free(&abs);
        MPI_Type_free(&pair);
        MPI_Type_free(&huge);
    }

    /* still usable */
    EXPECT_OK(errs, MPI_Allreduce(&one, &out, 1, MPI_INT, MPI_SUM, comm));
    if (out != size)
        errs++;
    MPI_Type_free(&uncommitted);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
