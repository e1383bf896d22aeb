/* Compile-only check (tests/abi/run.sh): the sentinels, predefined
 * callbacks and handle macros of mpi.h used the way programs use them. */
#include <mpi.h>
#include <stdio.h>

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    return MPI_DUP_FN(comm, keyval, extra, in, out, flag);
}

int main(int argc, char **argv)
{
    int keyval, flag, in = 1, rank = 0;
    int *depths = NULL, **colors = NULL;
    int sources[1] = {0}, dests[1] = {0};
    MPI_Comm graph;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status status;
    MPI_File fh = MPI_FILE_NULL;
    MPIO_Request ioreq = MPI_REQUEST_NULL;
    MPI_Aint disp;
    MPI_Fint f = MPI_Comm_c2f(MPI_COMM_WORLD);

    MPI_Init(&argc, &argv);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &keyval, NULL);
    MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &keyval, NULL);
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &keyval, NULL);
    MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &keyval, NULL);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, sources, MPI_UNWEIGHTED, 1, dests,
                                   MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &graph);
    MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, &status);
    MPI_Waitall(1, &req, MPI_STATUSES_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, &in, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(MPI_BOTTOM, 0, MPI_BYTE, 0, MPI_COMM_SELF);
    MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &graph,
                   MPI_ERRCODES_IGNORE);
    MPI_Get_address(&in, &disp);
    MPI_Attr_get(MPI_COMM_WORLD, MPICHX_TOPOLOGY_DEPTHS, &depths, &flag);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPICHX_TOPOLOGY_COLORS, &colors, &flag);
    if (flag && depths[rank] > MPICHX_LAN_LEVEL)
        MPI_Comm_split(MPI_COMM_WORLD, colors[rank][MPICHX_LAN_LEVEL], 0, &graph);
    MPI_File_open(MPI_COMM_WORLD, "f", MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    MPIO_Wait(&ioreq, &status);
    MPI_Pcontrol(0);
    MPI_Pcontrol(2, "phase", 3);
    printf("%d %g %ld\n", (int)f, MPI_Wtime(), (long)MPI_Aint_add(disp, 1));
    MPI_Finalize();
    return 0;
}
