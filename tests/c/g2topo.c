/* g2topo: the MPICH-G2 topology example, as written for MPICH-G2: query
 * both attributes, split MPI_COMM_WORLD by the site color, then by the
 * vMPI color or -1 (an ordinary color: every process without a vendor MPI
 * lands in one communicator), then by the vMPI color or MPI_UNDEFINED
 * (those processes get MPI_COMM_NULL). The communicators are checked
 * against the launch's locations (GMPI_SITE, GMPI_VMPI) counted here. */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define NAMELEN 64

/* gather_all gives every rank every rank's n bytes (rank r's at r*n),
 * with an allreduce so that the test needs no MPI_Allgather. */
static void gather_all(const void *mine, int n, char *all, int size, int me)
{
    char *contrib = calloc((size_t)size, (size_t)n);
    memcpy(contrib + (size_t)me * n, mine, (size_t)n);
    MPI_Allreduce(contrib, all, size * n, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
    free(contrib);
}

/* count returns how many ranks have the value of env var name that this
 * rank has (an unset variable counts as ""). */
static int count(const char *name, int size)
{
    char mine[NAMELEN] = {0}, *all = malloc((size_t)size * NAMELEN);
    const char *v = getenv(name);
    int n = 0;
    if (v)
        strncpy(mine, v, NAMELEN - 1);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    gather_all(mine, NAMELEN, all, size, me);
    for (int r = 0; r < size; r++)
        n += strcmp(all + (size_t)r * NAMELEN, mine) == 0;
    free(all);
    return n;
}

int main(int argc, char **argv)
{
    int errs = 0, me, size, flag, n;
    int *depths, **colors;
    MPI_Comm site_comm, vmpi_or_m1, vmpi_or_undef;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Attr_get(MPI_COMM_WORLD, MPICHX_TOPOLOGY_DEPTHS, &depths, &flag);
    if (!flag)
        MTestError("no MPICHX_TOPOLOGY_DEPTHS on MPI_COMM_WORLD");
    MPI_Attr_get(MPI_COMM_WORLD, MPICHX_TOPOLOGY_COLORS, &colors, &flag);
    if (!flag)
        MTestError("no MPICHX_TOPOLOGY_COLORS on MPI_COMM_WORLD");
    int has_vmpi = getenv("GMPI_VMPI") && getenv("GMPI_VMPI")[0];
    int nsite = count("GMPI_SITE", size), nvmpi = count("GMPI_VMPI", size);
    MTEST_CHECK(errs, depths[me] == (has_vmpi ? 4 : 3), "depth %d", depths[me]);

    /* The site: the processes that share colors[me][1]. */
    MPI_Comm_split(MPI_COMM_WORLD, colors[me][1], 0, &site_comm);
    MPI_Comm_size(site_comm, &n);
    MTEST_CHECK(errs, n == nsite, "site communicator of %d, want %d", n, nsite);

    /* vMPI color or -1. */
    MPI_Comm_split(MPI_COMM_WORLD, depths[me] == 4 ? colors[me][3] : -1, 0, &vmpi_or_m1);
    MTEST_CHECK(errs, vmpi_or_m1 != MPI_COMM_NULL, "split by -1 gave MPI_COMM_NULL");
    if (vmpi_or_m1 != MPI_COMM_NULL) {
        MPI_Comm_size(vmpi_or_m1, &n);
        MTEST_CHECK(errs, n == nvmpi, "vMPI-or--1 communicator of %d, want %d", n, nvmpi);
        /* Its members agree on their color. */
        int c = depths[me] == 4 ? colors[me][3] : -1, lo, hi;
        MPI_Allreduce(&c, &lo, 1, MPI_INT, MPI_MIN, vmpi_or_m1);
        MPI_Allreduce(&c, &hi, 1, MPI_INT, MPI_MAX, vmpi_or_m1);
        MTEST_CHECK(errs, lo == c && hi == c, "mixed colors %d..%d", lo, hi);
        MPI_Comm_free(&vmpi_or_m1);
    }

    /* vMPI color or MPI_UNDEFINED. */
    MPI_Comm_split(MPI_COMM_WORLD, depths[me] == 4 ? colors[me][3] : MPI_UNDEFINED, 0, &vmpi_or_undef);
    if (has_vmpi) {
        MTEST_CHECK(errs, vmpi_or_undef != MPI_COMM_NULL, "a vMPI process got MPI_COMM_NULL");
        if (vmpi_or_undef != MPI_COMM_NULL) {
            MPI_Comm_size(vmpi_or_undef, &n);
            MTEST_CHECK(errs, n == nvmpi, "vMPI communicator of %d, want %d", n, nvmpi);
            MPI_Comm_free(&vmpi_or_undef);
        }
    } else {
        MTEST_CHECK(errs, vmpi_or_undef == MPI_COMM_NULL, "a process without vMPI got a communicator");
    }
    MPI_Comm_free(&site_comm);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
