/* commfree: creating and freeing 10,000 communicators (dup and split)
 * reuses handles and context ids, and memory stays bounded. */
#include "mtest.h"
#include <stdio.h>

static long rss_kb(void)
{
    long kb = -1;
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1) break;
    fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, i;
    MPI_Comm c, first = MPI_COMM_NULL;
    long rss_early = 0, rss_end;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < 10000; i++) {
        if (i % 2)
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        else
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
        if (i == 0) first = c;
        else if (c != first) {
            errs++;
            if (errs < 5) fprintf(stderr, "iteration %d: handle %x, first was %x\n", i, (unsigned)c, (unsigned)first);
        }
        if (i % 100 == 0) MPI_Barrier(c);
        MPI_Comm_free(&c);
        if (i == 1000) rss_early = rss_kb();
    }
    rss_end = rss_kb();
    if (rss_early > 0 && rss_end > rss_early + 16 * 1024) {
        errs++;
        fprintf(stderr, "RSS grew from %ld kB to %ld kB\n", rss_early, rss_end);
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
