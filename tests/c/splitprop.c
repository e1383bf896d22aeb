/* splitprop: property test of MPI_Comm_split. Under many pseudo-random
 * (color, key) patterns (MPI_UNDEFINED, few distinct keys so that ties
 * are common, negative keys) every process checks its new rank and size,
 * the world ranks of the new group and point-to-point traffic on the new
 * communicator against the result computed locally from the pattern,
 * which is exchanged with MPI_Allreduce. Splits are taken from
 * MPI_COMM_WORLD and from a communicator with the ranks reversed (ties
 * then go by the rank there, not in world). */
#include "mtest.h"
#include <stdlib.h>

#define ITERS 1000
#define MAXP 64

static unsigned rng(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

int main(int argc, char **argv)
{
    int errs = 0, wrank, wsize;
    MPI_Comm rev;
    MPI_Group wgroup;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize > MAXP)
        MTestError("too many processes");
    MPI_Comm_group(MPI_COMM_WORLD, &wgroup);
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &rev);

    for (int it = 0; it < ITERS && errs < 10; it++) {
        MPI_Comm parent = it % 2 ? rev : MPI_COMM_WORLD;
        int prank, pat[2 * MAXP] = {0}, all[2 * MAXP];
        unsigned seed = 7919u * (unsigned)it + 1;
        MPI_Comm_rank(parent, &prank);
        /* the pattern family is the same on every process */
        int ncolors = 1 + rng(&seed) % 4, nkeys = 1 + rng(&seed) % 3, undef = rng(&seed) % 4;
        seed += 104729u * (unsigned)(prank + 1);
        int color = rng(&seed) % ncolors;
        if (undef && rng(&seed) % (2 * undef + 1) == 0)
            color = MPI_UNDEFINED;
        int key = (int)(rng(&seed) % nkeys) - (it % 3 == 0 ? 1 : 0);
        pat[2 * prank] = color;
        pat[2 * prank + 1] = key;
        MPI_Allreduce(pat, all, 2 * wsize, MPI_INT, MPI_SUM, parent);

        /* expected members: parent ranks with my color, by (key, rank) */
        int members[MAXP], n = 0, me = -1;
        if (color != MPI_UNDEFINED) {
            for (int r = 0; r < wsize; r++)
                if (all[2 * r] == color)
                    members[n++] = r;
            for (int i = 1; i < n; i++) /* insertion sort: stable by rank */
                for (int j = i; j > 0 && all[2 * members[j - 1] + 1] > all[2 * members[j] + 1]; j--) {
                    int t = members[j];
                    members[j] = members[j - 1];
                    members[j - 1] = t;
                }
            for (int i = 0; i < n; i++) {
                if (members[i] == prank)
                    me = i;
                members[i] = parent == rev ? wsize - 1 - members[i] : members[i]; /* to world ranks */
            }
        }

        MPI_Comm nc;
        int rc = MPI_Comm_split(parent, color, key, &nc);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "iteration %d: split rc %d", it, rc);
        if (color == MPI_UNDEFINED) {
            MTEST_CHECK(errs, nc == MPI_COMM_NULL, "iteration %d: MPI_UNDEFINED gave a communicator", it);
            continue;
        }
        if (nc == MPI_COMM_NULL) {
            MTEST_CHECK(errs, 0, "iteration %d: color %d gave MPI_COMM_NULL", it, color);
            continue;
        }
        int nr, ns;
        MPI_Comm_rank(nc, &nr);
        MPI_Comm_size(nc, &ns);
        MTEST_CHECK(errs, nr == me && ns == n, "iteration %d (color %d key %d): rank %d size %d, want %d %d", it, color, key, nr, ns, me, n);
        if (ns == n) {
            MPI_Group g;
            int idx[MAXP], wr[MAXP];
            for (int i = 0; i < n; i++)
                idx[i] = i;
            MPI_Comm_group(nc, &g);
            MPI_Group_translate_ranks(g, n, idx, wgroup, wr);
            for (int i = 0; i < n; i++)
                MTEST_CHECK(errs, wr[i] == members[i], "iteration %d: new rank %d is world rank %d, want %d", it, i, wr[i], members[i]);
            MPI_Group_free(&g);
            /* traffic on the new communicator: a ring of world ranks */
            int got = -1;
            MPI_Sendrecv(&wrank, 1, MPI_INT, (nr + 1) % ns, it, &got, 1, MPI_INT, (nr - 1 + ns) % ns, it, nc, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, got == members[(me - 1 + n) % n], "iteration %d: ring got %d, want %d", it, got, members[(me - 1 + n) % n]);
        }
        MPI_Comm_free(&nc);
    }
    MPI_Comm_free(&rev);
    MPI_Group_free(&wgroup);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
