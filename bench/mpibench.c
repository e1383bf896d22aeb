/* mpibench.c: point-to-point microbenchmarks in plain MPI, built by
 * bench/run.sh against gmpi, MPICH and Open MPI alike.
 *
 *   mpibench [-r REPS] [-s SCALE] [-m MAXBYTES] [-w WINDOW] [-x min|median]
 *            [BENCH...]
 *
 * BENCH is any of latency bw bibw rate ring (default: all five). latency,
 * bw, bibw and rate run between ranks 0 and 1 (other ranks wait); ring uses
 * every rank. Each measurement is warmed up and repeated REPS times
 * (default 5), each repetition sweeping all sizes, and the median (or with
 * -x min the best) repetition is printed.
 * SCALE multiplies every iteration count (default 1; the smoke test uses a
 * tiny one). Output, one line per measurement, on rank 0:
 *
 *   latency BYTES USEC      one-way time by ping-pong (round trip / 2)
 *   bw      BYTES MB/S      unidirectional bandwidth, windowed Isend
 *   bibw    BYTES MB/S      bidirectional bandwidth (sum of both ways)
 *   rate    BYTES MSG/S     messages per second, windowed 8-byte sends
 *   ring    NPROCS USEC     time per iteration of Sendrecv right,
 *                           Sendrecv left, Barrier over all ranks
 *
 * MB is 10^6 bytes. Lines starting with '#' are comments. Received data
 * is checked after each repetition (outside the timed region); a mismatch
 * aborts with a message. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXWINDOW 64
#define WINDOW_BYTES (16 << 20) /* receive memory of one bandwidth window */

static int rank, nprocs, reps = 5, use_min;
static int window = MAXWINDOW;
static double scale = 1;
static long maxbytes = 4L << 20;
static MPI_Comm pair = MPI_COMM_NULL; /* ranks 0 and 1 */
static char *sbuf, *rbuf;             /* sbuf: one message; rbuf: a window */

static void die(const char *msg)
{
    fprintf(stderr, "mpibench: rank %d: %s\n", rank, msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* iters scales a base iteration count: at most base, else budget/bytes
 * (so large messages move about budget bytes), at least lo; then SCALE,
 * and never fewer than 1. */
static long iters(long base, double budget, long bytes, long lo)
{
    double n = base;
    if (bytes > 0 && budget / bytes < n)
        n = budget / bytes;
    if (n < lo)
        n = lo;
    n *= scale;
    return n < 1 ? 1 : (long)n;
}

/* Window length for a bandwidth size: MAXWINDOW (or -w), fewer when the
 * distinct receive buffers of a window would exceed WINDOW_BYTES. */
static int window_for(long bytes)
{
    long w = window;
    if (bytes > 0 && w * bytes > WINDOW_BYTES)
        w = WINDOW_BYTES / bytes;
    return w < 1 ? 1 : (int)w;
}

static void fill(char *p, long bytes, long seed)
{
    for (long i = 0; i < bytes; i++)
        p[i] = (char)((i * 7 + seed) & 0xff);
}

static void check(const char *p, long bytes, long seed, const char *what)
{
    for (long i = 0; i < bytes; i++)
        if (p[i] != (char)((i * 7 + seed) & 0xff)) {
            char msg[200];
            snprintf(msg, sizeof msg, "%s of %ld bytes: wrong data at byte %ld", what, bytes, i);
            die(msg);
        }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* stat reduces the repetitions: the median, or with -x min the smallest
 * (want_low) or largest value. */
static double stat(double *v, int n, int want_low)
{
    qsort(v, n, sizeof *v, cmp);
    if (use_min)
        return want_low ? v[0] : v[n - 1];
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* pingpong runs n round trips of bytes between ranks 0 and 1. */
static void pingpong(long bytes, long n)
{
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(sbuf, (int)bytes, MPI_BYTE, 1, 1, pair);
            MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 1, 1, pair, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 0, 1, pair, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)bytes, MPI_BYTE, 0, 1, pair);
        }
    }
}

/* latency_once: one warmed-up, timed repetition of ping-pong; usec. */
static double latency_once(long bytes)
{
    long n = iters(2000, 64 << 20, bytes, 10);
    pingpong(bytes, n / 10 + 1);
    memset(rbuf, 0, bytes);
    MPI_Barrier(pair);
    double t0 = MPI_Wtime();
    pingpong(bytes, n);
    double t = (MPI_Wtime() - t0) / (2.0 * n) * 1e6;
    check(rbuf, bytes, bytes, "latency message");
    return t;
}

/* stream sends n windows of w messages of bytes from rank 0 to rank 1;
 * rank 1 acknowledges each window with an empty message. */
static void stream(long bytes, int w, long n)
{
    MPI_Request req[MAXWINDOW];
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            for (int k = 0; k < w; k++)
                MPI_Isend(sbuf, (int)bytes, MPI_BYTE, 1, 2, pair, &req[k]);
            MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, pair, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < w; k++)
                MPI_Irecv(rbuf + k * bytes, (int)bytes, MPI_BYTE, 0, 2, pair, &req[k]);
            MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, 3, pair);
        }
    }
}

/* exchange runs n windows in both directions at once: each rank posts w
 * receives and w sends and waits for all of them. */
static void exchange(long bytes, int w, long n)
{
    MPI_Request req[2 * MAXWINDOW];
    int peer = 1 - rank;
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < w; k++)
            MPI_Irecv(rbuf + k * bytes, (int)bytes, MPI_BYTE, peer, 4, pair, &req[k]);
        for (int k = 0; k < w; k++)
            MPI_Isend(sbuf, (int)bytes, MPI_BYTE, peer, 4, pair, &req[w + k]);
        MPI_Waitall(2 * w, req, MPI_STATUSES_IGNORE);
    }
}

/* windowed_once: one warmed-up, timed repetition of bw (both=0) or bibw
 * (both=1); MB/s. */
static double windowed_once(long bytes, int both)
{
    int w = window_for(bytes);
    long n = iters(200, 256 << 20, bytes * w, 4);
    if (both)
        exchange(bytes, w, n / 10 + 1);
    else
        stream(bytes, w, n / 10 + 1);
    memset(rbuf, 0, bytes * w);
    MPI_Barrier(pair);
    double t0 = MPI_Wtime();
    if (both)
        exchange(bytes, w, n);
    else
        stream(bytes, w, n);
    double dt = MPI_Wtime() - t0;
    if (both || rank == 1)
        for (int k = 0; k < w; k++)
            check(rbuf + k * bytes, bytes, bytes, both ? "bibw message" : "bw message");
    return (both ? 2.0 : 1.0) * bytes * w * n / dt / 1e6;
}

static double bw_once(long bytes)
{
    return windowed_once(bytes, 0);
}

static double bibw_once(long bytes)
{
    return windowed_once(bytes, 1);
}

/* rate_once: one repetition of the bw pattern with 8-byte messages;
 * messages/s. */
static double rate_once(long bytes)
{
    long n = iters(2000, 0, 0, 1);
    stream(bytes, window, n / 10 + 1);
    memset(rbuf, 0, bytes * window);
    MPI_Barrier(pair);
    double t0 = MPI_Wtime();
    stream(bytes, window, n);
    double t = (double)window * n / (MPI_Wtime() - t0);
    if (rank == 1)
        for (int k = 0; k < window; k++)
            check(rbuf + k * bytes, bytes, bytes, "rate message");
    return t;
}

/* sweep measures every size from first (0 or 1) up to maxbytes, or only
 * first when one is set, and prints "name size value" per size. The
 * repetitions are the outer loop, so a burst of load on a shared machine
 * spoils one repetition of many sizes rather than all repetitions of a
 * few, and the median discards it. */
static void sweep(const char *name, double (*once)(long), long first, int one, int want_low,
                  const char *fmt)
{
    long sizes[64];
    int ns = 0;
    for (long b = first; b <= maxbytes && ns < 64; b = b ? 2 * b : 1) {
        sizes[ns++] = b;
        if (one)
            break;
    }
    double *v = malloc(sizeof(double) * ns * reps);
    if (!v)
        die("out of memory");
    for (int i = 0; i < ns; i++) { /* an untimed pass: first touch of the buffers */
        fill(sbuf, sizes[i], sizes[i]);
        once(sizes[i]);
    }
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < ns; i++) {
            fill(sbuf, sizes[i], sizes[i]);
            v[i * reps + r] = once(sizes[i]);
        }
    if (rank == 0)
        for (int i = 0; i < ns; i++)
            printf(fmt, name, sizes[i], stat(v + i * reps, reps, want_low));
    free(v);
}

/* ringstep runs n iterations of the ring exchange over all ranks. */
static void ringstep(long n)
{
    int right = (rank + 1) % nprocs, left = (rank + nprocs - 1) % nprocs;
    for (long i = 0; i < n; i++) {
        int out = rank, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, right, 5, &in, 1, MPI_INT, left, 5, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (in != left)
            die("ring: wrong value from the left");
        MPI_Sendrecv(&out, 1, MPI_INT, left, 6, &in, 1, MPI_INT, right, 6, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (in != right)
            die("ring: wrong value from the right");
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* ring: oversubscribed machines make an iteration cost anything from
 * microseconds to many milliseconds, so the count is calibrated: rank 0
 * times 1, 2, 4, ... iterations until a run takes 20 ms * SCALE, then
 * picks a count for about 0.2 s * SCALE per repetition; every rank learns
 * each decision by broadcast. */
static void ring(void)
{
    double t[reps], t0, per;
    long n = 1;
    ringstep(3);
    for (;;) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        ringstep(n);
        double dt = MPI_Wtime() - t0;
        per = dt / n;
        int done = dt >= 0.02 * scale || n >= 100000;
        MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (done)
            break;
        n *= 2;
    }
    n = (long)(0.2 * scale / (per > 1e-9 ? per : 1e-9));
    if (n > 1000000)
        n = 1000000;
    if (n < 3)
        n = 3;
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        ringstep(n);
        t[r] = (MPI_Wtime() - t0) / n * 1e6;
    }
    if (rank == 0)
        printf("ring %d %.2f\n", nprocs, stat(t, reps, 1));
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: mpibench [-r REPS] [-s SCALE] [-m MAXBYTES] [-w WINDOW] "
                        "[-x min|median] [latency|bw|bibw|rate|ring]...\n");
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *names[] = {"latency", "bw", "bibw", "rate", "ring"};
    int run[5] = {0}, any = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] == '-') {
            if (!v || a[2])
                usage();
            if (a[1] == 'r')
                reps = atoi(v);
            else if (a[1] == 's')
                scale = atof(v);
            else if (a[1] == 'm')
                maxbytes = atol(v);
            else if (a[1] == 'w')
                window = atoi(v);
            else if (a[1] == 'x' && (!strcmp(v, "min") || !strcmp(v, "median")))
                use_min = !strcmp(v, "min");
            else
                usage();
            i++;
            continue;
        }
        int k = 0;
        while (k < 5 && strcmp(a, names[k]))
            k++;
        if (k == 5)
            usage();
        run[k] = any = 1;
    }
    if (reps < 1 || scale <= 0 || maxbytes < 1 || maxbytes > (1L << 30) || window < 1 ||
        window > MAXWINDOW)
        usage();
    if (!any)
        for (int k = 0; k < 5; k++)
            run[k] = 1;
    if (nprocs < 2) {
        if (rank == 0)
            fprintf(stderr, "mpibench: needs at least 2 processes\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    long wmax = maxbytes * window_for(maxbytes);
    for (long b = 1; b <= maxbytes; b *= 2)
        if (b * window_for(b) > wmax)
            wmax = b * window_for(b);
    if (posix_memalign((void **)&sbuf, 4096, maxbytes) ||
        posix_memalign((void **)&rbuf, 4096, wmax))
        die("out of memory");
    memset(sbuf, 0, maxbytes);
    memset(rbuf, 0, wmax);
    if (rank == 0)
        printf("# mpibench np=%d reps=%d stat=%s scale=%g window=%d\n", nprocs, reps,
               use_min ? "min" : "median", scale, window);
    for (int k = 0; k < 4; k++) {
        if (!run[k] || pair == MPI_COMM_NULL)
            continue;
        if (k == 0)
            sweep("latency", latency_once, 0, 0, 1, "%s %ld %.3f\n");
        else if (k == 1)
            sweep("bw", bw_once, 1, 0, 0, "%s %ld %.1f\n");
        else if (k == 2)
            sweep("bibw", bibw_once, 1, 0, 0, "%s %ld %.1f\n");
        else
            sweep("rate", rate_once, 8, 1, 0, "%s %ld %.0f\n");
        fflush(stdout);
    }
    if (run[4]) {
        MPI_Barrier(MPI_COMM_WORLD);
        ring();
    }
    if (pair != MPI_COMM_NULL)
        MPI_Comm_free(&pair);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
