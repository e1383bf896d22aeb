/*
 * The shm device's express lane: the producer side of one ring, kept in
 * memory outside the Go heap so that C code (capi's express entry points)
 * can append a frame without entering Go. Go's Device.Send and
 * gmpi_shm_send share this state; their callers serialize the sends to
 * one peer (express runs only below MPI_THREAD_MULTIPLE, where the device
 * is single-threaded). The ring format is described in layout.go.
 */
#ifndef GMPI_SHM_EXPRESS_H
#define GMPI_SHM_EXPRESS_H

#include <stdint.h>

struct gmpi_shm_tx {
    uint8_t  *data;        /* our ring in the peer's segment */
    uint64_t  mask;        /* ring bytes - 1 */
    uint64_t  tail;        /* bytes produced so far */
    uint64_t  head;        /* last head value read from the consumer */
    uint64_t *headp;       /* the consumer's head */
    uint32_t *epoch;       /* the peer's doorbell: event count */
    uint32_t *waiters;     /*                     sleepers */
    uint64_t  max_payload; /* largest payload of one frame */
    uint32_t  gate;        /* the peer checks its doorbell first: always wake */
    uint32_t  pad;
};

/* The consumer side of one ring in our own segment; Go's drain and the
 * express receive share it (same rule: one thread at a time). */
struct gmpi_shm_rx {
    uint8_t  *data;      /* the ring */
    uint64_t  mask;
    uint64_t  head;      /* bytes consumed so far */
    uint64_t  published; /* last value stored to *headp */
    uint64_t *headp;     /* published head, read by the producer */
    uint32_t *wantp;     /* the producer waits for space */
    uint32_t *epoch;     /* the producer's doorbell */
    uint32_t *waiters;
    uint32_t  broken;    /* a record failed validation: Go abandons the ring */
    uint32_t  pad;
};

/* mpirt.Header, byte for byte. */
struct gmpi_shm_hdr {
    uint8_t  kind;
    uint8_t  flags;
    uint8_t  pad[2];
    uint32_t context;
    int32_t  source;
    int32_t  tag;
    uint64_t len;
    uint64_t send_id;
    uint64_t recv_id;
    uint64_t offset;
};

/*
 * gmpi_shm_send appends one frame of n payload bytes to t's ring and
 * rings the peer's doorbell. It never waits: it returns 0 when the frame
 * is published and -1 (nothing written) when the ring lacks space or the
 * payload is too large; the caller then takes the Go
 * path, which can wait for space while making progress.
 */
int gmpi_shm_send(struct gmpi_shm_tx *t, const struct gmpi_shm_hdr *h, const void *payload, uint64_t n);

/*
 * gmpi_shm_send_pipe is gmpi_shm_send that publishes a payload of more
 * than chunk bytes as it writes it, chunk bytes at a time (a partial
 * record, layout.go), so that a receiver copying it out as it comes
 * (gmpi_shm_peek_part) overlaps its copy with ours. chunk 0: whole.
 */
int gmpi_shm_send_pipe(struct gmpi_shm_tx *t, const struct gmpi_shm_hdr *h, const void *payload, uint64_t n,
                       uint64_t chunk);

/*
 * gmpi_shm_peek returns the header of the next record of r, with its
 * payload and length, or NULL when nothing valid is there (an empty ring,
 * or a record Go must look at: the Go path then takes over). It consumes
 * a skip marker on the way.
 */
const struct gmpi_shm_hdr *gmpi_shm_peek(struct gmpi_shm_rx *r, const uint8_t **payload, uint64_t *n);

/* gmpi_shm_pending reports whether r holds anything at all. */
static inline int gmpi_shm_pending(const struct gmpi_shm_rx *r)
{
    return __atomic_load_n((const uint64_t *)(r->data + (r->head & r->mask)), __ATOMIC_RELAXED) != 0;
}

/* GMPI_SHM_CTL_PARTIAL marks a record still being written (layout.go). */
#define GMPI_SHM_CTL_PARTIAL (1ull << 61)

/* gmpi_shm_partial reports whether the next record of r is still being
 * written: gmpi_shm_peek sees nothing yet, as Go's Poll does. */
static inline int gmpi_shm_partial(const struct gmpi_shm_rx *r)
{
    return (__atomic_load_n((const uint64_t *)(r->data + (r->head & r->mask)), __ATOMIC_RELAXED) &
            GMPI_SHM_CTL_PARTIAL) != 0;
}

/*
 * gmpi_shm_peek_part is gmpi_shm_peek that also returns a record being
 * written: *done is how many bytes of its payload are there (*n when it
 * is whole). Follow it with gmpi_shm_wait_part until *done is *n, then
 * gmpi_shm_consume.
 */
const struct gmpi_shm_hdr *gmpi_shm_peek_part(struct gmpi_shm_rx *r, const uint8_t **payload, uint64_t *n,
                                              uint64_t *done);

/*
 * gmpi_shm_copy_out copies the payload (n bytes at payload) of the record
 * at the head of r, of which done bytes are written (gmpi_shm_peek_part),
 * to dst, each part as soon as it is there. It returns 0 when all n bytes
 * are copied (then gmpi_shm_consume), -1 when the producer wrote nothing
 * for spin polls (yield: sched_yield between polls, else pause); the
 * record is then still at the head and dst holds part of it.
 */
int gmpi_shm_copy_out(const struct gmpi_shm_rx *r, void *dst, const uint8_t *payload, uint64_t n, uint64_t done,
                      int spin, int yield);

/* gmpi_shm_done is how many payload bytes of the record at the head of r
 * are written (its length once whole). */
static inline uint64_t gmpi_shm_done(const struct gmpi_shm_rx *r)
{
    uint64_t c = __atomic_load_n((const uint64_t *)(r->data + (r->head & r->mask)), __ATOMIC_ACQUIRE);
    return c & GMPI_SHM_CTL_PARTIAL ? (c >> 32) & ((1ull << 29) - 1) : c & 0xffffffffull;
}

/* gmpi_shm_consume frees the record gmpi_shm_peek returned (its payload
 * was n bytes), exactly as Go's drain does after the handler. */
void gmpi_shm_consume(struct gmpi_shm_rx *r, uint64_t n);

/* Layout checks for the Go mirrors of the two structs. */
uint64_t gmpi_shm_tx_layout(void);
uint64_t gmpi_shm_rx_layout(void);

#endif
