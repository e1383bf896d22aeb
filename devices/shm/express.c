/* The express lane's ring append; see express.h and layout.go. */
#include <stddef.h>
#include <string.h>
#include <limits.h>
#include <sched.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "express.h"

#define LINE      64u
#define REC_HDR   (8u + sizeof(struct gmpi_shm_hdr))
#define CTL_VALID (1ull << 63)
#define CTL_SKIP  (1ull << 62)
#define CTL_LEN   0xffffffffull
/* Go's publishEvery. */
#define PUBLISH_EVERY 4096u

_Static_assert(sizeof(struct gmpi_shm_hdr) == 48, "header is mpirt.Header");

static uint64_t rec_size(uint64_t n) { return (REC_HDR + n + LINE - 1) & ~(uint64_t)(LINE - 1); }

static void wake(uint32_t *epoch, uint32_t *waiters)
{
    /* FutexWaker.Wake: advance the event count, wake the sleepers. */
    __atomic_add_fetch(epoch, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(waiters, __ATOMIC_SEQ_CST) != 0)
        syscall(SYS_futex, epoch, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
}

int gmpi_shm_send(struct gmpi_shm_tx *t, const struct gmpi_shm_hdr *h, const void *payload, uint64_t n)
{
    return gmpi_shm_send_pipe(t, h, payload, n, 0);
}

int gmpi_shm_send_pipe(struct gmpi_shm_tx *t, const struct gmpi_shm_hdr *h, const void *payload, uint64_t n,
                       uint64_t chunk)
{
    if (n > t->max_payload)
        return -1;
    uint64_t size = t->mask + 1;
    uint64_t rec = rec_size(n);
    uint64_t pos = t->tail & t->mask;
    uint64_t need = rec;
    if (pos + rec > size)
        need += size - pos; /* skip to the start of the ring */
    if (t->tail + need + LINE - t->head > size) {
        t->head = __atomic_load_n(t->headp, __ATOMIC_ACQUIRE);
        if (t->tail + need + LINE - t->head > size)
            return -1;
    }
    uint64_t at = need != rec ? 0 : pos;
    uint8_t *r = t->data + at;
    memcpy(r + 8, h, sizeof *h);
    if (chunk != 0 && n > chunk) {
        /* Pipelined: each chunk is published as it is written; the
         * skip marker that leads here follows the first. */
        for (uint64_t off = 0; off < n; off += chunk) {
            uint64_t m = n - off < chunk ? n - off : chunk;
            memcpy(r + REC_HDR + off, (const uint8_t *)payload + off, m);
            if (off + m < n)
                __atomic_store_n((uint64_t *)r, CTL_VALID | GMPI_SHM_CTL_PARTIAL | (off + m) << 32 | n,
                                 __ATOMIC_RELEASE);
            if (off == 0 && at != pos)
                __atomic_store_n((uint64_t *)(t->data + pos), CTL_SKIP, __ATOMIC_RELEASE);
        }
        __atomic_store_n((uint64_t *)r, CTL_VALID | n, __ATOMIC_RELEASE);
    } else {
        if (n)
            memcpy(r + REC_HDR, payload, n);
        /* Release: the header and payload become visible before the ctl
         * word (a plain store on x86, like publishCtl). */
        __atomic_store_n((uint64_t *)r, CTL_VALID | n, __ATOMIC_RELEASE);
        if (at != pos)
            __atomic_store_n((uint64_t *)(t->data + pos), CTL_SKIP, __ATOMIC_RELEASE);
    }
    t->tail += need;
    if (t->gate || __atomic_load_n(t->waiters, __ATOMIC_RELAXED) != 0)
        wake(t->epoch, t->waiters);
    return 0;
}

const struct gmpi_shm_hdr *gmpi_shm_peek(struct gmpi_shm_rx *r, const uint8_t **payload, uint64_t *n)
{
    uint64_t done;
    const struct gmpi_shm_hdr *h = gmpi_shm_peek_part(r, payload, n, &done);
    return h != NULL && done == *n ? h : NULL;
}

const struct gmpi_shm_hdr *gmpi_shm_peek_part(struct gmpi_shm_rx *r, const uint8_t **payload, uint64_t *n,
                                              uint64_t *done)
{
    uint64_t size = r->mask + 1;
    for (int lap = 0; lap < 2 && !r->broken; lap++) {
        uint64_t pos = r->head & r->mask;
        uint64_t c = __atomic_load_n((uint64_t *)(r->data + pos), __ATOMIC_ACQUIRE);
        if (c == 0)
            return NULL;
        if (c & CTL_SKIP) {
            *(uint64_t *)(r->data + pos) = 0;
            r->head += size - pos;
            continue;
        }
        uint64_t ln = c & CTL_LEN;
        if (!(c & CTL_VALID) || pos + rec_size(ln) > size || ln > size / 4)
            return NULL; /* corrupt: Go's drain marks the ring broken */
        *payload = r->data + pos + REC_HDR;
        *n = ln;
        *done = ln;
        if (c & GMPI_SHM_CTL_PARTIAL) {
            *done = (c >> 32) & ((1ull << 29) - 1);
            if (*done > ln)
                return NULL;
        }
        return (const struct gmpi_shm_hdr *)(r->data + pos + 8);
    }
    return NULL;
}

int gmpi_shm_copy_out(const struct gmpi_shm_rx *r, void *dst, const uint8_t *payload, uint64_t n, uint64_t done,
                      int spin, int yield)
{
    uint64_t got = 0;
    for (int idle = 0; got < n;) {
        if (done > got) {
            memcpy((uint8_t *)dst + got, payload + got, done - got);
            got = done, idle = 0;
        } else if (++idle > spin) {
            return -1;
        } else if (yield) {
            sched_yield();
        } else {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            __asm__ volatile("yield");
#endif
        }
        done = gmpi_shm_done(r);
    }
    return 0;
}

static void publish(struct gmpi_shm_rx *r)
{
    if (r->head == r->published)
        return;
    r->published = r->head;
    __atomic_store_n(r->headp, r->head, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(r->wantp, __ATOMIC_SEQ_CST) != 0)
        wake(r->epoch, r->waiters);
}

void gmpi_shm_consume(struct gmpi_shm_rx *r, uint64_t n)
{
    uint64_t size = r->mask + 1, pos = r->head & r->mask, rec = rec_size(n);
    for (uint64_t off = pos; off < pos + rec; off += LINE)
        *(uint64_t *)(r->data + off) = 0;
    r->head += rec;
    if (n >= PUBLISH_EVERY || r->head - r->published >= size / 4 ||
        __atomic_load_n(r->wantp, __ATOMIC_RELAXED) != 0)
        publish(r);
}

uint64_t gmpi_shm_rx_layout(void)
{
    return sizeof(struct gmpi_shm_rx) << 48 | offsetof(struct gmpi_shm_rx, head) << 40 |
           offsetof(struct gmpi_shm_rx, headp) << 32 | offsetof(struct gmpi_shm_rx, waiters) << 24 |
           offsetof(struct gmpi_shm_rx, broken) << 16;
}

uint64_t gmpi_shm_tx_layout(void)
{
    return sizeof(struct gmpi_shm_tx) << 48 | offsetof(struct gmpi_shm_tx, tail) << 40 |
           offsetof(struct gmpi_shm_tx, headp) << 32 | offsetof(struct gmpi_shm_tx, max_payload) << 24 |
           offsetof(struct gmpi_shm_tx, gate) << 16;
}
