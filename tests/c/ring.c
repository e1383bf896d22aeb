/* ring: a token goes around the ring several times with MPI_Send and
 * MPI_Recv, for several message sizes (0 ints to 4 MiB). Each hop checks
 * the contents and the status, then changes the token. */
#include "mtest.h"

#include <stdlib.h>

/* The value of element i after h hops in lap lap. */
static int expect(int lap, int h, long i)
{
    return (int)((i * 2654435761u) ^ (unsigned)(lap << 16)) + h;
}

int main(int argc, char **argv)
{
    static const long sizes[] = {0, 1, 1000, 100000, 1L << 20};
    int errs = 0, rank, size, s;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            printf("ring needs at least 2 processes; nothing to do\n");
        MTest_Finalize(errs);
        return MTestReturnValue(errs);
    }

    for (s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); s++) {
        long n = sizes[s], i;
        int laps = n >= 100000 ? 2 : 5, lap;
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        int *buf = malloc((n > 0 ? n : 1) * sizeof(int));

        for (lap = 0; lap < laps; lap++) {
            MPI_Status st;
            int count = -1, bad = 0, hop;

            if (rank == 0) {
                for (i = 0; i < n; i++)
                    buf[i] = expect(lap, 0, i);
                MPI_Send(buf, (int)n, MPI_INT, next, lap, MPI_COMM_WORLD);
            }
            for (i = 0; i < n; i++)
                buf[i] = -1;
            MPI_Recv(buf, (int)n, MPI_INT, prev, lap, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &count);
            MTEST_CHECK(errs, st.MPI_SOURCE == prev && st.MPI_TAG == lap && count == n,
                        "size %ld lap %d: status source %d tag %d count %d", n, lap, st.MPI_SOURCE,
                        st.MPI_TAG, count);
            /* Every rank but 0 increments the token before passing it on,
             * so rank r sees r-1 increments and rank 0 sees size-1. */
            hop = rank == 0 ? size - 1 : rank - 1;
            for (i = 0; i < n; i++) {
                if (buf[i] != expect(lap, hop, i)) {
                    if (bad++ < 5)
                        MTEST_CHECK(errs, buf[i] == expect(lap, hop, i),
                                    "size %ld lap %d: buf[%ld] = %d, want %d", n, lap, i, buf[i],
                                    expect(lap, hop, i));
                }
            }
            if (bad > 5) {
                fprintf(stderr, "[%d] size %ld lap %d: %d wrong elements in all\n", rank, n, lap,
                        bad);
                errs += bad - 5;
            }
            if (rank != 0) {
                for (i = 0; i < n; i++)
                    buf[i]++;
                MPI_Send(buf, (int)n, MPI_INT, next, lap, MPI_COMM_WORLD);
            }
        }
        free(buf);
        if (rank == 0) {
            printf("ring: %ld ints, %d laps done\n", n, laps);
            fflush(stdout);
        }
    }

    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
