/* dynjoin: MPI_Comm_join over a connected TCP socket. Ranks 0 and 1 of
 * the job connect a socket on loopback (the port number travels by
 * MPI_Send), then each joins over it from MPI_COMM_SELF: the result is an
 * intercommunicator of one process on each side, used for point-to-point,
 * an intercommunicator allreduce and a merge, then disconnected. The
 * caller's descriptor stays open and usable.
 *
 *   dynjoin socketpair   (started without mpirun: tests/scripts/dynproc.sh)
 *                        the process makes a Unix socketpair and starts
 *                        this program again with one end; each initializes
 *                        as a job of its own (a singleton) and joins over its
 *                        end: two jobs, one socketpair. Both print " No Errors"; the parent
 *                        exits non-zero when the child failed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "mtest.h"

/* join_over joins over fd as side 0 or 1, uses the result and adds the
 * errors found to *errp. */
static void join_over(int fd, int side, int *errp)
{
    int errs = 0;
    MPI_Comm inter;
    int rc = MPI_Comm_join(fd, &inter);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "join rc %d", rc);
    int flag, rsize, lsize;
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MTEST_CHECK(errs, flag && lsize == 1 && rsize == 1, "inter %d sizes %d/%d", flag, lsize, rsize);
    int v = 10 + side, got = -1;
    MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
    MTEST_CHECK(errs, got == 11 - side, "sendrecv got %d", got);
    int sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
    MTEST_CHECK(errs, sum == 11 - side, "allreduce got %d", sum);
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, side, &merged);
    int mr;
    MPI_Comm_rank(merged, &mr);
    MTEST_CHECK(errs, mr == side, "merged rank %d", mr);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    /* The descriptor is still ours and still connected. */
    char c = 'x', d = 0;
    MTEST_CHECK(errs, write(fd, &c, 1) == 1 && read(fd, &d, 1) == 1 && d == 'x', "socket after join");
    close(fd);
    *errp += errs;
}

/* pair_main: two singleton jobs joined over a socketpair. The child
 * runs this program again ("socketpair-end FD": a process that forked
 * from one with the Go runtime of libmpi running cannot initialize). */
static int pair_main(int argc, char **argv)
{
    int errs = 0, sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("socketpair");
        return 1;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        char fd[16];
        close(sv[0]);
        snprintf(fd, sizeof fd, "%d", sv[1]);
        execl("/proc/self/exe", argv[0], "socketpair-end", fd, (char *) NULL);
        perror("exec");
        _exit(127);
    }
    close(sv[1]);
    MTest_Init(&argc, &argv);
    join_over(sv[0], 0, &errs);
    MTest_Finalize(errs);
    int rc = MTestReturnValue(errs), st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "dynjoin: the other job failed (status %#x)\n", st);
        rc = 1;
    }
    return rc;
}

/* pair_end is the child's side of pair_main. */
static int pair_end(int argc, char **argv)
{
    int errs = 0, fd = atoi(argv[2]);
    MTest_Init(&argc, &argv);
    join_over(fd, 1, &errs);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    if (argc > 1 && strcmp(argv[1], "socketpair") == 0)
        return pair_main(argc, argv);
    if (argc > 2 && strcmp(argv[1], "socketpair-end") == 0)
        return pair_end(argc, argv);
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int fd = -1;
    if (rank == 0) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof a;
        bind(l, (struct sockaddr *) &a, sizeof a);
        listen(l, 1);
        getsockname(l, (struct sockaddr *) &a, &len);
        int port = ntohs(a.sin_port);
        MPI_Send(&port, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        fd = accept(l, NULL, NULL);
        close(l);
    } else if (rank == 1) {
        int port;
        MPI_Recv(&port, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (connect(fd, (struct sockaddr *) &a, sizeof a) != 0)
            MTestError("connect");
    }
    if (rank < 2)
        join_over(fd, rank, &errs);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
