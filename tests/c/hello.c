/* hello: environment queries. Initializes with MPI_THREAD_MULTIPLE and
 * checks rank/size, processor name, versions, the init/finalize and
 * thread queries, and the clock. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The MPICH ABI's status is five ints. */
_Static_assert(sizeof(MPI_Status) == 5 * sizeof(int), "MPI_Status is not 5 ints");

int main(int argc, char **argv)
{
    int errs = 0, flag, provided = -1, rank = -1, size = -1, len, i;
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    int version = 0, subversion = 0;
    int *seen;
    double t0, t1, prev, tick;

    flag = -1;
    MPI_Initialized(&flag);
    if (flag != 0) {
        fprintf(stderr, "MPI_Initialized before MPI_Init_thread gave %d, want 0\n", flag);
        errs++;
    }
    /* MPI_Get_version may be called before MPI_Init. */
    MPI_Get_version(&version, &subversion);
    if (version != MPI_VERSION || subversion != MPI_SUBVERSION) {
        fprintf(stderr, "MPI_Get_version before init: %d.%d, want %d.%d\n", version, subversion,
                MPI_VERSION, MPI_SUBVERSION);
        errs++;
    }

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MTEST_CHECK(errs, provided == MPI_THREAD_MULTIPLE, "provided %d, want MPI_THREAD_MULTIPLE (%d)",
                provided, MPI_THREAD_MULTIPLE);

    flag = 0;
    MPI_Initialized(&flag);
    MTEST_CHECK(errs, flag == 1, "MPI_Initialized after init gave %d", flag);
    flag = -1;
    MPI_Finalized(&flag);
    MTEST_CHECK(errs, flag == 0, "MPI_Finalized before finalize gave %d", flag);
    provided = -1;
    MPI_Query_thread(&provided);
    MTEST_CHECK(errs, provided == MPI_THREAD_MULTIPLE, "MPI_Query_thread gave %d", provided);
    flag = 0;
    MPI_Is_thread_main(&flag);
    MTEST_CHECK(errs, flag == 1, "MPI_Is_thread_main gave %d", flag);

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MTEST_CHECK(errs, size >= 1 && rank >= 0 && rank < size, "rank %d size %d", rank, size);

    /* Every rank in 0..size-1 appears exactly once. */
    seen = calloc(size > 0 ? size : 1, sizeof(int));
    {
        int *mine = calloc(size > 0 ? size : 1, sizeof(int));
        if (rank >= 0 && rank < size)
            mine[rank] = 1;
        MPI_Allreduce(mine, seen, size, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (i = 0; i < size; i++)
            MTEST_CHECK(errs, seen[i] == 1, "rank %d is held by %d processes", i, seen[i]);
        free(mine);
    }
    free(seen);

    memset(name, 0, sizeof name);
    len = -1;
    MPI_Get_processor_name(name, &len);
    MTEST_CHECK(errs, len > 0 && len < MPI_MAX_PROCESSOR_NAME && (size_t)len == strlen(name),
                "processor name \"%s\" with length %d", name, len);

    version = subversion = 0;
    MPI_Get_version(&version, &subversion);
    MTEST_CHECK(errs, version == MPI_VERSION && subversion == MPI_SUBVERSION,
                "MPI_Get_version %d.%d, header says %d.%d", version, subversion, MPI_VERSION,
                MPI_SUBVERSION);
    MTEST_CHECK(errs, version >= 3, "MPI version %d", version);

    memset(lib, 0, sizeof lib);
    len = -1;
    MPI_Get_library_version(lib, &len);
    MTEST_CHECK(errs, len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && (size_t)len == strlen(lib),
                "library version \"%s\" with length %d", lib, len);

    /* The clock never goes back and does advance. */
    tick = MPI_Wtick();
    MTEST_CHECK(errs, tick > 0 && tick < 1, "MPI_Wtick %g", tick);
    t0 = prev = MPI_Wtime();
    for (i = 0; i < 100000; i++) {
        double t = MPI_Wtime();
        if (t < prev) {
            MTEST_CHECK(errs, t >= prev, "MPI_Wtime went back from %.9f to %.9f", prev, t);
            break;
        }
        prev = t;
    }
    {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    t1 = MPI_Wtime();
    MTEST_CHECK(errs, t1 - t0 >= 0.019 && t1 - t0 < 60, "20 ms sleep measured as %.6f s", t1 - t0);

    printf("Hello from rank %d of %d on %s (MPI %d.%d)\n", rank, size, name, version, subversion);
    if (rank == 0)
        printf("Library: %.200s\n", lib);
    fflush(stdout);

    MTest_Finalize(errs);

    flag = 0;
    MPI_Finalized(&flag);
    if (flag != 1) {
        fprintf(stderr, "[%d] MPI_Finalized after finalize gave %d\n", rank, flag);
        return 1;
    }
    return MTestReturnValue(errs);
}
