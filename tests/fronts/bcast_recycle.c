/* bcast_recycle.c: MPI_Bcast of count 1 of a derived datatype that is
 * created, committed, used and freed around every call, as BLACS does
 * (ScaLAPACK's xdsyevr), so the same handle comes back each time with a
 * different layout: vector, indexed, struct, contiguous and resized types,
 * on MPI_COMM_WORLD and on row/column sub-communicators, from every root.
 * Every element of the buffer (inside and outside the type map) is
 * checked on every rank after each call. Built with any family's header
 * (for the fronts). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096 /* doubles per buffer */

static int errs;

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

/* make builds a type over doubles from a random recipe the same on every
 * rank (seed), and marks in map[] the doubles it covers. */
static MPI_Datatype make(unsigned *s, char *map, int *kind)
{
    MPI_Datatype t, tmp;
    memset(map, 0, N);
    *kind = (int)(rnd(s) % 6);
    switch (*kind) {
    case 0: { /* vector: n blocks of m doubles, stride ld (BLACS's general matrix) */
        int m = 1 + (int)(rnd(s) % 12), ld = m + (int)(rnd(s) % 9), n = 1 + (int)(rnd(s) % 40);
        MPI_Type_vector(n, m, ld, MPI_DOUBLE, &t);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                map[j * ld + i] = 1;
        break;
    }
    case 1: { /* indexed: a trapezoid (BLACS's triangular matrix) */
        int m = 1 + (int)(rnd(s) % 20), ld = m + (int)(rnd(s) % 7), n = 1 + (int)(rnd(s) % 30);
        int len[64], disp[64];
        for (int j = 0; j < n; j++) {
            len[j] = 1 + (j < m ? j : m - 1);
            disp[j] = j * ld;
            for (int i = 0; i < len[j]; i++)
                map[disp[j] + i] = 1;
        }
        MPI_Type_indexed(n, len, disp, MPI_DOUBLE, &t);
        break;
    }
    case 2: { /* struct of doubles at byte displacements */
        int n = 1 + (int)(rnd(s) % 16), len[16];
        MPI_Aint disp[16];
        MPI_Datatype types[16];
        int at = (int)(rnd(s) % 5);
        for (int j = 0; j < n; j++) {
            len[j] = 1 + (int)(rnd(s) % 5);
            disp[j] = (MPI_Aint)at * 8;
            types[j] = MPI_DOUBLE;
            for (int i = 0; i < len[j]; i++)
                map[at + i] = 1;
            at += len[j] + (int)(rnd(s) % 4);
        }
        MPI_Type_create_struct(n, len, disp, types, &t);
        break;
    }
    case 3: { /* contiguous */
        int n = 1 + (int)(rnd(s) % 300);
        MPI_Type_contiguous(n, MPI_DOUBLE, &t);
        for (int i = 0; i < n; i++)
            map[i] = 1;
        break;
    }
    case 4: { /* hvector of a contiguous pair, resized */
        int n = 1 + (int)(rnd(s) % 25), st = 2 + (int)(rnd(s) % 6);
        MPI_Type_contiguous(2, MPI_DOUBLE, &tmp);
        MPI_Type_create_hvector(n, 1, (MPI_Aint)st * 8, tmp, &t);
        MPI_Type_free(&tmp);
        tmp = t;
        MPI_Type_create_resized(tmp, 0, (MPI_Aint)(n * st + 3) * 8, &t);
        MPI_Type_free(&tmp);
        for (int j = 0; j < n; j++)
            map[j * st] = map[j * st + 1] = 1;
        break;
    }
    default: { /* indexed block, starting past the buffer's start (lb > 0) */
        int n = 1 + (int)(rnd(s) % 30), off = 1 + (int)(rnd(s) % 10), disp[32];
        for (int j = 0; j < n; j++) {
            disp[j] = off + j * 5 + (int)(j % 3);
            map[disp[j]] = map[disp[j] + 1] = 1;
        }
        MPI_Type_create_indexed_block(n, 2, disp, MPI_DOUBLE, &t);
        break;
    }
    }
    MPI_Type_commit(&t);
    return t;
}

static double val(int iter, int i) { return iter * 10000.0 + i + 0.25; }

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* A 2 x (size/2) grid as BLACS makes it: rows and columns. */
    int cols = size >= 2 ? size / 2 : 1;
    MPI_Comm comms[3], row, col;
    MPI_Comm_split(MPI_COMM_WORLD, rank / cols, rank, &row);
    MPI_Comm_split(MPI_COMM_WORLD, rank % cols, rank, &col);
    comms[0] = MPI_COMM_WORLD;
    comms[1] = row;
    comms[2] = col;
    double *buf = malloc(N * sizeof(double));
    char *map = malloc(N);
    unsigned seed = 12345;
    const int iters = argc > 1 ? atoi(argv[1]) : 3000;
    for (int it = 0; it < iters && errs < 10; it++) {
        int kind;
        MPI_Datatype t = make(&seed, map, &kind);
        MPI_Comm c = comms[rnd(&seed) % 3];
        int csize, crank;
        MPI_Comm_size(c, &csize);
        MPI_Comm_rank(c, &crank);
        int root = (int)(rnd(&seed) % (unsigned)csize);
        for (int i = 0; i < N; i++)
            buf[i] = crank == root ? val(it, i) : -1.0 - i;
        MPI_Bcast(buf, 1, t, root, c);
        for (int i = 0; i < N; i++) {
            double want = crank == root || map[i] ? val(it, i) : -1.0 - i;
            if (buf[i] != want) {
                if (errs < 10)
                    fprintf(stderr, "rank %d iter %d kind %d root %d: buf[%d] = %g, want %g\n", rank, it,
                            kind, root, i, buf[i], want);
                errs++;
                break;
            }
        }
        MPI_Type_free(&t);
    }
    int all;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    free(buf);
    free(map);
    if (rank == 0) {
        if (all == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", all);
    }
    MPI_Finalize();
    return 0;
}
