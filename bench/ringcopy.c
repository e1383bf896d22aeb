/*
 * ringcopy: the two copies of an eager message through a ring between two
 * cores, timed alone (no MPI), to see which copy routine and which ring
 * discipline move a mid-size message fastest (bench/README.md, "Eager
 * sizes", helper p2p9a).
 *
 *   cc -O2 -mavx512f -o ringcopy bench/ringcopy.c -lpthread && ./ringcopy
 *
 * Thread A (CPU 0) writes a message of n bytes from a cached source into
 * a 1 MiB ring at an advancing position (or always at 0 with -f) and
 * publishes it (one flag word, or one per chunk with -c CHUNK); thread B
 * (CPU 1) copies it out into a destination buffer, zeroes the first word
 * of every ring line it read (as the shm device does), and publishes its
 * own message back the same way (-n: it does not zero the lines, so it
 * leaves them shared instead of modified in its cache): a ping-pong whose half round trip is
 * one message's two copies plus one flag line each way. Prints the
 * median and best half round trip over many round trips per routine.
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RING (1u << 20)
#define LINE 64

static uint8_t *ring[2]; /* ring[i]: from thread i to the other */
static volatile uint64_t flag[2][8] __attribute__((aligned(64))); /* bytes published, per direction */
static int nozero, nbytes, chunk, fixedpos, routine_in, routine_out, rounds = 2000;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void rep_movsb(void *d, const void *s, size_t n)
{
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static void avx_loop(void *d, const void *s, size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        _mm512_storeu_si512((char *)d + i, _mm512_loadu_si512((const char *)s + i));
    memcpy((char *)d + i, (const char *)s + i, n - i);
}

static void nt_loop(void *d, const void *s, size_t n)
{
    /* d is a line plus 56 bytes into the ring: the unaligned head first. */
    size_t i = (64 - ((uintptr_t)d & 63)) & 63;
    if (i > n)
        i = n;
    memcpy(d, s, i);
    for (; i + 64 <= n; i += 64)
        _mm512_stream_si512((void *)((char *)d + i), _mm512_loadu_si512((const char *)s + i));
    memcpy((char *)d + i, (const char *)s + i, n - i);
    _mm_sfence();
}

static void demote(void *d, const void *s, size_t n)
{
    memcpy(d, s, n);
    for (size_t i = 0; i < n; i += 64)
        __asm__ volatile("cldemote (%0)" : : "r"((char *)d + i));
}

typedef void (*copyfn)(void *, const void *, size_t);
static const copyfn fns[] = {(copyfn)memcpy, rep_movsb, avx_loop, nt_loop, demote};
static const char *names[] = {"memcpy", "rep_movsb", "avx512", "nt", "memcpy+cldemote"};

struct arg {
    int me;
    double *half;
};

static void *run(void *p)
{
    struct arg *a = p;
    int me = a->me, other = 1 - me;
    cpu_set_t cs;
    CPU_ZERO(&cs);
    CPU_SET(me, &cs);
    pthread_setaffinity_np(pthread_self(), sizeof cs, &cs);
    uint8_t *src = aligned_alloc(4096, 1 << 20), *dst = aligned_alloc(4096, 1 << 20);
    memset(src, me + 1, 1 << 20);
    memset(dst, 0, 1 << 20);
    uint64_t pos = 0, sent = 0, got = 0;
    size_t rec = ((size_t)nbytes + 56 + LINE - 1) & ~(size_t)(LINE - 1);
    int nch = chunk ? (nbytes + chunk - 1) / chunk : 1;
    for (int r = 0; r < rounds + rounds / 10; r++) {
        double t0 = now();
        for (int turn = 0; turn < 2; turn++) {
            if ((turn == 0) == (me == 0)) {
                /* send */
                uint64_t at = fixedpos ? 0 : pos % RING;
                if (at + rec > RING)
                    at = 0;
                uint8_t *d = ring[me] + at + 56; /* header before the payload */
                if (!chunk) {
                    fns[routine_in](d, src, nbytes);
                    __atomic_store_n(&flag[me][0], ++sent, __ATOMIC_RELEASE);
                } else {
                    ++sent;
                    for (int c = 0; c < nch; c++) {
                        size_t off = (size_t)c * chunk, m = nbytes - off < (size_t)chunk ? nbytes - off : chunk;
                        fns[routine_in](d + off, src + off, m);
                        __atomic_store_n(&flag[me][0], sent * 1000 + c + 1, __ATOMIC_RELEASE);
                    }
                }
                pos = at + rec;
            } else {
                /* receive */
                ++got;
                static __thread uint64_t rpos;
                uint64_t at = fixedpos ? 0 : rpos % RING;
                if (at + rec > RING)
                    at = 0;
                uint8_t *s = ring[other] + at + 56;
                if (!chunk) {
                    while (__atomic_load_n(&flag[other][0], __ATOMIC_ACQUIRE) != got)
                        _mm_pause();
                    fns[routine_out](dst, s, nbytes);
                } else {
                    for (int c = 0; c < nch; c++) {
                        size_t off = (size_t)c * chunk, m = nbytes - off < (size_t)chunk ? nbytes - off : chunk;
                        while (__atomic_load_n(&flag[other][0], __ATOMIC_ACQUIRE) < got * 1000 + c + 1)
                            _mm_pause();
                        fns[routine_out](dst + off, s + off, m);
                    }
                }
                if (!nozero)
                    for (uint64_t l = 0; l < rec; l += LINE)
                        *(volatile uint64_t *)(ring[other] + at + l) = 0;
                rpos = at + rec;
            }
        }
        if (me == 0 && r >= rounds / 10)
            a->half[r - rounds / 10] = (now() - t0) / 2;
    }
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int sizes[] = {4096, 8192, 16384, 32768, 65536};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-f"))
            fixedpos = 1;
        else if (!strcmp(argv[i], "-n"))
            nozero = 1;
        else if (!strcmp(argv[i], "-c") && i + 1 < argc)
            chunk = atoi(argv[++i]);
    }
    for (int i = 0; i < 2; i++) {
        ring[i] = aligned_alloc(4096, RING);
        memset(ring[i], 0, RING);
    }
    double *half = malloc(sizeof(double) * rounds);
    printf("# ring copy, %s position, chunk %d, %s; half round trip ns median/best (GB/s of one copy at median)\n",
           fixedpos ? "fixed" : "advancing", chunk, nozero ? "receiver only reads the ring" : "receiver zeroes every line it read");
    int combos[][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 0}, {4, 0}, {1, 0}, {0, 1}};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        nbytes = sizes[s];
        for (unsigned k = 0; k < sizeof combos / sizeof combos[0]; k++) {
            routine_in = combos[k][0], routine_out = combos[k][1];
            memset((void *)flag, 0, sizeof flag);
            pthread_t t[2];
            struct arg a[2] = {{0, half}, {1, half}};
            for (int i = 0; i < 2; i++)
                pthread_create(&t[i], NULL, run, &a[i]);
            for (int i = 0; i < 2; i++)
                pthread_join(t[i], NULL);
            qsort(half, rounds, sizeof half[0], cmp);
            printf("%6d in %-16s out %-10s %8.0f %8.0f  (%.1f)\n", nbytes, names[routine_in], names[routine_out],
                   half[rounds / 2], half[0], 2.0 * nbytes / half[rounds / 2]);
        }
    }
    return 0;
}
