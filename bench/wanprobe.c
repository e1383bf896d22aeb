/* wanprobe.c: where a small wide-area collective's time goes, per call.
 *
 *   mpirun --grid examples/grid-4x2.toml --emulate wanprobe OP [N]
 *
 * OP: barrier, allreduce8, allgather8 or alltoall8 (N back-to-back calls,
 * default 200), or msg / msg1 (N rounds, each after a barrier, in which
 * every process sends one 8-byte message carrying its send time to every
 * process of the other sites (msg) or only to its counterpart, the one
 * with the same index in its site (msg1); the receiver notes the one-way
 * time of each). The emulated hosts share one CLOCK_MONOTONIC, so times
 * taken on different processes compare. Assumes 2 processes per site,
 * in rank order (the grid files' placement).
 *
 * Printed on rank 0: the time per call (the loop's average over the
 * ranks); for every call and rank, the time from the last rank's entry
 * to this rank's exit (min, p10, p50, p90, p99, max) and the average per
 * call of the latest exit; the CPU time and context switches of all
 * ranks per call (getrusage over the loop). For msg: the distribution of
 * the one-way times. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static int rank, nprocs;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* usage: CPU ms, voluntary and involuntary context switches so far */
static void usage(double *v)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    v[0] = (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-3;
    v[1] = r.ru_nvcsw;
    v[2] = r.ru_nivcsw;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void dist(const char *what, double *v, int n)
{
    qsort(v, n, sizeof *v, cmpd);
    printf("%s: min %.3f p10 %.3f p50 %.3f p90 %.3f p99 %.3f max %.3f ms", what, v[0], v[n / 10], v[n / 2],
           v[n * 9 / 10], v[n * 99 / 100], v[n - 1]);
}

static void msg(int n, int counterpart)
{
    const int h = 2; /* processes per site */
    double *lat = malloc(sizeof(double) * n * nprocs), sb[64], rb[64];
    int nl = 0, peers[64], np = 0;
    MPI_Request rq[64];
    for (int q = 0; q < nprocs && np < 64; q++)
        if (q / h != rank / h && (!counterpart || q % h == rank % h))
            peers[np++] = q;
    for (int i = 0; i < n; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int j = 0; j < np; j++)
            MPI_Irecv(&rb[j], 1, MPI_DOUBLE, peers[j], 7, MPI_COMM_WORLD, &rq[j]);
        for (int j = 0; j < np; j++) {
            sb[j] = now();
            MPI_Send(&sb[j], 1, MPI_DOUBLE, peers[j], 7, MPI_COMM_WORLD);
        }
        for (int j = 0; j < np; j++) {
            int k;
            MPI_Waitany(np, rq, &k, MPI_STATUS_IGNORE);
            lat[nl++] = now() - rb[k];
        }
    }
    int *cnt = malloc(sizeof(int) * nprocs), *dis = malloc(sizeof(int) * nprocs), total = 0;
    double *all = malloc(sizeof(double) * n * nprocs * nprocs);
    MPI_Gather(&nl, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int q = 0; q < nprocs; q++) {
            dis[q] = total;
            total += cnt[q];
        }
    MPI_Gatherv(lat, nl, MPI_DOUBLE, all, cnt, dis, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%s, %d messages, one way ", counterpart ? "msg1" : "msg", total);
        dist("", all, total);
        printf("\n");
    }
    free(lat), free(cnt), free(dis), free(all);
}

static void call(const char *op, double *s, double *r)
{
    if (!strcmp(op, "barrier"))
        MPI_Barrier(MPI_COMM_WORLD);
    else if (!strcmp(op, "allreduce8"))
        MPI_Allreduce(s, r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(op, "allgather8"))
        MPI_Allgather(s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    else if (!strcmp(op, "alltoall8"))
        MPI_Alltoall(s, 1, MPI_DOUBLE, r, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    else {
        fprintf(stderr, "wanprobe: unknown op %s\n", op);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *op = argc > 1 ? argv[1] : "barrier";
    int n = argc > 2 ? atoi(argv[2]) : 200;
    if (n < 1 || nprocs > 64) {
        fprintf(stderr, "wanprobe: N must be positive, at most 64 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!strcmp(op, "msg") || !strcmp(op, "msg1")) {
        msg(n, op[3] == '1');
        MPI_Finalize();
        return 0;
    }
    double *t = malloc(sizeof(double) * (n + 1)), *all = malloc(sizeof(double) * (n + 1) * nprocs);
    double s[64] = {1}, r[64], u0[3], u1[3], us[3];
    call(op, s, r);
    MPI_Barrier(MPI_COMM_WORLD);
    usage(u0);
    for (int i = 0; i < n; i++) {
        t[i] = now();
        call(op, s, r);
    }
    t[n] = now();
    usage(u1);
    for (int k = 0; k < 3; k++)
        u1[k] -= u0[k];
    MPI_Reduce(u1, us, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Gather(t, n + 1, MPI_DOUBLE, all, n + 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double *lat = malloc(sizeof(double) * n * nprocs), loop = 0, worst = 0;
        int nl = 0;
        for (int i = 0; i < n; i++) {
            double last = 0, w = 0;
            for (int q = 0; q < nprocs; q++)
                if (all[q * (n + 1) + i] > last)
                    last = all[q * (n + 1) + i];
            for (int q = 0; q < nprocs; q++) {
                double e = all[q * (n + 1) + i + 1] - last;
                lat[nl++] = e;
                if (e > w)
                    w = e;
            }
            worst += w;
        }
        for (int q = 0; q < nprocs; q++)
            loop += all[q * (n + 1) + n] - all[q * (n + 1)];
        printf("%s %.3f ms per call; last entry to exit ", op, loop / nprocs / n);
        dist("", lat, nl);
        printf("; latest exit %.3f ms; all ranks per call: cpu %.3f ms, %.1f voluntary and %.1f involuntary "
               "context switches\n",
               worst / n, us[0] / n, us[1] / n, us[2] / n);
        free(lat);
    }
    free(t), free(all);
    MPI_Finalize();
    return 0;
}
