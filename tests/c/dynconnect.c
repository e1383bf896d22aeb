/* dynconnect: two separately launched jobs meet through a port
 * (MPI_Open_port / MPI_Comm_accept / MPI_Comm_connect) and use the
 * intercommunicator: point-to-point both ways, intercommunicator bcast and
 * allreduce (each side's root in turn), MPI_Comm_dup, MPI_Intercomm_merge,
 * then MPI_Comm_disconnect. Run by tests/scripts/dynproc.sh, dynsizes.sh
 * and dyngrid.sh:
 *
 *   dynconnect server FILE N [SERVICE]   accept N connections in turn; rank 0
 *                                        writes the port name to FILE (and
 *                                        publishes it as SERVICE)
 *   dynconnect client FILE [SERVICE]     connect once (port from FILE, or
 *                                        looked up under SERVICE)
 *   dynconnect both FILE SERVICE         connect twice: through FILE, then
 *                                        through SERVICE (two connections)
 *   dynconnect forged FILE               connect to the port of FILE with a
 *                                        wrong secret: MPI_ERR_PORT, and the
 *                                        server takes no connection from it
 *   dynconnect victim FILE               connect, then block (the script
 *                                        kills it): the server must see an
 *                                        error and go on
 *
 * The server survives a client killed mid-session: with an error handler
 * that returns on the intercommunicator, every server rank's receive from
 * the victim fails (through the handler, naming the victim's job), even
 * one from MPI_ANY_SOURCE, and so do a later one and probes; it frees
 * the communicator and accepts the next client. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mtest.h"

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
    /* And from the client's last rank. */
    v = server ? -1 : 5151;
    if (server)
        MPI_Bcast(&v, 1, MPI_INT, rsize - 1, inter);
    else
        MPI_Bcast(&v, 1, MPI_INT, rank == size - 1 ? MPI_ROOT : MPI_PROC_NULL, inter);
    if (server)
        MTEST_CHECK(errs, v == 5151, "bcast from the client: %d", v);

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

/* lookup_port finds SERVICE's port (rank 0; the server may not have
 * published it yet). */
static void lookup_port(const char *service, char *port)
{
    int rc = MPI_ERR_NAME;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; i < 600; i++) {
        rc = MPI_Lookup_name(service, MPI_INFO_NULL, port);
        if (rc == MPI_SUCCESS)
            break;
        usleep(100000);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "lookup %s: rc %d", service, rc);
}

/* victim_seen runs on every server rank once the client that said it is
 * a victim is killed: a receive pending when it dies fails through the
 * intercommunicator's error handler (rank 0 names the source, the others
 * use MPI_ANY_SOURCE), naming the job; so does a later receive of the
 * other kind. The victim is told to wait for its end once every receive
 * is posted. */
static void victim_seen(MPI_Comm inter, int rank)
{
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_set_errhandler(inter, eh);
    MPI_Errhandler_free(&eh);
    handler_calls = 0;
    int v, rc, cls = -1;
    int src = rank == 0 ? 0 : MPI_ANY_SOURCE;
    /* Every receive is posted before the victim says it is connected
     * (the script kills it then). */
    MPI_Request req;
    MPI_Irecv(&v, 1, MPI_INT, src, 99, inter, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    int go = 1;
    if (rank == 0)
        MPI_Send(&go, 1, MPI_INT, 0, 2, inter);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, rc != MPI_SUCCESS, "receive (source %d) from a killed client succeeded", src);
    MTEST_CHECK(errs, handler_calls == 1, "error handler called %d times", handler_calls);
    MTEST_CHECK(errs, strstr(handler_msg, "connected job") != NULL, "message does not name the job: %s", handler_msg);
    if (rank == 0) {
        printf("server saw: %s\n", handler_msg);
        fflush(stdout);
    }
    /* A receive posted after the failure fails too (the other kind of
     * source). */
    src = rank == 0 ? MPI_ANY_SOURCE : 0;
    rc = MPI_Irecv(&v, 1, MPI_INT, src, 98, inter, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, rc != MPI_SUCCESS && cls != MPI_SUCCESS, "a later receive (source %d) succeeded", src);
    MTEST_CHECK(errs, handler_calls == 2, "error handler called %d times after the later receive", handler_calls);
    /* Probes find nothing and never will: they fail too, blocking ones
     * rather than wait (each kind of source on each rank). */
    int flag = 0;
    MPI_Message msg;
    rc = MPI_Iprobe(src, 97, inter, &flag, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, rc != MPI_SUCCESS && !flag, "MPI_Iprobe (source %d) on a lost job: rc %d flag %d", src, rc, flag);
    rc = MPI_Probe(rank == 0 ? 0 : MPI_ANY_SOURCE, 97, inter, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, rc != MPI_SUCCESS, "MPI_Probe on a lost job succeeded");
    rc = MPI_Mprobe(src, 97, inter, &msg, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, rc != MPI_SUCCESS, "MPI_Mprobe on a lost job succeeded");
    MTEST_CHECK(errs, handler_calls == 5, "error handler called %d times after the probes", handler_calls);
    MPI_Comm_free(&inter);
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: dynconnect server|client|both|forged|victim FILE [N] [SERVICE]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argv[1], *file = argv[2];
    char port[MPI_MAX_PORT_NAME] = "";

    if (strcmp(mode, "server") == 0) {
        int n = argc > 3 ? atoi(argv[3]) : 1;
        const char *service = argc > 4 ? argv[4] : NULL;
        if (rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MTEST_CHECK(errs, strlen(port) > 0 && strlen(port) < MPI_MAX_PORT_NAME, "port name");
            if (service)
                MPI_Publish_name(service, MPI_INFO_NULL, port);
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
                victim_seen(inter, rank);
                continue;
            }
            int rsize;
            MPI_Comm_remote_size(inter, &rsize);
            exercise(inter, 1);
            MPI_Comm_disconnect(&inter);
            MTEST_CHECK(errs, inter == MPI_COMM_NULL, "disconnect left the handle");
            if (rank == 0) {
                int size;
                MPI_Comm_size(MPI_COMM_WORLD, &size);
                printf("served %d x %d\n", size, rsize);
                fflush(stdout);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            if (service)
                MPI_Unpublish_name(service, MPI_INFO_NULL, port);
            MPI_Close_port(port);
        }
    } else if (strcmp(mode, "forged") == 0) {
        if (rank == 0) {
            read_port(file, port);
            char *sec = strrchr(port, ';');
            MTEST_CHECK(errs, sec != NULL, "port name %s", port);
            if (sec)
                for (char *p = sec + 1; *p; p++)
                    *p = *p == '0' ? '1' : '0';
        }
        MPI_Info quick;
        MPI_Info_create(&quick);
        MPI_Info_set(quick, "timeout", "2");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm inter = MPI_COMM_WORLD;
        int rc = MPI_Comm_connect(port, quick, 0, MPI_COMM_WORLD, &inter), cls = -1;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_PORT && inter == MPI_COMM_NULL, "forged secret: class %d", cls);
        MPI_Info_free(&quick);
    } else {
        int twice = strcmp(mode, "both") == 0;
        const char *service = argc > 3 ? argv[3] : NULL;
        for (int round = 0; round <= twice; round++) {
            if (rank == 0) {
                if (service && (!twice || round == 1))
                    lookup_port(service, port);
                else
                    read_port(file, port);
            }
            MPI_Comm inter;
            MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
            int kind = strcmp(mode, "victim") == 0;
            if (rank == 0)
                MPI_Send(&kind, 1, MPI_INT, 0, 1, inter);
            if (kind) {
                int go;
                if (rank == 0)
                    MPI_Recv(&go, 1, MPI_INT, 0, 2, inter, MPI_STATUS_IGNORE);
                printf("victim connected\n");
                fflush(stdout);
                for (;;)
                    sleep(1); /* killed by the script */
            }
            exercise(inter, 0);
            MPI_Comm_disconnect(&inter);
        }
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
