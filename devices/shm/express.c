/* The express lane's ring append; see express.h and layout.go. */
#include <stddef.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "express.h"

#define LINE      64u
#define REC_HDR   (8u + sizeof(struct gmpi_shm_hdr))
#define CTL_VALID (1ull << 63)
#define CTL_SKIP  (1ull << 62)

_Static_assert(sizeof(struct gmpi_shm_hdr) == 48, "header is mpirt.Header");

static void wake(struct gmpi_shm_tx *t)
{
    /* FutexWaker.Wake: advance the event count, wake the sleepers. */
    __atomic_add_fetch(t->epoch, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(t->waiters, __ATOMIC_SEQ_CST) != 0)
        syscall(SYS_futex, t->epoch, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
}

int gmpi_shm_send(struct gmpi_shm_tx *t, const struct gmpi_shm_hdr *h, const void *payload, uint64_t n)
{
    if (t->closed || n > t->max_payload)
        return -1;
    uint64_t size = t->mask + 1;
    uint64_t rec = (REC_HDR + n + LINE - 1) & ~(uint64_t)(LINE - 1);
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
    if (n)
        memcpy(r + REC_HDR, payload, n);
    /* Release: the header and payload become visible before the ctl word
     * (a plain store on x86, like publishCtl). */
    __atomic_store_n((uint64_t *)r, CTL_VALID | n, __ATOMIC_RELEASE);
    if (at != pos)
        __atomic_store_n((uint64_t *)(t->data + pos), CTL_SKIP, __ATOMIC_RELEASE);
    t->tail += need;
    if (t->gate || __atomic_load_n(t->waiters, __ATOMIC_RELAXED) != 0)
        wake(t);
    return 0;
}

uint64_t gmpi_shm_tx_layout(void)
{
    return sizeof(struct gmpi_shm_tx) << 48 | offsetof(struct gmpi_shm_tx, tail) << 40 |
           offsetof(struct gmpi_shm_tx, headp) << 32 | offsetof(struct gmpi_shm_tx, max_payload) << 24 |
           offsetof(struct gmpi_shm_tx, closed) << 16;
}
