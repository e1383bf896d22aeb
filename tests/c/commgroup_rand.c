/* commgroup_rand: MPI_Comm_create_group on many pseudo-random subgroups
 * of MPI_COMM_WORLD (the same sequence on every rank):
 *  - a partition of the world into disjoint groups, all created at once
 *    with the same tag;
 *  - overlapping random subsets, one after the other with the same tag
 *    (a process may start the next one while others still finish the
 *    previous one);
 *  - with MPI_THREAD_MULTIPLE, two threads per process creating from
 *    overlapping random subsets at the same time, told apart by the tag.
 * Every new communicator is checked (size, rank order, an allreduce over
 * it). Before the fix the internal agreement of one call took another
 * call's messages and failed with MPI_ERR_TRUNCATE. */
#include "mtest.h"
#include <pthread.h>
#include <stdlib.h>

#define ITERS 60

static int rank, size;

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* Creates the communicator over ranks[0..n-1] (world ranks, the caller
 * among them) with tag and checks it. */
static int create_and_check(const int *ranks, int n, int tag, const char *what, int iter)
{
    int errs = 0, me = -1, nr, ns, sum, want = 0;
    MPI_Group wg, g;
    MPI_Comm nc = MPI_COMM_NULL;
    for (int i = 0; i < n; i++) {
        want += ranks[i];
        if (ranks[i] == rank)
            me = i;
    }
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, n, ranks, &g);
    int rc = MPI_Comm_create_group(MPI_COMM_WORLD, g, tag, &nc);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "%s %d: MPI_Comm_create_group returned %d", what, iter, rc);
    if (rc == MPI_SUCCESS && nc != MPI_COMM_NULL) {
        MPI_Comm_size(nc, &ns);
        MPI_Comm_rank(nc, &nr);
        MTEST_CHECK(errs, ns == n && nr == me, "%s %d: size %d rank %d, want %d %d", what, iter, ns, nr, n, me);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, nc);
        MTEST_CHECK(errs, sum == want, "%s %d: allreduce gave %d, want %d", what, iter, sum, want);
        MPI_Comm_free(&nc);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    return errs;
}

/* Random subset of the world that always holds at least one rank; sets
 * *in when rank is in it. */
static int random_subset(unsigned *s, int *ranks, int *in)
{
    int n = 0;
    *in = 0;
    for (int r = 0; r < size; r++)
        if (lcg(s) % 2) {
            ranks[n++] = r;
            *in |= r == rank;
        }
    if (n == 0) {
        ranks[n++] = lcg(s) % size;
        *in = ranks[0] == rank;
    }
    /* shuffle the order too */
    for (int i = n - 1; i > 0; i--) {
        int j = lcg(s) % (i + 1), t = ranks[i];
        ranks[i] = ranks[j];
        ranks[j] = t;
    }
    return n;
}

struct targ {
    int tag, errs;
};

static void *thread_main(void *p)
{
    struct targ *a = p;
    unsigned s = 1000 + a->tag;
    int ranks[256], in;
    for (int it = 0; it < ITERS / 2; it++) {
        int n = random_subset(&s, ranks, &in);
        if (in)
            a->errs += create_and_check(ranks, n, a->tag, "thread", it);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int errs = 0, provided, ranks[256], color[256];
    MTest_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned s = 12345;

    /* Disjoint groups, all with tag 0. */
    for (int it = 0; it < ITERS; it++) {
        int ngroups = 1 + lcg(&s) % size;
        for (int r = 0; r < size; r++)
            color[r] = lcg(&s) % ngroups;
        int n = 0;
        for (int r = 0; r < size; r++)
            if (color[r] == color[rank])
                ranks[n++] = r;
        /* reverse the order on odd iterations */
        if (it % 2)
            for (int i = 0; i < n / 2; i++) {
                int t = ranks[i];
                ranks[i] = ranks[n - 1 - i];
                ranks[n - 1 - i] = t;
            }
        errs += create_and_check(ranks, n, 0, "partition", it);
    }
    /* Overlapping subsets one after the other, same tag. */
    for (int it = 0; it < ITERS; it++) {
        int in, n = random_subset(&s, ranks, &in);
        if (in)
            errs += create_and_check(ranks, n, 5, "subset", it);
    }
    /* Two threads at once on overlapping subsets, different tags. */
    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t th[2];
        struct targ a[2] = {{1, 0}, {2, 0}};
        for (int i = 0; i < 2; i++)
            pthread_create(&th[i], NULL, thread_main, &a[i]);
        for (int i = 0; i < 2; i++) {
            pthread_join(th[i], NULL);
            errs += a[i].errs;
        }
    }
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
