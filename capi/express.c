/* The express lane's entry points; see express.h. */
#include <stddef.h>
#include "../include/mpi.h"
#include "express.h"

struct gmpi_express gmpi_express;

/* send is MPI_Send's and MPI_Rsend's express path (a ready send is a
 * standard send on the wire). */
static int send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    struct gmpi_express *x = &gmpi_express;
    if (!x->on || __atomic_load_n(&x->outbox, __ATOMIC_RELAXED) != 0)
        return GMPI_EXPRESS_DECLINED;
    const struct gmpi_express_comm *c = &x->comms[(uint32_t)comm % GMPI_EXPRESS_COMMS];
    uint32_t t = (uint32_t)datatype & 0xff;
    /* Negative dest (MPI_PROC_NULL, ...), tag or count: the Go path. */
    if (c->handle != comm || (uint32_t)dest >= (uint32_t)c->size || tag < 0 || count < 0 ||
        x->dtype[t] != datatype || dest == x->rank)
        return GMPI_EXPRESS_DECLINED;
    uint64_t n = (uint64_t)count * x->dsize[t];
    const struct gmpi_express_peer *p = &x->peers[dest];
    if (p->tx == NULL || n > p->eager || (n != 0 && (buf == NULL || buf == MPI_IN_PLACE)))
        return GMPI_EXPRESS_DECLINED;
    struct gmpi_shm_hdr h = {
        .kind = x->eager_kind, .context = c->ctx, .source = c->rank, .tag = tag, .len = n,
    };
    return gmpi_shm_send(p->tx, &h, buf, n) == 0 ? MPI_SUCCESS : GMPI_EXPRESS_DECLINED;
}

int gmpi_express_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm);
}

int gmpi_express_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm);
}
