/* dynspawn2: where and how many processes MPI_Comm_spawn starts.
 *
 *   dynspawn2            under gmpi's mpirun, with MPI_UNIVERSE_SIZE equal
 *                        to the job's size: a spawn whose info key soft
 *                        asks for 1 or 2 processes fails with MPI_ERR_SPAWN
 *                        (no free slot), one without soft oversubscribes
 *                        and starts both. Under another launcher (mpiexec.hydra:
 *                        no GMPI_JOBID) every spawn must fail with
 *                        MPI_ERR_SPAWN and a message saying why.
 *   dynspawn2 soft       one parent, MPI_UNIVERSE_SIZE 3: soft "1:4" for 4
 *                        processes starts 2 (the free slots), errcodes
 *                        MPI_SUCCESS twice then MPI_ERR_SPAWN
 *   dynspawn2 place K V P [K V P ...]
 *                        for each triple, 2 children with the info key K=V
 *                        (site, machine or host of the grid file): each
 *                        child's processor name begins with P; P "-": the
 *                        spawn must fail with MPI_ERR_SPAWN (no such place)
 *   dynspawn2 site S P   the same as place site S P
 * Children send their processor name to parent rank 0 and disconnect. */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

static int errs = 0;

/* spawn starts n children (info: soft/site or none) and returns the
 * error code; on success it collects the children's processor names into
 * names (n x MPI_MAX_PROCESSOR_NAME) and returns their number in *got. */
static int spawn(const char *prog, int n, const char *key, const char *val, int *codes, char *names, int *got)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, val);
    }
    MPI_Comm inter;
    char *cargv[] = {"child", NULL};
    int rc = MPI_Comm_spawn(prog, cargv, n, info, 0, MPI_COMM_SELF, &inter, codes);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    *got = 0;
    if (rc != MPI_SUCCESS) {
        MTEST_CHECK(errs, inter == MPI_COMM_NULL, "failed spawn returned a communicator");
        return rc;
    }
    MPI_Comm_remote_size(inter, got);
    for (int i = 0; i < *got; i++)
        MPI_Recv(names + i * MPI_MAX_PROCESSOR_NAME, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, i, 1, inter, MPI_STATUS_IGNORE);
    MPI_Comm_disconnect(&inter);
    return rc;
}

static void check_class(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == want, "%s: class %d, want %d", what, cls, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        char name[MPI_MAX_PROCESSOR_NAME] = "";
        int len;
        MPI_Get_processor_name(name, &len);
        MPI_Send(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 1, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    char names[4 * MPI_MAX_PROCESSOR_NAME];
    int codes[4], got, rc;
    const char *mode = argc > 1 ? argv[1] : "";
    if (rank == 0 && strcmp(mode, "") == 0 && getenv("GMPI_JOBID") == NULL) {
        /* Not gmpi's mpirun (hydra): refused, saying why. */
        rc = spawn(argv[0], 1, NULL, NULL, codes, names, &got);
        check_class(rc, MPI_ERR_SPAWN, "spawn under another launcher");
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        MTEST_CHECK(errs, strstr(msg, "mpirun") != NULL, "message does not say why: %s", msg);
        MTEST_CHECK(errs, codes[0] != MPI_SUCCESS, "errcode %d", codes[0]);
        printf("refused: %s\n", msg);
    } else if (rank == 0 && strcmp(mode, "") == 0) {
        int *usize, flag = 0, size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
        MTEST_CHECK(errs, flag && *usize == size, "universe size %d, job %d", flag ? *usize : -1, size);
        rc = spawn(argv[0], 2, "soft", "1,2", codes, names, &got);
        check_class(rc, MPI_ERR_SPAWN, "soft spawn into a full universe");
        MTEST_CHECK(errs, codes[0] != MPI_SUCCESS && codes[1] != MPI_SUCCESS, "soft errcodes %d %d", codes[0], codes[1]);
        rc = spawn(argv[0], 2, NULL, NULL, codes, names, &got);
        MTEST_CHECK(errs, rc == MPI_SUCCESS && got == 2, "oversubscribed spawn: rc %d, %d children", rc, got);
        MTEST_CHECK(errs, codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "errcodes %d %d", codes[0], codes[1]);
    } else if (strcmp(mode, "soft") == 0) {
        rc = spawn(argv[0], 4, "soft", "1:4", codes, names, &got);
        MTEST_CHECK(errs, rc == MPI_SUCCESS && got == 2, "soft 1:4 in a universe of 3: rc %d, %d children", rc, got);
        MTEST_CHECK(errs, codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS && codes[2] != MPI_SUCCESS && codes[3] != MPI_SUCCESS,
                    "errcodes %d %d %d %d", codes[0], codes[1], codes[2], codes[3]);
    } else if ((strcmp(mode, "site") == 0 && argc == 4) || (strcmp(mode, "place") == 0 && argc >= 5 && (argc - 2) % 3 == 0)) {
        char **t = argv + (strcmp(mode, "site") == 0 ? 1 : 2);
        for (; t + 2 < argv + argc; t += 3) {
            const char *key = t[0], *val = t[1], *prefix = t[2];
            rc = spawn(argv[0], 2, key, val, codes, names, &got);
            if (strcmp(prefix, "-") == 0) {
                check_class(rc, MPI_ERR_SPAWN, "spawn at no such place");
                if (rank == 0 && rc != MPI_SUCCESS) {
                    char msg[MPI_MAX_ERROR_STRING];
                    int len;
                    MPI_Error_string(rc, msg, &len);
                    printf("%s=%s refused: %s\n", key, val, msg);
                }
                continue;
            }
            MTEST_CHECK(errs, rc == MPI_SUCCESS && got == 2, "spawn at %s=%s: rc %d, %d children", key, val, rc, got);
            for (int i = 0; i < got; i++) {
                const char *n = names + i * MPI_MAX_PROCESSOR_NAME;
                MTEST_CHECK(errs, strncmp(n, prefix, strlen(prefix)) == 0, "child %d runs on %s, not at %s=%s", i, n, key, val);
                if (rank == 0)
                    printf("%s=%s: child %d on %s\n", key, val, i, n);
            }
        }
    } else if (rank == 0) {
        fprintf(stderr, "usage: dynspawn2 [soft | site SITE PREFIX | place KEY VALUE PREFIX ...]\n");
        errs++;
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
