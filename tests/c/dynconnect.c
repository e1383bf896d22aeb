/* dynconnect: two separately launched jobs meet through a port
 * (MPI_Open_port / MPI_Comm_accept / MPI_Comm_connect) and use the
 * intercommunicator: point-to-point both ways, intercommunicator bcast and
 * allreduce, MPI_Comm_dup, MPI_Intercomm_merge, then MPI_Comm_disconnect.
 * Run by tests/scripts/dynproc.sh:
 *
 *   dynconnect server FILE NCLIENTS [name]   accept NCLIENTS clients in turn;
 *                                            rank 0 writes the port name to FILE
 *                                            (or publishes it as SERVICE "name")
 *   dynconnect client FILE [name]            connect once (port from FILE or
 *                                            looked up under "name")
 *   dynconnect victim FILE                   connect, then block (the script
 *                                            kills it): the server must see an
 *                                            error and go on
 *
 * The server survives a client killed mid-session: with an error handler
 * that returns on the intercommunicator, every server rank's receive from
 * the victim fails (through the handler, naming the victim's job), it
 * frees the communicator and accepts the next client. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mtest.h"

#define SERVICE "gmpi-dynconnect-test"

static int errs = 0;

/* The intercommunicator's error handler for the victim: it records the
 * call and the message, and returns (the server goes on). */
static int handler_calls;
static char handler_msg[MPI_MAX_ERROR_STRING];
static void on_error(MPI_Comm *comm, int *code, ...)
{
    int len;
    (void) comm;
    handler_calls++;
    MPI_Error_string(*code, handler_msg, &len);
}

/* exercise runs the same sequence on both sides; server says which. */
static void exercise(MPI_Comm inter, int server)
{
    int rank, size, rsize, flag;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_test_inter(inter, &flag);
    MTEST_CHECK(errs, flag, "not an intercommunicator");

    /* Point-to-point: every local rank sends its rank to remote rank
     * rank % rsize and receives from every remote rank r with r % size ==
     * rank. Server side first, then the client side. */
    for (int phase = 0; phase < 2; phase++) {
        int sending = (phase == 0) == server;
        if (sending) {
            int v = 1000 * server + rank;
            MPI_Send(&v, 1, MPI_INT, rank % rsize, 7, inter);
        } else {
            for (int r = rank; r < rsize; r += size) {
                int v = -1;
                MPI_Status st;
                MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, inter, &st);
                MTEST_CHECK(errs, v == 1000 * !server + st.MPI_SOURCE && st.MPI_SOURCE % size == rank,
                            "p2p: got %d from %d", v, st.MPI_SOURCE);
            }
        }
    }

    /* A larger message both ways between the ranks 0 (rendezvous). */
    if (rank == 0) {
        int n = 300000;
        int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int));
        for (int i = 0; i < n; i++)
            a[i] = i * (server ? 3 : 5);
        MPI_Sendrecv(a, n, MPI_INT, 0, 8, b, n, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE);
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad += b[i] != i * (server ? 5 : 3);
        MTEST_CHECK(errs, bad == 0, "large message: %d wrong", bad);
        free(a);
        free(b);
    }

    /* Intercommunicator bcast from server rank 0. */
    int v = server ? 4242 : -1;
    if (server)
        MPI_Bcast(&v, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    else
        MPI_Bcast(&v, 1, MPI_INT, 0, inter);
    if (!server)
        MTEST_CHECK(errs, v == 4242, "bcast: %d", v);

    /* Intercommunicator allreduce: each side gets the sum of the other's. */
    int mine = server ? 1 : 100, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter);
    MTEST_CHECK(errs, sum == rsize * (server ? 100 : 1), "allreduce: %d", sum);

    /* Dup, then merge the dup: server first (high = 0). */
    MPI_Comm dup, merged;
    MPI_Comm_dup(inter, &dup);
    MPI_Intercomm_merge(dup, server ? 0 : 1, &merged);
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    MTEST_CHECK(errs, msize == size + rsize, "merged size %d", msize);
    MTEST_CHECK(errs, mrank == (server ? rank : rsize + rank), "merged rank %d", mrank);
    int all = mrank, tot = 0;
    MPI_Allreduce(&all, &tot, 1, MPI_INT, MPI_SUM, merged);
    MTEST_CHECK(errs, tot == msize * (msize - 1) / 2, "merged allreduce %d", tot);
    MPI_Barrier(merged);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&dup);
}

static void read_port(const char *file, char *port)
{
    for (int i = 0; i < 600; i++) {
        FILE *f = fopen(file, "r");
        if (f) {
            int ok = fgets(port, MPI_MAX_PORT_NAME, f) != NULL;
            fclose(f);
            if (ok) {
                port[strcspn(port, "\n")] = 0;
                return;
            }
        }
        usleep(100000);
    }
    MTestError("no port file");
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: dynconnect server|client|victim FILE [N] [name]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argv[1], *file = argv[2];
    char port[MPI_MAX_PORT_NAME] = "";

    if (strcmp(mode, "server") == 0) {
        int n = argc > 3 ? atoi(argv[3]) : 1;
        int byname = argc > 4 && strcmp(argv[4], "name") == 0;
        if (rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MTEST_CHECK(errs, strlen(port) > 0 && strlen(port) < MPI_MAX_PORT_NAME, "port name");
            if (byname) {
                MPI_Publish_name(SERVICE, MPI_INFO_NULL, port);
            }
            char tmp[4096];
            snprintf(tmp, sizeof tmp, "%s.tmp", file);
            FILE *f = fopen(tmp, "w");
            fprintf(f, "%s\n", port);
            fclose(f);
            rename(tmp, file);
        }
        for (int i = 0; i < n; i++) {
            MPI_Comm inter;
            int rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "accept %d: rc %d", i, rc);
            if (rc != MPI_SUCCESS)
                break;
            /* The client says whether it is a victim (to be killed). */
            int kind = 0;
            if (rank == 0)
                MPI_Recv(&kind, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
            MPI_Bcast(&kind, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (kind == 1) {
                /* The victim is killed while every server rank waits for a
                 * message from it: each sees the error through the
                 * intercommunicator's error handler (also rank 1, which
                 * never talked to it), naming the victim's job, and goes
                 * on. */
                MPI_Errhandler eh;
                MPI_Comm_create_errhandler(on_error, &eh);
                MPI_Comm_set_errhandler(inter, eh);
                MPI_Errhandler_free(&eh);
                handler_calls = 0;
                int v;
                rc = MPI_Recv(&v, 1, MPI_INT, 0, 99, inter, MPI_STATUS_IGNORE);
                MTEST_CHECK(errs, rc != MPI_SUCCESS, "receive from a killed client succeeded");
                MTEST_CHECK(errs, handler_calls == 1, "error handler called %d times", handler_calls);
                MTEST_CHECK(errs, strstr(handler_msg, "connected job") != NULL, "message does not name the job: %s", handler_msg);
                if (rank == 0) {
                    printf("server saw: %s\n", handler_msg);
                    fflush(stdout);
                }
                MPI_Comm_free(&inter);
                continue;
            }
            exercise(inter, 1);
            MPI_Comm_disconnect(&inter);
            MTEST_CHECK(errs, inter == MPI_COMM_NULL, "disconnect left the handle");
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            if (byname)
                MPI_Unpublish_name(SERVICE, MPI_INFO_NULL, port);
            MPI_Close_port(port);
        }
    } else {
        int byname = argc > 3 && strcmp(argv[3], "name") == 0;
        if (rank == 0) {
            if (byname) {
                int rc;
                for (int i = 0; i < 600; i++) {
                    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
                    rc = MPI_Lookup_name(SERVICE, MPI_INFO_NULL, port);
                    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
                    if (rc == MPI_SUCCESS)
                        break;
                    usleep(100000);
                }
                MTEST_CHECK(errs, rc == MPI_SUCCESS, "lookup: rc %d", rc);
            } else {
                read_port(file, port);
            }
        }
        MPI_Comm inter;
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        int kind = strcmp(mode, "victim") == 0;
        if (rank == 0)
            MPI_Send(&kind, 1, MPI_INT, 0, 1, inter);
        if (kind) {
            printf("victim connected\n");
            fflush(stdout);
            for (;;)
                sleep(1); /* killed by the script */
        }
        exercise(inter, 0);
        MPI_Comm_disconnect(&inter);
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
