/* p2p_errors: every point-to-point call's argument errors under
 * MPI_ERRORS_RETURN, with the error class the standard (and MPICH) gives:
 * bad rank, bad tag (negative, MPI_ANY_TAG on a send, above MPI_TAG_UB
 * when that is below INT_MAX), negative count, MPI_COMM_NULL,
 * MPI_DATATYPE_NULL and an uncommitted datatype, NULL buffer with a
 * positive count; for the int and the MPI_Count (_c) forms. Then
 * truncation (return code, and status.MPI_ERROR under Waitall's
 * MPI_ERR_IN_STATUS), invalid and freed requests, Start on an active
 * persistent request, NULL request pointers, null messages, oversized
 * large counts, and MPI_Buffer_attach misuse. Messages go to this rank
 * itself, so any process count works. */
#include "mtest.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, errs;
static MPI_Datatype uncommitted;

static int err_class(int rc)
{
    int cls = -1;
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    return cls;
}

#define EXPECT(rc, cls, ...)                                                         \
    do {                                                                             \
        int got_ = err_class(rc);                                                    \
        if (got_ != (cls)) {                                                         \
            fprintf(stderr, "[%d] line %d: expected class %d, got %d: ", rank,      \
                    __LINE__, (cls), got_);                                          \
            fprintf(stderr, __VA_ARGS__);                                            \
            fprintf(stderr, "\n");                                                   \
            errs++;                                                                  \
        }                                                                            \
    } while (0)

/* Every call with the shape (buf, count, type, rank, tag, comm) becomes a
 * p2pcall; request-producing calls free a request they should not have
 * produced (so a wrongly accepted call does not leak or hang). */
typedef int (*p2pcall)(void *buf, MPI_Count count, MPI_Datatype dt, int peer, int tag,
                       MPI_Comm comm);

static int drop(int rc, MPI_Request *r)
{
    if (rc == MPI_SUCCESS && *r != MPI_REQUEST_NULL)
        MPI_Request_free(r);
    return rc;
}

static int c_send(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    return MPI_Send(b, (int)n, t, p, tag, c);
}
static int c_ssend(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    return MPI_Ssend(b, (int)n, t, p, tag, c);
}
static int c_rsend(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    return MPI_Rsend(b, (int)n, t, p, tag, c);
}
static int c_bsend(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    return MPI_Bsend(b, (int)n, t, p, tag, c);
}
static int c_isend(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Isend(b, (int)n, t, p, tag, c, &r), &r);
}
static int c_issend(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Issend(b, (int)n, t, p, tag, c, &r), &r);
}
static int c_irsend(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Irsend(b, (int)n, t, p, tag, c, &r), &r);
}
static int c_ibsend(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Ibsend(b, (int)n, t, p, tag, c, &r), &r);
}
static int c_send_init(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Send_init(b, (int)n, t, p, tag, c, &r), &r);
}
static int c_ssend_init(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Ssend_init(b, (int)n, t, p, tag, c, &r), &r);
}
static int c_rsend_init(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Rsend_init(b, (int)n, t, p, tag, c, &r), &r);
}
static int c_bsend_init(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Bsend_init(b, (int)n, t, p, tag, c, &r), &r);
}
static int c_sendrecv_s(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    int rb[4];
    return MPI_Sendrecv(b, (int)n, t, p, tag, rb, 4, MPI_INT, MPI_PROC_NULL, 0, c,
                        MPI_STATUS_IGNORE);
}
static int c_sendrecv_replace_s(void *b, MPI_Count n, MPI_Datatype t, int p, int tag,
                                MPI_Comm c)
{
    return MPI_Sendrecv_replace(b, (int)n, t, p, tag, MPI_PROC_NULL, 0, c, MPI_STATUS_IGNORE);
}
/* _c forms */
static int c_send_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    return MPI_Send_c(b, n, t, p, tag, c);
}
static int c_ssend_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    return MPI_Ssend_c(b, n, t, p, tag, c);
}
static int c_rsend_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    return MPI_Rsend_c(b, n, t, p, tag, c);
}
static int c_bsend_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    return MPI_Bsend_c(b, n, t, p, tag, c);
}
static int c_isend_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Isend_c(b, n, t, p, tag, c, &r), &r);
}
static int c_issend_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Issend_c(b, n, t, p, tag, c, &r), &r);
}
static int c_irsend_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Irsend_c(b, n, t, p, tag, c, &r), &r);
}
static int c_ibsend_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Ibsend_c(b, n, t, p, tag, c, &r), &r);
}
static int c_send_init_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Send_init_c(b, n, t, p, tag, c, &r), &r);
}
static int c_ssend_init_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Ssend_init_c(b, n, t, p, tag, c, &r), &r);
}
static int c_rsend_init_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Rsend_init_c(b, n, t, p, tag, c, &r), &r);
}
static int c_bsend_init_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Bsend_init_c(b, n, t, p, tag, c, &r), &r);
}
static int c_sendrecv_c_s(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    int rb[4];
    return MPI_Sendrecv_c(b, n, t, p, tag, rb, 4, MPI_INT, MPI_PROC_NULL, 0, c,
                          MPI_STATUS_IGNORE);
}
static int c_sendrecv_replace_c_s(void *b, MPI_Count n, MPI_Datatype t, int p, int tag,
                                  MPI_Comm c)
{
    return MPI_Sendrecv_replace_c(b, n, t, p, tag, MPI_PROC_NULL, 0, c, MPI_STATUS_IGNORE);
}

/* receives */
static int c_recv(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    return MPI_Recv(b, (int)n, t, p, tag, c, MPI_STATUS_IGNORE);
}
static int c_irecv(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_Irecv(b, (int)n, t, p, tag, c, &r);
    if (rc == MPI_SUCCESS) {
        MPI_Cancel(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    return rc;
}
static int c_recv_init(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Recv_init(b, (int)n, t, p, tag, c, &r), &r);
}
static int c_sendrecv_r(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    int sb[4] = {0};
    return MPI_Sendrecv(sb, 1, MPI_INT, MPI_PROC_NULL, 0, b, (int)n, t, p, tag, c,
                        MPI_STATUS_IGNORE);
}
static int c_recv_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    return MPI_Recv_c(b, n, t, p, tag, c, MPI_STATUS_IGNORE);
}
static int c_irecv_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_Irecv_c(b, n, t, p, tag, c, &r);
    if (rc == MPI_SUCCESS) {
        MPI_Cancel(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    return rc;
}
static int c_recv_init_c(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    MPI_Request r = MPI_REQUEST_NULL;
    return drop(MPI_Recv_init_c(b, n, t, p, tag, c, &r), &r);
}
static int c_sendrecv_c_r(void *b, MPI_Count n, MPI_Datatype t, int p, int tag, MPI_Comm c)
{
    int sb[4] = {0};
    return MPI_Sendrecv_c(sb, 1, MPI_INT, MPI_PROC_NULL, 0, b, n, t, p, tag, c,
                          MPI_STATUS_IGNORE);
}

struct entry {
    const char *name;
    p2pcall fn;
    int recv;
};

static const struct entry calls[] = {
    {"MPI_Send", c_send, 0},
    {"MPI_Ssend", c_ssend, 0},
    {"MPI_Rsend", c_rsend, 0},
    {"MPI_Bsend", c_bsend, 0},
    {"MPI_Isend", c_isend, 0},
    {"MPI_Issend", c_issend, 0},
    {"MPI_Irsend", c_irsend, 0},
    {"MPI_Ibsend", c_ibsend, 0},
    {"MPI_Send_init", c_send_init, 0},
    {"MPI_Ssend_init", c_ssend_init, 0},
    {"MPI_Rsend_init", c_rsend_init, 0},
    {"MPI_Bsend_init", c_bsend_init, 0},
    {"MPI_Sendrecv(send)", c_sendrecv_s, 0},
    {"MPI_Sendrecv_replace(send)", c_sendrecv_replace_s, 0},
    {"MPI_Send_c", c_send_c, 0},
    {"MPI_Ssend_c", c_ssend_c, 0},
    {"MPI_Rsend_c", c_rsend_c, 0},
    {"MPI_Bsend_c", c_bsend_c, 0},
    {"MPI_Isend_c", c_isend_c, 0},
    {"MPI_Issend_c", c_issend_c, 0},
    {"MPI_Irsend_c", c_irsend_c, 0},
    {"MPI_Ibsend_c", c_ibsend_c, 0},
    {"MPI_Send_init_c", c_send_init_c, 0},
    {"MPI_Ssend_init_c", c_ssend_init_c, 0},
    {"MPI_Rsend_init_c", c_rsend_init_c, 0},
    {"MPI_Bsend_init_c", c_bsend_init_c, 0},
    {"MPI_Sendrecv_c(send)", c_sendrecv_c_s, 0},
    {"MPI_Sendrecv_replace_c(send)", c_sendrecv_replace_c_s, 0},
    {"MPI_Recv", c_recv, 1},
    {"MPI_Irecv", c_irecv, 1},
    {"MPI_Recv_init", c_recv_init, 1},
    {"MPI_Sendrecv(recv)", c_sendrecv_r, 1},
    {"MPI_Recv_c", c_recv_c, 1},
    {"MPI_Irecv_c", c_irecv_c, 1},
    {"MPI_Recv_init_c", c_recv_init_c, 1},
    {"MPI_Sendrecv_c(recv)", c_sendrecv_c_r, 1},
};

static void argument_errors(void)
{
    int buf[4] = {0}, *tag_ub, flag;
    size_t i;

    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    for (i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        const struct entry *e = &calls[i];
        EXPECT(e->fn(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "%s rank=size",
               e->name);
        EXPECT(e->fn(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "%s rank=-5",
               e->name);
        if (!e->recv)
            EXPECT(e->fn(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK,
                   "%s dest=MPI_ANY_SOURCE", e->name);
        EXPECT(e->fn(buf, 1, MPI_INT, rank, -7, MPI_COMM_WORLD), MPI_ERR_TAG, "%s tag=-7",
               e->name);
        if (!e->recv)
            EXPECT(e->fn(buf, 1, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG,
                   "%s tag=MPI_ANY_TAG", e->name);
        if (flag && *tag_ub < INT_MAX)
            EXPECT(e->fn(buf, 1, MPI_INT, rank, *tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG,
                   "%s tag=TAG_UB+1", e->name);
        EXPECT(e->fn(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "%s count=-1",
               e->name);
        EXPECT(e->fn(buf, 1, MPI_INT, rank, 0, MPI_COMM_NULL), MPI_ERR_COMM, "%s COMM_NULL",
               e->name);
        EXPECT(e->fn(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
               "%s DATATYPE_NULL", e->name);
        EXPECT(e->fn(buf, 1, uncommitted, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
               "%s uncommitted type", e->name);
        EXPECT(e->fn(NULL, 2, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
               "%s NULL buffer", e->name);
        /* A count whose byte size no message can have (_c forms only). */
        if (strstr(e->name, "_c"))
            EXPECT(e->fn(buf, (MPI_Count)1 << 61, MPI_INT, rank, 0, MPI_COMM_WORLD),
                   MPI_ERR_COUNT, "%s count=2^61", e->name);
    }
    /* The receive side of Sendrecv_replace. */
    EXPECT(MPI_Sendrecv_replace(buf, 1, MPI_INT, MPI_PROC_NULL, 0, size, 0, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE),
           MPI_ERR_RANK, "Sendrecv_replace source=size");
    EXPECT(MPI_Sendrecv_replace(buf, 1, MPI_INT, MPI_PROC_NULL, 0, rank, -3, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE),
           MPI_ERR_TAG, "Sendrecv_replace recvtag=-3");
}

static void probe_errors(void)
{
    int flag, buf[2];
    MPI_Message msg;
    MPI_Request req;
    MPI_Status st;

    EXPECT(MPI_Probe(size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK, "Probe source=size");
    EXPECT(MPI_Probe(0, -4, MPI_COMM_WORLD, &st), MPI_ERR_TAG, "Probe tag=-4");
    EXPECT(MPI_Probe(0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM, "Probe COMM_NULL");
    EXPECT(MPI_Iprobe(size, 0, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK, "Iprobe source=size");
    EXPECT(MPI_Iprobe(0, -4, MPI_COMM_WORLD, &flag, &st), MPI_ERR_TAG, "Iprobe tag=-4");
    EXPECT(MPI_Iprobe(0, 0, MPI_COMM_NULL, &flag, &st), MPI_ERR_COMM, "Iprobe COMM_NULL");
    EXPECT(MPI_Mprobe(size, 0, MPI_COMM_WORLD, &msg, &st), MPI_ERR_RANK, "Mprobe source=size");
    EXPECT(MPI_Mprobe(0, -4, MPI_COMM_WORLD, &msg, &st), MPI_ERR_TAG, "Mprobe tag=-4");
    EXPECT(MPI_Mprobe(0, 0, MPI_COMM_NULL, &msg, &st), MPI_ERR_COMM, "Mprobe COMM_NULL");
    EXPECT(MPI_Improbe(-9, 0, MPI_COMM_WORLD, &flag, &msg, &st), MPI_ERR_RANK,
           "Improbe source=-9");
    EXPECT(MPI_Improbe(0, -4, MPI_COMM_WORLD, &flag, &msg, &st), MPI_ERR_TAG, "Improbe tag=-4");
    EXPECT(MPI_Improbe(0, 0, MPI_COMM_NULL, &flag, &msg, &st), MPI_ERR_COMM,
           "Improbe COMM_NULL");
    EXPECT(MPI_Improbe(0, 0, MPI_COMM_WORLD, &flag, NULL, &st), MPI_ERR_ARG,
           "Improbe message=NULL");

    msg = MPI_MESSAGE_NULL;
    EXPECT(MPI_Mrecv(buf, 1, MPI_INT, &msg, &st), MPI_ERR_REQUEST, "Mrecv MESSAGE_NULL");
    EXPECT(MPI_Imrecv(buf, 1, MPI_INT, &msg, &req), MPI_ERR_REQUEST, "Imrecv MESSAGE_NULL");
    EXPECT(MPI_Mrecv_c(buf, 1, MPI_INT, &msg, &st), MPI_ERR_REQUEST, "Mrecv_c MESSAGE_NULL");
    msg = (MPI_Message)0x6c001234;
    EXPECT(MPI_Mrecv(buf, 1, MPI_INT, &msg, &st), MPI_ERR_REQUEST, "Mrecv garbage message");
    EXPECT(MPI_Mrecv(buf, 1, MPI_INT, NULL, &st), MPI_ERR_ARG, "Mrecv message=NULL");

    /* A real message: the argument errors of Mrecv leave it bound, then
     * a good Mrecv receives it. */
    buf[0] = 42;
    MPI_Send(buf, 1, MPI_INT, rank, 3, MPI_COMM_WORLD);
    MPI_Mprobe(rank, 3, MPI_COMM_WORLD, &msg, &st);
    EXPECT(MPI_Mrecv(buf, -1, MPI_INT, &msg, &st), MPI_ERR_COUNT, "Mrecv count=-1");
    EXPECT(MPI_Mrecv(buf, 1, MPI_DATATYPE_NULL, &msg, &st), MPI_ERR_TYPE, "Mrecv DATATYPE_NULL");
    EXPECT(MPI_Mrecv(buf, 1, uncommitted, &msg, &st), MPI_ERR_TYPE, "Mrecv uncommitted");
    EXPECT(MPI_Mrecv(NULL, 1, MPI_INT, &msg, &st), MPI_ERR_BUFFER, "Mrecv NULL buffer");
    EXPECT(MPI_Imrecv(buf, 1, MPI_INT, &msg, NULL), MPI_ERR_ARG, "Imrecv request=NULL");
    buf[0] = 0;
    EXPECT(MPI_Mrecv(buf, 1, MPI_INT, &msg, &st), MPI_SUCCESS, "Mrecv after errors");
    MTEST_CHECK(errs, buf[0] == 42 && msg == MPI_MESSAGE_NULL, "Mrecv got %d, message %#x",
                buf[0], (unsigned)msg);
    /* The message is consumed: receiving its old handle again fails. */
    EXPECT(MPI_Mrecv(buf, 1, MPI_INT, &msg, &st), MPI_ERR_REQUEST, "Mrecv consumed message");
}

static void truncation(void)
{
    int src[4] = {1, 2, 3, 4}, small[2], big[4], i;
    MPI_Request reqs[2];
    MPI_Status sts[2], st;
    MPI_Message msg;

    /* Blocking receive. */
    MPI_Send(src, 4, MPI_INT, rank, 10, MPI_COMM_WORLD);
    EXPECT(MPI_Recv(small, 2, MPI_INT, rank, 10, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE,
           "Recv truncation");
    MTEST_CHECK(errs, small[0] == 1 && small[1] == 2, "truncated Recv got %d %d", small[0],
                small[1]);

    /* Wait on a truncated Irecv. */
    MPI_Irecv(small, 2, MPI_INT, rank, 11, MPI_COMM_WORLD, &reqs[0]);
    MPI_Send(src, 4, MPI_INT, rank, 11, MPI_COMM_WORLD);
    EXPECT(MPI_Wait(&reqs[0], &st), MPI_ERR_TRUNCATE, "Wait truncation");

    /* Waitall: one good, one truncated receive. */
    MPI_Irecv(big, 4, MPI_INT, rank, 12, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(small, 2, MPI_INT, rank, 13, MPI_COMM_WORLD, &reqs[1]);
    MPI_Send(src, 4, MPI_INT, rank, 12, MPI_COMM_WORLD);
    MPI_Send(src, 4, MPI_INT, rank, 13, MPI_COMM_WORLD);
    for (i = 0; i < 2; i++)
        sts[i].MPI_ERROR = -1;
    EXPECT(MPI_Waitall(2, reqs, sts), MPI_ERR_IN_STATUS, "Waitall truncation");
    EXPECT(sts[0].MPI_ERROR, MPI_SUCCESS, "Waitall status[0].MPI_ERROR");
    EXPECT(sts[1].MPI_ERROR, MPI_ERR_TRUNCATE, "Waitall status[1].MPI_ERROR");
    MTEST_CHECK(errs, big[3] == 4, "Waitall good receive got %d", big[3]);

    /* Matched receive. */
    MPI_Send(src, 4, MPI_INT, rank, 14, MPI_COMM_WORLD);
    MPI_Mprobe(rank, 14, MPI_COMM_WORLD, &msg, &st);
    EXPECT(MPI_Mrecv(small, 2, MPI_INT, &msg, &st), MPI_ERR_TRUNCATE, "Mrecv truncation");

    /* Sendrecv. */
    EXPECT(MPI_Sendrecv(src, 4, MPI_INT, rank, 15, small, 2, MPI_INT, rank, 15, MPI_COMM_WORLD,
                        &st),
           MPI_ERR_TRUNCATE, "Sendrecv truncation");
}

static void request_errors(void)
{
    int buf[2] = {0}, flag;
    MPI_Request req, stale;
    MPI_Status st;

    req = (MPI_Request)0x2c00abcd;
    EXPECT(MPI_Wait(&req, &st), MPI_ERR_REQUEST, "Wait garbage request");
    req = (MPI_Request)0xac0fffff;
    EXPECT(MPI_Test(&req, &flag, &st), MPI_ERR_REQUEST, "Test unknown request");
    EXPECT(MPI_Cancel(&req), MPI_ERR_REQUEST, "Cancel unknown request");
    req = MPI_REQUEST_NULL;
    EXPECT(MPI_Cancel(&req), MPI_ERR_REQUEST, "Cancel REQUEST_NULL");
    EXPECT(MPI_Wait(NULL, &st), MPI_ERR_ARG, "Wait request=NULL");
    EXPECT(MPI_Test(NULL, &flag, &st), MPI_ERR_ARG, "Test request=NULL");
    EXPECT(MPI_Start(NULL), MPI_ERR_ARG, "Start request=NULL");
    EXPECT(MPI_Cancel(NULL), MPI_ERR_ARG, "Cancel request=NULL");
    EXPECT(MPI_Request_free(NULL), MPI_ERR_ARG, "Request_free request=NULL");
    EXPECT(MPI_Isend(buf, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG,
           "Isend request=NULL");
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG,
           "Irecv request=NULL");
    EXPECT(MPI_Send_init(buf, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG,
           "Send_init request=NULL");

    /* A freed request's handle. */
    MPI_Irecv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Isend(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    stale = req;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(MPI_Wait(&stale, &st), MPI_ERR_REQUEST, "Wait completed-and-freed request");
    EXPECT(MPI_Request_free(&stale), MPI_ERR_REQUEST, "Request_free freed request");

    /* Start on an active persistent request, and on a non-persistent one. */
    MPI_Recv_init(buf, 1, MPI_INT, rank, 20, MPI_COMM_WORLD, &req);
    EXPECT(MPI_Start(&req), MPI_SUCCESS, "Start");
    EXPECT(MPI_Start(&req), MPI_ERR_REQUEST, "Start on active request");
    EXPECT(MPI_Startall(1, &req), MPI_ERR_REQUEST, "Startall on active request");
    MPI_Send(buf, 1, MPI_INT, rank, 20, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT(MPI_Start(&req), MPI_SUCCESS, "Start after completion");
    MPI_Send(buf, 1, MPI_INT, rank, 20, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
    MPI_Irecv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    EXPECT(MPI_Start(&req), MPI_ERR_REQUEST, "Start on Irecv request");
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    /* Get_count with a bad datatype or status. */
    {
        int n;
        MPI_Count nc;
        MPI_Send(buf, 2, MPI_INT, rank, 21, MPI_COMM_WORLD);
        MPI_Recv(buf, 2, MPI_INT, rank, 21, MPI_COMM_WORLD, &st);
        EXPECT(MPI_Get_count(&st, MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE, "Get_count type null");
        EXPECT(MPI_Get_count_c(&st, MPI_DATATYPE_NULL, &nc), MPI_ERR_TYPE,
               "Get_count_c type null");
        EXPECT(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &n), MPI_ERR_ARG,
               "Get_count STATUS_IGNORE");
        EXPECT(MPI_Get_count_c(&st, MPI_INT, &nc), MPI_SUCCESS, "Get_count_c");
        MTEST_CHECK(errs, nc == 2, "Get_count_c = %ld", (long)nc);
        EXPECT(MPI_Get_count_c(&st, MPI_DOUBLE, &nc), MPI_SUCCESS, "Get_count_c double");
        MTEST_CHECK(errs, nc == 1, "Get_count_c double = %ld", (long)nc);
        EXPECT(MPI_Get_count(&st, MPI_LONG_DOUBLE, &n), MPI_SUCCESS, "Get_count long double");
        MTEST_CHECK(errs, n == MPI_UNDEFINED, "Get_count of 8 bytes as long double = %d", n);
    }
}

static void buffer_errors(void)
{
    static char space[1024], other[64];
    void *p;
    int n;
    MPI_Count nc;

    EXPECT(MPI_Buffer_attach(space, -1), MPI_ERR_ARG, "Buffer_attach size -1");
    EXPECT(MPI_Buffer_attach(NULL, 100), MPI_ERR_BUFFER, "Buffer_attach NULL");
    EXPECT(MPI_Buffer_attach_c(space, -5), MPI_ERR_ARG, "Buffer_attach_c size -5");
    EXPECT(MPI_Buffer_attach(space, sizeof space), MPI_SUCCESS, "Buffer_attach");
    EXPECT(MPI_Buffer_attach(other, sizeof other), MPI_ERR_BUFFER, "second Buffer_attach");
    EXPECT(MPI_Buffer_attach_c(other, sizeof other), MPI_ERR_BUFFER, "second Buffer_attach_c");
    EXPECT(MPI_Buffer_detach(NULL, &n), MPI_ERR_ARG, "Buffer_detach NULL");
    EXPECT(MPI_Buffer_detach(&p, &n), MPI_SUCCESS, "Buffer_detach");
    MTEST_CHECK(errs, p == space && n == (int)sizeof space, "detach gave %p %d", p, n);
    /* Bsend without a buffer: MPI_ERR_BUFFER. */
    EXPECT(MPI_Bsend(&n, 1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "Bsend with no buffer");
    /* Too small a buffer. */
    MPI_Buffer_attach_c(other, sizeof other);
    EXPECT(MPI_Bsend(space, 100, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "Bsend larger than the buffer");
    EXPECT(MPI_Buffer_detach_c(&p, &nc), MPI_SUCCESS, "Buffer_detach_c");
    MTEST_CHECK(errs, p == other && nc == (MPI_Count)sizeof other, "detach_c gave %p %ld", p,
                (long)nc);
    /* Nothing attached: detach returns NULL and 0. */
    EXPECT(MPI_Buffer_detach(&p, &n), MPI_SUCCESS, "Buffer_detach of nothing");
    MTEST_CHECK(errs, p == NULL && n == 0, "empty detach gave %p %d", p, n);
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);

    argument_errors();
    probe_errors();
    truncation();
    request_errors();
    buffer_errors();

    MPI_Type_free(&uncommitted);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
