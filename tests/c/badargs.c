/* badargs: every function of the API table that takes a handle by value
 * (or, to free, commit, close, start or cancel it, by pointer) is called
 * with the null handle and with a freed handle in that position, and every function with a count with a negative count, the
 * other arguments valid; each call must fail with the class the standard
 * names (MPI_ERR_COMM, MPI_ERR_TYPE, MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_ARG
 * for error handlers, MPI_ERR_INFO, MPI_ERR_FILE, MPI_ERR_WIN,
 * MPI_ERR_REQUEST, MPI_ERR_SESSION, MPI_ERR_COUNT), with an
 * error string naming the function, and never crash. The calls are
 * generated from capi/spec/mpi.txt into badargs_calls.h (go generate in
 * capi/). Run on one process: nothing communicates when the checks hold. */
#include "mtest_err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Pointer arguments: a zeroed scratch slot per parameter position. */
#define SLOT 4096
#define NSLOT 24
static char *scratch;
#define S(i) ((void *)(scratch + (i) * SLOT))
#define S_RESET() memset(scratch, 0, (size_t)SLOT * NSLOT)

static MPI_Comm bad_comm[2];
static MPI_Datatype bad_type[2];
static MPI_Group bad_group[2], world_group;
static MPI_Op bad_op[2];
static MPI_Errhandler bad_errh[2];
static MPI_Info bad_info[2];
static MPI_File bad_file[2], good_file;
static MPI_Win bad_win[2], good_win;
static MPI_Request bad_req[2];
static MPI_Session bad_session[2];
static char win_mem[64];
/* BADARGS_NULL_ONLY=1 leaves out the freed handles (to compare with MPICH,
 * which cannot tell a freed handle and crashes on some). */
static int nbad = 2;
/* Communicators with a topology for the topology functions, and a
 * message handle that is valid for MPI_Mrecv. */
static MPI_Comm cart_comm, graph_comm, dgraph_comm;
static MPI_Message msg_np;
#define MSG_NOPROC() (msg_np = MPI_MESSAGE_NO_PROC, &msg_np)

static void user_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

static void user_eh(MPI_Comm *c, int *code, ...) { (void)c, (void)code; }

#include "badargs_calls.h"

int main(int argc, char **argv)
{
    int errs = 0;
    const char *e = getenv("BADARGS_NULL_ONLY");
    if (e && atoi(e) == 1)
        nbad = 1;
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    scratch = aligned_alloc(64, (size_t)SLOT * NSLOT);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    {
        int dims[1] = {1}, periods[1] = {1}, index[1] = {1}, edges[1] = {0}, one[1] = {0};
        MPI_Cart_create(MPI_COMM_SELF, 1, dims, periods, 0, &cart_comm);
        MPI_Graph_create(MPI_COMM_SELF, 1, index, edges, 0, &graph_comm);
        MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 1, one, MPI_UNWEIGHTED, 1, one, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &dgraph_comm);
    }

    bad_comm[0] = MPI_COMM_NULL;
    bad_type[0] = MPI_DATATYPE_NULL;
    bad_group[0] = MPI_GROUP_NULL;
    bad_op[0] = MPI_OP_NULL;
    bad_errh[0] = MPI_ERRHANDLER_NULL;
    bad_info[0] = MPI_INFO_NULL;
    bad_file[0] = MPI_FILE_NULL;
    bad_win[0] = MPI_WIN_NULL;
    bad_req[0] = MPI_REQUEST_NULL;
    bad_session[0] = MPI_SESSION_NULL;
    /* A valid window and file for the one-sided and I/O functions, and a
     * freed one of each, made before the other freed handles: a window and a
     * file hold communicators, which would take the freed slots. */
    {
        char path[64];
        MPI_File f;
        MPI_Win w;
        int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
        snprintf(path, sizeof path, "/tmp/badargs-%d.dat", (int)getpid());
        if (MPI_Win_create(win_mem, sizeof win_mem, 1, MPI_INFO_NULL, MPI_COMM_SELF, &good_win) != MPI_SUCCESS ||
            MPI_Win_create(win_mem, sizeof win_mem, 1, MPI_INFO_NULL, MPI_COMM_SELF, &w) != MPI_SUCCESS ||
            MPI_File_open(MPI_COMM_SELF, path, amode, MPI_INFO_NULL, &good_file) != MPI_SUCCESS ||
            MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR, MPI_INFO_NULL, &f) != MPI_SUCCESS) {
            fprintf(stderr, "cannot create the window and file to test with\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        unlink(path); /* nothing left behind, even if the test dies */
        MPI_Win_set_errhandler(good_win, MPI_ERRORS_RETURN);
        MPI_File_set_errhandler(good_file, MPI_ERRORS_RETURN);
        bad_win[1] = w;
        MPI_Win_free(&w);
        bad_file[1] = f;
        MPI_File_close(&f);
    }
    /* Freed handles: the value each had before MPI_*_free nulled it. */
    {
        MPI_Comm c;
        MPI_Datatype t;
        MPI_Group g;
        MPI_Op o;
        MPI_Errhandler e;
        MPI_Info in;
        MPI_Comm_dup(MPI_COMM_SELF, &c);
        bad_comm[1] = c;
        MPI_Comm_free(&c);
        MPI_Type_contiguous(2, MPI_INT, &t);
        MPI_Type_commit(&t);
        bad_type[1] = t;
        MPI_Type_free(&t);
        MPI_Group_incl(world_group, 1, (int[]){0}, &g);
        bad_group[1] = g;
        MPI_Group_free(&g);
        MPI_Op_create(user_op, 1, &o);
        bad_op[1] = o;
        MPI_Op_free(&o);
        MPI_Comm_create_errhandler(user_eh, &e);
        bad_errh[1] = e;
        MPI_Errhandler_free(&e);
        MPI_Info_create(&in);
        bad_info[1] = in;
        MPI_Info_free(&in);
        MPI_Request r;
        static int one;
        MPI_Send_init(&one, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &r);
        bad_req[1] = r;
        MPI_Request_free(&r);
        MPI_Session s;
        if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS) {
            fprintf(stderr, "cannot make a session to test with\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        bad_session[1] = s;
        MPI_Session_finalize(&s);
    }
    errs += badargs_calls();
    MPI_Win_free(&good_win);
    MPI_File_close(&good_file);
    MPI_Comm_free(&cart_comm);
    MPI_Comm_free(&graph_comm);
    MPI_Comm_free(&dgraph_comm);
    MPI_Group_free(&world_group);
    free(scratch);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
