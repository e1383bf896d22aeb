/* commleak: create and free 10,000 communicators (MPI_Comm_dup,
 * MPI_Comm_split, MPI_Comm_create, in turn) and check that neither the
 * resident set size (/proc/self/statm) nor the communicator handle table
 * grows: the state after 10,000 must stay close to the state after
 * 1,000. */
#include "mtest.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define TOTAL 10000
#define WARM 1000

static long rss_kb(void)
{
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &res) != 2)
        res = -1;
    fclose(f);
    return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    long rss_warm = 0, rss_end;
    unsigned max_idx = 0, max_idx_warm = 0;
    MPI_Group wgroup;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &wgroup);

    for (int i = 1; i <= TOTAL; i++) {
        MPI_Comm c = MPI_COMM_NULL;
        int rc;
        switch (i % 3) {
        case 0:
            rc = MPI_Comm_dup(MPI_COMM_WORLD, &c);
            break;
        case 1:
            rc = MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &c);
            break;
        default:
            rc = MPI_Comm_create(MPI_COMM_WORLD, wgroup, &c);
        }
        if (rc != MPI_SUCCESS || c == MPI_COMM_NULL) {
            MTEST_CHECK(errs, 0, "iteration %d: rc %d", i, rc);
            break;
        }
        /* the handle index (low 26 bits) shows how full the table is */
        unsigned idx = (unsigned)c & 0x03ffffff;
        if (idx > max_idx)
            max_idx = idx;
        if (i % 97 == 0) /* use it now and then */
            MPI_Barrier(c);
        MPI_Comm_free(&c);
        if (i == WARM) {
            rss_warm = rss_kb();
            max_idx_warm = max_idx;
        }
    }
    rss_end = rss_kb();
    /* A leak of even 100 bytes per communicator would add ~900 KB; allow
     * 4 MB of noise (GC heap growth) on top of 25%. */
    MTEST_CHECK(errs, rss_end <= rss_warm + rss_warm / 4 + 4096,
                "RSS grew from %ld KB after %d communicators to %ld KB after %d", rss_warm, WARM, rss_end, TOTAL);
    MTEST_CHECK(errs, max_idx == max_idx_warm && max_idx < 16,
                "communicator handle index grew: %u after %d, %u after %d", max_idx_warm, WARM, max_idx, TOTAL);
    if (rank == 0 && getenv("COMMLEAK_VERBOSE"))
        printf("rss %ld KB -> %ld KB, max handle index %u\n", rss_warm, rss_end, max_idx);
    MPI_Group_free(&wgroup);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
