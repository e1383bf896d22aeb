/* dynspawn: MPI_Comm_spawn and MPI_Comm_spawn_multiple.
 *
 * The parents (any number; testlist: 1 and 2) spawn 1, 2, 3 and 4 copies
 * of this program ("child N"), one spawn after another: every errcode is
 * MPI_SUCCESS, the intercommunicator has N remote processes, an
 * intercommunicator bcast reaches the children, each child sends back its
 * rank and world size, and the children's MPI_Comm_get_parent is that
 * intercommunicator (disconnected at the end).
 * Then spawn_multiple starts "multi A" (1 process) and "multi B" (2): each
 * checks MPI_APPNUM (0 and 1) and its arguments; the A process spawns a
 * grandchild of its own (a spawn from a spawned job) and exchanges a
 * message with it. These are not disconnected: parents and children just
 * finalize. Children report their error counts to the parents, which
 * print the result. */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

static int child_main(int argc, char **argv, MPI_Comm parent)
{
    int errs = 0, rank, size, appnum = -1, flag = 0, *ap;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &ap, &flag);
    if (flag)
        appnum = *ap;
    int inter, rsize;
    MPI_Comm_test_inter(parent, &inter);
    MPI_Comm_remote_size(parent, &rsize);
    MTEST_CHECK(errs, inter && rsize >= 1, "parent comm: inter %d remote size %d", inter, rsize);
    if (strcmp(argv[1], "child") == 0) {
        int n = argc > 2 ? atoi(argv[2]) : -1;
        MTEST_CHECK(errs, size == n && appnum == 0, "child: size %d of %d, appnum %d", size, n, appnum);
        int v = 0;
        MPI_Bcast(&v, 1, MPI_INT, 0, parent);
        MTEST_CHECK(errs, v == 777, "child: bcast got %d", v);
        int me[2] = {rank, size};
        MPI_Send(me, 2, MPI_INT, 0, 5, parent);
        MPI_Send(&errs, 1, MPI_INT, 0, 6, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Comm p2;
        MPI_Comm_get_parent(&p2);
        if (p2 != MPI_COMM_NULL)
            fprintf(stderr, "child: get_parent after disconnect is not MPI_COMM_NULL\n");
    } else if (strcmp(argv[1], "multi") == 0) {
        int want = strcmp(argv[2], "A") == 0 ? 0 : 1;
        MTEST_CHECK(errs, appnum == want, "multi %s: appnum %d", argv[2], appnum);
        MTEST_CHECK(errs, size == 3, "multi: world size %d", size);
        MTEST_CHECK(errs, argc == 4 && strcmp(argv[3], want ? "bee" : "ay") == 0, "multi: args");
        if (want == 0) {
            /* Spawn from a spawned job. */
            MPI_Comm g;
            int code = -1;
            char *gargv[] = {"grand", NULL};
            MPI_Comm_spawn(argv[0], gargv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &g, &code);
            MTEST_CHECK(errs, code == MPI_SUCCESS, "grandchild errcode %d", code);
            int v = 99, back = 0;
            MPI_Send(&v, 1, MPI_INT, 0, 1, g);
            MPI_Recv(&back, 1, MPI_INT, 0, 2, g, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, back == 100, "grandchild answered %d", back);
            MPI_Comm_disconnect(&g);
        }
        int all = 0;
        MPI_Reduce(&errs, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Send(&all, 1, MPI_INT, 0, 6, parent);
    } else if (strcmp(argv[1], "grand") == 0) {
        int v = 0;
        MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
        v++;
        MPI_Send(&v, 1, MPI_INT, 0, 2, parent);
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        return child_main(argc, argv, parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int *usize, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    MTEST_CHECK(errs, flag && *usize >= size, "universe size: flag %d", flag);

    /* 1. 1 to 4 children, each time disconnected at the end. */
    int rsize;
    for (int n = 1; n <= 4; n++) {
        MPI_Comm inter;
        int codes[4] = {-1, -1, -1, -1};
        char nstr[8];
        snprintf(nstr, sizeof nstr, "%d", n);
        char *cargv[] = {"child", nstr, NULL};
        MPI_Comm_spawn(argv[0], cargv, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
        if (rank == 0)
            for (int i = 0; i < n; i++)
                MTEST_CHECK(errs, codes[i] == MPI_SUCCESS, "%d children: errcode[%d] = %d", n, i, codes[i]);
        MPI_Comm_remote_size(inter, &rsize);
        MTEST_CHECK(errs, rsize == n, "remote size %d, spawned %d", rsize, n);
        int v = 777;
        MPI_Bcast(&v, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
        if (rank == 0) {
            int seen = 0;
            for (int i = 0; i < n; i++) {
                int me[2], cerrs;
                MPI_Status st;
                MPI_Recv(me, 2, MPI_INT, MPI_ANY_SOURCE, 5, inter, &st);
                MTEST_CHECK(errs, me[0] == st.MPI_SOURCE && me[1] == n, "child said %d/%d from %d", me[0], me[1], st.MPI_SOURCE);
                seen |= 1 << me[0];
                MPI_Recv(&cerrs, 1, MPI_INT, st.MPI_SOURCE, 6, inter, MPI_STATUS_IGNORE);
                errs += cerrs;
            }
            MTEST_CHECK(errs, seen == (1 << n) - 1, "%d children: seen %x", n, seen);
        }
        MPI_Comm_disconnect(&inter);
    }

    /* 2. spawn_multiple: two commands, MPI_ERRCODES_IGNORE, no disconnect. */
    char *cmds[2] = {argv[0], argv[0]};
    char *av[] = {"multi", "A", "ay", NULL}, *bv[] = {"multi", "B", "bee", NULL};
    char **argvs[2] = {av, bv};
    int np[2] = {1, 2};
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    MPI_Comm multi;
    MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &multi, MPI_ERRCODES_IGNORE);
    MPI_Comm_remote_size(multi, &rsize);
    MTEST_CHECK(errs, rsize == 3, "multi remote size %d", rsize);
    if (rank == 0) {
        int cerrs = -1;
        MPI_Recv(&cerrs, 1, MPI_INT, 0, 6, multi, MPI_STATUS_IGNORE);
        MTEST_CHECK(errs, cerrs == 0, "multi children found %d errors", cerrs);
    }

    /* 3. A command that does not exist: MPI_ERR_SPAWN, every errcode set. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm none;
    int bad[2] = {0, 0};
    int rc = MPI_Comm_spawn("/nonexistent/gmpi-no-such-program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                            MPI_COMM_WORLD, &none, bad);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_SPAWN && none == MPI_COMM_NULL, "bad command: class %d", cls);
    if (rank == 0)
        MTEST_CHECK(errs, bad[0] != MPI_SUCCESS && bad[1] != MPI_SUCCESS, "bad command errcodes %d %d", bad[0], bad[1]);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
