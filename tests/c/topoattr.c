/* topoattr: the MPICHX topology attributes against the locations the
 * launch gave each rank (GMPI_SITE, GMPI_MACHINE, GMPI_VMPI; set by mpirun
 * from a grid file, or by hand with -env without one).
 *
 * The expected values are computed here from the gathered location
 * strings: depth 4 for ranks with a vendor MPI job, 3 otherwise; colors
 * numbered per level in order of first appearance in MPI_COMM_WORLD (level
 * 0 all 0, level 1 the site, level 2 the site's machine, level 3 the vMPI
 * job). Checked on MPI_COMM_WORLD, a dup, a reversed split, MPI_COMM_SELF
 * and both groups of an intercommunicator (indexed by local rank). With
 * TOPOATTR_PRINT set every rank prints "topo RANK DEPTH C0 C1 C2 [C3]". */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

#define NAMELEN 64
#define FIELDS 3 /* site, machine, vmpi */

static int size, me;
static char (*locs)[FIELDS][NAMELEN];
static int *exp_depth;
static int (*exp_color)[4];

/* gather_all gives every rank every rank's n bytes (rank r's at r*n),
 * with an allreduce so that the test needs no MPI_Allgather. */
static void gather_all(const void *mine, int n, char *all, int size, int me)
{
    char *contrib = calloc((size_t)size, (size_t)n);
    memcpy(contrib + (size_t)me * n, mine, (size_t)n);
    MPI_Allreduce(contrib, all, size * n, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
    free(contrib);
}

static void location(char out[FIELDS][NAMELEN])
{
    const char *vars[FIELDS] = {"GMPI_SITE", "GMPI_MACHINE", "GMPI_VMPI"};
    memset(out, 0, FIELDS * NAMELEN);
    for (int f = 0; f < FIELDS; f++) {
        const char *v = getenv(vars[f]);
        if (v)
            strncpy(out[f], v, NAMELEN - 1);
    }
}

/* same reports whether ranks a and b agree on the first n fields. */
static int same(int a, int b, int n)
{
    for (int f = 0; f < n; f++)
        if (strcmp(locs[a][f], locs[b][f]) != 0)
            return 0;
    return 1;
}

static void expected(void)
{
    exp_depth = calloc(size, sizeof *exp_depth);
    exp_color = calloc(size, sizeof *exp_color);
    for (int r = 0; r < size; r++) {
        exp_depth[r] = locs[r][2][0] ? 4 : 3;
        for (int level = 1; level < exp_depth[r]; level++) {
            /* The color of the first earlier rank in the same cluster, or
             * the next unused one. */
            int next = 0, found = -1;
            for (int q = 0; q < r && found < 0; q++) {
                if (exp_depth[q] <= level)
                    continue;
                if (same(q, r, level))
                    found = exp_color[q][level];
            }
            if (found < 0) {
                for (int q = 0; q < r; q++)
                    if (exp_depth[q] > level && exp_color[q][level] + 1 > next)
                        next = exp_color[q][level] + 1;
                found = next;
            }
            exp_color[r][level] = found;
        }
    }
}

/* check compares comm's attributes with the expectation; wr maps comm's
 * ranks to world ranks. */
static int check(MPI_Comm comm, const char *name)
{
    int errs = 0, flag = 0, n, *depths = NULL, **colors = NULL;
    MPI_Group g, wg;
    MPI_Comm_size(comm, &n);
    MPI_Comm_get_attr(comm, MPICHX_TOPOLOGY_DEPTHS, &depths, &flag);
    MTEST_CHECK(errs, flag && depths, "%s: no MPICHX_TOPOLOGY_DEPTHS", name);
    flag = 0;
    MPI_Attr_get(comm, MPICHX_TOPOLOGY_COLORS, &colors, &flag);
    MTEST_CHECK(errs, flag && colors, "%s: no MPICHX_TOPOLOGY_COLORS", name);
    if (errs)
        return errs;
    int *ranks = malloc(n * sizeof *ranks), *wr = malloc(n * sizeof *wr);
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, n, ranks, wg, wr);
    for (int i = 0; i < n; i++) {
        int w = wr[i];
        MTEST_CHECK(errs, depths[i] == exp_depth[w], "%s: depths[%d] = %d, want %d", name, i, depths[i],
                    exp_depth[w]);
        for (int level = 0; level < exp_depth[w] && depths[i] == exp_depth[w]; level++)
            MTEST_CHECK(errs, colors[i][level] == exp_color[w][level], "%s: colors[%d][%d] = %d, want %d", name,
                        i, level, colors[i][level], exp_color[w][level]);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(ranks);
    free(wr);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    char mine[FIELDS][NAMELEN];
    MPI_Comm dup, rev, inter;

    MTest_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MTEST_CHECK(errs, MPICHX_TOPOLOGY_DEPTHS != MPI_KEYVAL_INVALID && MPICHX_TOPOLOGY_COLORS != MPI_KEYVAL_INVALID &&
                          MPICHX_TOPOLOGY_DEPTHS != MPICHX_TOPOLOGY_COLORS,
                "keyvals %#x %#x", (unsigned)MPICHX_TOPOLOGY_DEPTHS, (unsigned)MPICHX_TOPOLOGY_COLORS);
    location(mine);
    locs = malloc(size * sizeof *locs);
    gather_all(mine, FIELDS * NAMELEN, (char *)locs, size, me);
    expected();

    errs += check(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    errs += check(MPI_COMM_SELF, "MPI_COMM_SELF");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    errs += check(dup, "dup");
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - me, &rev);
    errs += check(rev, "reversed");
    /* The attribute arrays belong to the communicator: a second get gives
     * the same values, and freeing the communicator frees them. */
    {
        int *d1, *d2, flag;
        MPI_Comm_get_attr(rev, MPICHX_TOPOLOGY_DEPTHS, &d1, &flag);
        MPI_Comm_get_attr(rev, MPICHX_TOPOLOGY_DEPTHS, &d2, &flag);
        MTEST_CHECK(errs, d1 == d2, "two gets gave different arrays");
    }
    MPI_Comm_free(&rev);
    if (size >= 2) {
        MPI_Comm half;
        int low = me < size / 2;
        MPI_Comm_split(MPI_COMM_WORLD, low, me, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 7, &inter);
        errs += check(inter, "intercomm (local group)");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    /* MPI_COMM_TYPE_HW_GUIDED with gmpi_site / gmpi_machine splits by the
     * grid's sites and machines. */
    {
        const char *kinds[2] = {"gmpi_site", "gmpi_machine"};
        for (int k = 0; k < 2; k++) {
            MPI_Info info;
            MPI_Comm c;
            int n = -1, want = 0;
            for (int r = 0; r < size; r++)
                want += same(r, me, k + 1);
            MPI_Info_create(&info);
            MPI_Info_set(info, "mpi_hw_resource_type", kinds[k]);
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c);
            MTEST_CHECK(errs, c != MPI_COMM_NULL, "split_type %s gave MPI_COMM_NULL", kinds[k]);
            if (c != MPI_COMM_NULL) {
                MPI_Comm_size(c, &n);
                MTEST_CHECK(errs, n == want, "split_type %s: size %d, want %d", kinds[k], n, want);
                MPI_Comm_free(&c);
            }
            MPI_Info_free(&info);
        }
    }
    if (getenv("TOPOATTR_PRINT")) {
        int *depths, **colors, flag;
        MPI_Comm_get_attr(dup, MPICHX_TOPOLOGY_DEPTHS, &depths, &flag);
        MPI_Comm_get_attr(dup, MPICHX_TOPOLOGY_COLORS, &colors, &flag);
        char line[128];
        int len = snprintf(line, sizeof line, "topo %d %d", me, depths[me]);
        for (int l = 0; l < depths[me]; l++)
            len += snprintf(line + len, sizeof line - len, " %d", colors[me][l]);
        printf("%s\n", line);
        fflush(stdout);
    }
    MPI_Comm_free(&dup);
    free(locs);
    free(exp_depth);
    free(exp_color);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
