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
    uint32_t  closed;      /* the device closed: gmpi_shm_send declines */
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
 * is published and -1 (nothing written) when the ring lacks space, the
 * payload is too large or the device closed; the caller then takes the Go
 * path, which can wait for space while making progress.
 */
int gmpi_shm_send(struct gmpi_shm_tx *t, const struct gmpi_shm_hdr *h, const void *payload, uint64_t n);

/* Layout check for the Go mirror of struct gmpi_shm_tx. */
uint64_t gmpi_shm_tx_layout(void);

#endif
