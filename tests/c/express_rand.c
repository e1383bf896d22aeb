/*
 * express_rand: randomized point-to-point traffic whose outcome is fixed by
 * a seed, so that runs with the express lane on and off (GMPI_EXPRESS=0)
 * can be compared message by message (tests/scripts/express_rand.sh).
 *
 * Every rank draws the same schedule from the seed (EXPRESS_RAND_SEED, or
 * the time when unset; rank 0 prints it): rounds, each on one of several
 * communicators (MPI_COMM_WORLD or a duplicate of it, duplicates, a
 * reversed and a rotated split, halves), of one of these patterns:
 *   - stream: one sender, one receiver; messages of mixed sizes (around the
 *     eager limit, GMPI_EAGER_LIMIT, which is also the lane's) and
 *     datatypes, sent with Send/Isend/Ssend/Issend and received in order
 *     (specific or MPI_ANY_TAG) or, after nonblocking sends, in a shuffled
 *     order by tag (messages wait in the ring or unexpected, some until
 *     a barrier has passed); received with Recv,
 *     Irecv+Wait, Irecv+Test, Probe+Recv, Iprobe+Recv, Mprobe+Mrecv,
 *     Improbe+Imrecv; some receives too small (MPI_ERR_TRUNCATE);
 *   - fan-in: every member sends to one, which receives with
 *     MPI_ANY_SOURCE/MPI_ANY_TAG (the round's records are sorted: which
 *     message a wildcard takes first is not fixed, the multiset is);
 *   - shift: MPI_Sendrecv (or _replace) around a ring, source specific or
 *     MPI_ANY_SOURCE (one sender per receiver);
 *   - pingpong: two members take turns, blocking Send and Recv mostly;
 *   - cancel: receives cancelled before any message can match them, a
 *     receive cancelled after its message arrived, Iprobe of nothing;
 *   - window: windows of Isend/Issend and Irecv (specific tags and
 *     MPI_ANY_TAG) in one or both directions, completed with Waitall,
 *     Testall, Wait/Test one by one in a shuffled order, Waitany,
 *     Waitsome, Testsome or Request_get_status, some sends freed.
 * Wildcard rounds end with a barrier so that no later message can match.
 * Every receive is checked (payload from its sender's key, count, status)
 * and recorded as a line (round, communicator, call, source, tag, count,
 * checksum, every status field) in program order; with
 * EXPRESS_RAND_LOG=PREFIX each rank writes its lines to PREFIX.RANK.
 * EXPRESS_RAND_THREADS=T (T > 0) runs T threads per rank under
 * MPI_THREAD_MULTIPLE, each with its own communicators and schedule (its
 * lines follow thread 0's in thread order). EXPRESS_RAND_ROUNDS sets the
 * number of rounds per thread.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpi.h"
#include "mtest.h"

#define NCOMM 7
#define MAXMSG 16

static int me, np;
static uint64_t seed;
static long eager = 65536;
static MPI_Datatype int3;

struct ctx {
    int tid;
    uint64_t rng;
    MPI_Comm comm[NCOMM];
    int ncomm;
    char *log;
    size_t len, cap;
    int errs;
    int round;
    int nrecv;
};

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rnd(struct ctx *c) { return c->rng = mix(c->rng); }
static int rndn(struct ctx *c, int n) { return (int)(rnd(c) % (uint64_t)n); }

static void logf_(struct ctx *c, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (c->len + n + 2 > c->cap) {
        c->cap = (c->cap + n + 2) * 2;
        c->log = realloc(c->log, c->cap);
    }
    memcpy(c->log + c->len, line, n);
    c->len += n;
    c->log[c->len++] = '\n';
    c->log[c->len] = 0;
}

/* The bytes of message idx of a round from comm rank src. */
static void fill(unsigned char *p, size_t n, struct ctx *c, int src, int idx)
{
    uint64_t x = mix(seed ^ ((uint64_t)c->tid << 56) ^ ((uint64_t)c->round << 24) ^ ((uint64_t)src << 12) ^ (uint64_t)idx);
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        p[i] = (unsigned char)(x >> 56);
    }
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

/* One message: its datatype and count. */
struct msg {
    MPI_Datatype type;
    int tsize, count, tag, idx;
    int how; /* send kind */
};

static void pick(struct ctx *c, struct msg *m)
{
    static const int sizes[] = {0, 1, 2, 4, 8, 12, 24, 100, 1000, -1, -2, -3, -4, -5, -6, -7, -8, -9};
    int s = sizes[rndn(c, sizeof sizes / sizeof sizes[0])];
    long bytes;
    switch (s) {
    case -1: bytes = eager - 8; break;
    case -2: bytes = eager - 1; break;
    case -3: bytes = eager; break;
    case -4: bytes = eager + 1; break;
    case -5: bytes = eager + 12; break;
    case -6: bytes = 2 * eager + 3; break;
    case -7: case -8: bytes = rndn(c, 257); break;
    case -9: bytes = rndn(c, (int)eager + 1); break;
    default: bytes = s;
    }
    if (bytes < 0)
        bytes = 0;
    switch (rndn(c, 5)) {
    case 0: case 1: m->type = MPI_BYTE; m->tsize = 1; break;
    case 2: m->type = MPI_INT; m->tsize = 4; break;
    case 3: m->type = MPI_DOUBLE; m->tsize = 8; break;
    default: m->type = int3; m->tsize = 12; break;
    }
    m->count = (int)(bytes / m->tsize);
    m->how = rndn(c, 4);
}

static const char *tname(MPI_Datatype t)
{
    return t == MPI_BYTE ? "byte" : t == MPI_INT ? "int" : t == MPI_DOUBLE ? "double" : "int3";
}

static int errclass(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

static void sentinel(MPI_Status *st)
{
    memset(st, 0, sizeof *st);
    st->MPI_SOURCE = -77;
    st->MPI_TAG = -77;
    st->MPI_ERROR = -77;
}

/* The status fields as a record's tail. */
static void stfmt(char *out, size_t n, MPI_Status *st, MPI_Datatype t)
{
    int cnt = -1, canc = -1;
    MPI_Get_count(st, t, &cnt);
    MPI_Test_cancelled(st, &canc);
    snprintf(out, n, "st=%d,%d,%d,%d,%d", st->MPI_SOURCE, st->MPI_TAG, st->MPI_ERROR, cnt, canc);
}

static const char *rkind[] = {"recv", "irecv-wait", "irecv-test", "probe-recv", "iprobe-recv", "mprobe-mrecv", "improbe-imrecv"};
#define NRKIND 7

/* recv1 receives into buf (cap elements of t) with the given call kind; rc
 * is the call's error code, st its status. */
static int recv1(int kind, void *buf, int cap, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    MPI_Request r;
    MPI_Message m;
    MPI_Status pst;
    int rc, flag = 0;
    sentinel(st);
    switch (kind) {
    case 0:
        return MPI_Recv(buf, cap, t, src, tag, comm, st);
    case 1:
        rc = MPI_Irecv(buf, cap, t, src, tag, comm, &r);
        return rc ? rc : MPI_Wait(&r, st);
    case 2:
        rc = MPI_Irecv(buf, cap, t, src, tag, comm, &r);
        while (!rc && !flag)
            rc = MPI_Test(&r, &flag, st);
        return rc;
    case 3:
        MPI_Probe(src, tag, comm, &pst);
        return MPI_Recv(buf, cap, t, pst.MPI_SOURCE, pst.MPI_TAG, comm, st);
    case 4:
        while (!flag)
            MPI_Iprobe(src, tag, comm, &flag, &pst);
        return MPI_Recv(buf, cap, t, pst.MPI_SOURCE, pst.MPI_TAG, comm, st);
    case 5:
        MPI_Mprobe(src, tag, comm, &m, &pst);
        return MPI_Mrecv(buf, cap, t, &m, st);
    default:
        while (!flag)
            MPI_Improbe(src, tag, comm, &flag, &m, &pst);
        rc = MPI_Imrecv(buf, cap, t, &m, &r);
        return rc ? rc : MPI_Wait(&r, st);
    }
}

/* check verifies and records one receive of message m from comm rank src
 * (cap: the receive's count). With out != NULL the line goes there
 * instead of the log. */
static void check(struct ctx *c, int ci, const char *call, int rc, const void *buf, int cap, const struct msg *m, int src,
                  MPI_Status *st, char *out, size_t outn)
{
    char sts[128], line[400];
    long n = (long)m->count * m->tsize, got = (long)cap * m->tsize;
    int cls = errclass(rc);
    uint64_t sum = fnv(buf, (size_t)(got < n ? got : n));
    stfmt(sts, sizeof sts, st, m->type);
    snprintf(line, sizeof line, "%d c%d %s %s src=%d tag=%d n=%d/%d sum=%016llx rc=%d %s", c->round, ci, call, tname(m->type), src,
             m->tag, m->count, cap, (unsigned long long)sum, cls, sts);
    c->nrecv++;
    if (out)
        snprintf(out, outn, "%s", line);
    else
        logf_(c, "%s", line);
    if (cap < m->count) {
        MTEST_CHECK(c->errs, cls == MPI_ERR_TRUNCATE, "[%s] truncated receive: class %d", line, cls);
        return;
    }
    unsigned char *want = malloc(n + 1);
    fill(want, (size_t)n, c, src, m->idx);
    MTEST_CHECK(c->errs, rc == MPI_SUCCESS, "[%s] rc %d", line, rc);
    MTEST_CHECK(c->errs, sum == fnv(want, (size_t)n), "[%s] payload differs", line);
    MTEST_CHECK(c->errs, st->MPI_SOURCE == src && st->MPI_TAG == m->tag, "[%s] status source/tag", line);
    int cnt = -1;
    MPI_Get_count(st, m->type, &cnt);
    MTEST_CHECK(c->errs, cnt == m->count, "[%s] count %d", line, cnt);
    free(want);
}

static int tagof(struct ctx *c, int t) { return (c->round % 1000) * 32 + t; }

static void *sendbuf(struct ctx *c, const struct msg *m, int src)
{
    size_t n = (size_t)m->count * m->tsize;
    unsigned char *p = malloc(n + 1);
    fill(p, n, c, src, m->idx);
    return p;
}

/* A blocking send of m (its kind) to dest. */
static void send1(struct ctx *c, const struct msg *m, int me_c, int dest, MPI_Comm comm)
{
    void *p = sendbuf(c, m, me_c);
    MPI_Request r;
    int rc;
    switch (m->how) {
    case 0: rc = MPI_Send(p, m->count, m->type, dest, m->tag, comm); break;
    case 1: rc = MPI_Isend(p, m->count, m->type, dest, m->tag, comm, &r); if (!rc) rc = MPI_Wait(&r, MPI_STATUS_IGNORE); break;
    case 2: rc = MPI_Ssend(p, m->count, m->type, dest, m->tag, comm); break;
    default: rc = MPI_Issend(p, m->count, m->type, dest, m->tag, comm, &r); if (!rc) rc = MPI_Wait(&r, MPI_STATUS_IGNORE); break;
    }
    MTEST_CHECK(c->errs, rc == MPI_SUCCESS, "round %d: send to %d: rc %d", c->round, dest, rc);
    free(p);
}

/* stream: comm rank a sends k messages to comm rank b. */
static void stream(struct ctx *c, int ci, MPI_Comm comm, int crank, int csize)
{
    uint64_t ra = rnd(c), rb = rnd(c);
    int a = (int)(ra % csize), b = (int)((a + 1 + rb % (csize - 1)) % csize);
    int k = 1 + rndn(c, MAXMSG);
    int shuffled = rndn(c, 3) == 0, late = rndn(c, 2);
    struct msg m[MAXMSG];
    int order[MAXMSG], anytag[MAXMSG], kind[MAXMSG], trunc[MAXMSG];
    for (int i = 0; i < k; i++) {
        pick(c, &m[i]);
        m[i].idx = i;
        m[i].tag = tagof(c, rndn(c, 4));
        order[i] = i;
        anytag[i] = !shuffled && rndn(c, 3) == 0;
        kind[i] = rndn(c, 2) ? 0 : rndn(c, NRKIND);
        trunc[i] = rndn(c, 12) == 0;
    }
    if (shuffled)
        for (int i = k - 1; i > 0; i--) {
            int j = rndn(c, i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    if (crank == a) {
        if (shuffled) {
            MPI_Request r[MAXMSG];
            void *p[MAXMSG];
            for (int i = 0; i < k; i++) {
                p[i] = sendbuf(c, &m[i], a);
                if (m[i].how & 1)
                    MPI_Issend(p[i], m[i].count, m[i].type, b, m[i].tag, comm, &r[i]);
                else
                    MPI_Isend(p[i], m[i].count, m[i].type, b, m[i].tag, comm, &r[i]);
            }
            if (late)
                MPI_Barrier(comm);
            MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
            for (int i = 0; i < k; i++)
                free(p[i]);
        } else {
            for (int i = 0; i < k; i++)
                send1(c, &m[i], a, b, comm);
        }
    } else if (shuffled && late && crank != b) {
        MPI_Barrier(comm);
    }
    if (crank == b) {
        /* Which message each receive takes: the first one not taken yet
         * with its tag (non-overtaking). */
        int taken[MAXMSG] = {0};
        if (shuffled && late) /* the messages wait in the ring (or are unexpected) */
            MPI_Barrier(comm);
        for (int j = 0; j < k; j++) {
            int want = order[j], tag = anytag[j] ? MPI_ANY_TAG : m[want].tag, got = -1;
            for (int i = 0; i < k && got < 0; i++)
                if (!taken[i] && (tag == MPI_ANY_TAG || m[i].tag == tag))
                    got = i;
            taken[got] = 1;
            struct msg *g = &m[got];
            int tr = trunc[j] && g->count > 0, cap = tr ? g->count - 1 : g->count, kd = kind[j];
            if (tr && kd > 1)
                kd = 0; /* a probe first would tell the size */
            void *buf = malloc((size_t)g->count * g->tsize + 1);
            MPI_Status st;
            int rc = recv1(kd, buf, cap, g->type, a, tag, comm, &st);
            check(c, ci, rkind[kd], rc, buf, cap, g, a, &st, NULL, 0);
            free(buf);
        }
    }
}

static int cmpstr(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* fanin: every other member sends k messages to d, which takes them with
 * MPI_ANY_SOURCE and MPI_ANY_TAG: it probes (Probe, Iprobe, Mprobe,
 * Improbe) to learn the datatype, then receives the probed message, or,
 * in rounds of bytes only, receives with wildcards again. */
static void fanin(struct ctx *c, int ci, MPI_Comm comm, int crank, int csize)
{
    int d = (int)(rnd(c) % csize), k = 1 + rndn(c, 4), allbytes = rndn(c, 2);
    struct msg m[64][4];
    int kind[64 * 4];
    for (int s = 0; s < csize && s < 64; s++)
        for (int i = 0; i < k; i++) {
            pick(c, &m[s][i]);
            if (allbytes) {
                m[s][i].count *= m[s][i].tsize;
                m[s][i].tsize = 1;
                m[s][i].type = MPI_BYTE;
            }
            m[s][i].idx = i;
            m[s][i].tag = tagof(c, i);
        }
    for (int j = 0; j < (csize - 1) * k; j++)
        kind[j] = rndn(c, NRKIND);
    if (crank != d) {
        for (int i = 0; i < k; i++)
            send1(c, &m[crank][i], crank, d, comm);
        return;
    }
    int n = (csize - 1) * k, next[64] = {0};
    /* The largest message any source sends: 2 * eager + 3 bytes, or the
     * fixed size 1000 when the eager limit is small. */
    long maxb = (2 * eager > 1000 ? 2 * eager : 1000) + 16;
    char **lines = calloc(n, sizeof(char *));
    void *buf = malloc(maxb);
    for (int j = 0; j < n; j++) {
        MPI_Status st, pst;
        MPI_Message mh;
        int flag = 0, rc, kd = kind[j];
        if (kd == 5)
            MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &mh, &pst);
        else if (kd == 6)
            while (!flag)
                MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &mh, &pst);
        else if (kd == 4)
            while (!flag)
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &pst);
        else
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &pst);
        int src = pst.MPI_SOURCE, i = pst.MPI_TAG - tagof(c, 0);
        if (src < 0 || src >= csize || src == d || i < 0 || i >= k) {
            MTEST_CHECK(c->errs, 0, "round %d: probe gave source %d tag %d", c->round, src, pst.MPI_TAG);
            n = j;
            break;
        }
        struct msg *g = &m[src][i];
        int pcnt = -1;
        MPI_Get_count(&pst, g->type, &pcnt);
        MTEST_CHECK(c->errs, pcnt == g->count, "round %d: probe count %d, want %d", c->round, pcnt, g->count);
        const char *call = "probe-recv";
        sentinel(&st);
        if (kd >= 5) {
            MPI_Request r;
            call = kd == 5 ? "mprobe-mrecv" : "improbe-imrecv";
            if (kd == 5)
                rc = MPI_Mrecv(buf, g->count, g->type, &mh, &st);
            else if (!(rc = MPI_Imrecv(buf, g->count, g->type, &mh, &r)))
                rc = MPI_Wait(&r, &st);
        } else if (allbytes && kd % 2) {
            /* Wildcards again: the message probed is the first
             * unexpected one, so the receive takes it too. */
            call = "probe-recv-any";
            rc = MPI_Recv(buf, (int)maxb, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
            MTEST_CHECK(c->errs, st.MPI_SOURCE == src && st.MPI_TAG == pst.MPI_TAG,
                        "round %d: probed %d/%d, received %d/%d", c->round, src, pst.MPI_TAG, st.MPI_SOURCE, st.MPI_TAG);
        } else {
            rc = MPI_Recv(buf, g->count, g->type, src, pst.MPI_TAG, comm, &st);
        }
        MTEST_CHECK(c->errs, i == next[src], "round %d: from %d message %d before %d (overtaken)", c->round, src, i, next[src]);
        next[src] = i + 1;
        /* Which call takes which message varies from run to run: the
         * record names neither the call nor the receive's size. */
        char line[400];
        (void)call;
        check(c, ci, "fanin", rc, buf, g->count, g, src, &st, line, sizeof line);
        lines[j] = malloc(strlen(line) + 64);
        sprintf(lines[j], "%s probe=%d,%d,%d", line, pst.MPI_SOURCE, pst.MPI_TAG, pcnt);
    }
    free(buf);
    qsort(lines, n, sizeof(char *), cmpstr);
    for (int j = 0; j < n; j++) {
        logf_(c, "%s", lines[j]);
        free(lines[j]);
    }
    free(lines);
}

/* pingpong: comm ranks a and b take turns, k messages each way with
 * blocking calls, mostly Send and Recv (the express lane's calls) with a
 * specific source; tags specific or MPI_ANY_TAG, with other kinds mixed
 * in. */
static void pingpong(struct ctx *c, int ci, MPI_Comm comm, int crank, int csize)
{
    uint64_t ra = rnd(c), rb = rnd(c);
    int a = (int)(ra % csize), b = (int)((a + 1 + rb % (csize - 1)) % csize);
    int k = 1 + rndn(c, 2 * MAXMSG), small = rndn(c, 2);
    for (int i = 0; i < k; i++) {
        struct msg m;
        pick(c, &m);
        if (small && m.count * m.tsize > 64)
            m.count = rndn(c, 64 / m.tsize + 1);
        m.idx = i;
        m.tag = tagof(c, rndn(c, 3));
        if (rndn(c, 4))
            m.how = 0;
        int kind = rndn(c, 3) ? 0 : rndn(c, NRKIND), anytag = rndn(c, 3) == 0;
        int from = i % 2 ? b : a, to = i % 2 ? a : b;
        if (crank == from) {
            send1(c, &m, from, to, comm);
        } else if (crank == to) {
            void *buf = malloc((size_t)m.count * m.tsize + 1);
            MPI_Status st;
            int rc = recv1(kind, buf, m.count, m.type, from, anytag ? MPI_ANY_TAG : m.tag, comm, &st);
            check(c, ci, rkind[kind], rc, buf, m.count, &m, from, &st, NULL, 0);
            free(buf);
        }
    }
}

/* shift: every member sends one message to crank+s and receives one from
 * crank-s with MPI_Sendrecv or MPI_Sendrecv_replace. */
static void shift(struct ctx *c, int ci, MPI_Comm comm, int crank, int csize)
{
    int s = 1 + (int)(rnd(c) % (csize - 1)), anysrc = rndn(c, 2), anytag = rndn(c, 2), repl = rndn(c, 4) == 0;
    struct msg m[64];
    for (int i = 0; i < csize && i < 64; i++) {
        pick(c, &m[i]);
        m[i].idx = 0;
        m[i].tag = tagof(c, i % 8);
    }
    if (repl) /* one datatype and count for all */
        for (int i = 1; i < csize; i++) {
            m[i].type = m[0].type;
            m[i].tsize = m[0].tsize;
            m[i].count = m[0].count;
        }
    int to = (crank + s) % csize, from = (crank - s + csize) % csize;
    struct msg *o = &m[crank], *in = &m[from];
    void *p = sendbuf(c, o, crank);
    void *q = malloc((size_t)in->count * in->tsize + 1);
    MPI_Status st;
    sentinel(&st);
    int rc;
    if (repl) {
        rc = MPI_Sendrecv_replace(p, o->count, o->type, to, o->tag, anysrc ? MPI_ANY_SOURCE : from,
                                  anytag ? MPI_ANY_TAG : in->tag, comm, &st);
        memcpy(q, p, (size_t)in->count * in->tsize);
    } else {
        rc = MPI_Sendrecv(p, o->count, o->type, to, o->tag, q, in->count, in->type, anysrc ? MPI_ANY_SOURCE : from,
                          anytag ? MPI_ANY_TAG : in->tag, comm, &st);
    }
    check(c, ci, repl ? "sendrecv-replace" : "sendrecv", rc, q, in->count, in, from, &st, NULL, 0);
    free(p);
    free(q);
}

/* cancel: b cancels receives nothing can match yet, then a sends. */
static void cancel(struct ctx *c, int ci, MPI_Comm comm, int crank, int csize)
{
    uint64_t ra = rnd(c), rb = rnd(c);
    int a = (int)(ra % csize), b = (int)((a + 1 + rb % (csize - 1)) % csize);
    int anysrc = rndn(c, 2), late = rndn(c, 2);
    struct msg m[2];
    for (int i = 0; i < 2; i++) {
        pick(c, &m[i]);
        m[i].idx = i;
        m[i].tag = tagof(c, i + 1);
    }
    if (crank == b) {
        MPI_Request r;
        MPI_Status st;
        int flag = -1, canc = -1;
        void *buf = malloc((size_t)m[0].count * m[0].tsize + 1);
        sentinel(&st);
        MPI_Irecv(buf, m[0].count, m[0].type, anysrc ? MPI_ANY_SOURCE : a, m[0].tag, comm, &r);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &canc);
        MTEST_CHECK(c->errs, canc == 1, "round %d: unmatched receive not cancelled", c->round);
        logf_(c, "%d c%d cancel-unmatched cancelled=%d", c->round, ci, canc);
        MPI_Iprobe(a, m[0].tag, comm, &flag, MPI_STATUS_IGNORE);
        MTEST_CHECK(c->errs, flag == 0, "round %d: Iprobe found a message before any was sent", c->round);
        logf_(c, "%d c%d iprobe-nothing flag=%d", c->round, ci, flag);
        MPI_Send(NULL, 0, MPI_INT, a, tagof(c, 9), comm);
        if (late) {
            /* The second message is there (probed): a receive posted now
             * takes it, and cancelling it then must not lose it. */
            MPI_Status pst;
            void *b2 = malloc((size_t)m[1].count * m[1].tsize + 1);
            MPI_Probe(a, m[1].tag, comm, &pst);
            sentinel(&st);
            MPI_Irecv(b2, m[1].count, m[1].type, a, m[1].tag, comm, &r);
            MPI_Cancel(&r);
            MPI_Wait(&r, &st);
            MPI_Test_cancelled(&st, &canc);
            logf_(c, "%d c%d cancel-arrived cancelled=%d", c->round, ci, canc);
            if (canc) {
                int rc = recv1(0, b2, m[1].count, m[1].type, a, m[1].tag, comm, &st);
                check(c, ci, "recv-after-cancel", rc, b2, m[1].count, &m[1], a, &st, NULL, 0);
            } else {
                check(c, ci, "irecv-cancel-late", MPI_SUCCESS, b2, m[1].count, &m[1], a, &st, NULL, 0);
            }
            free(b2);
        }
        int rc = recv1(rndn(c, NRKIND), buf, m[0].count, m[0].type, a, m[0].tag, comm, &st);
        check(c, ci, "recv-after-cancel", rc, buf, m[0].count, &m[0], a, &st, NULL, 0);
        free(buf);
        if (!late) {
            void *b2 = malloc((size_t)m[1].count * m[1].tsize + 1);
            rc = recv1(rndn(c, NRKIND), b2, m[1].count, m[1].type, a, m[1].tag, comm, &st);
            check(c, ci, "recv", rc, b2, m[1].count, &m[1], a, &st, NULL, 0);
            free(b2);
        }
    } else {
        /* Keep the shared stream in step with b's draws. */
        if (crank == a) {
            MPI_Status st;
            sentinel(&st);
            int rc = MPI_Recv(NULL, 0, MPI_INT, b, tagof(c, 9), comm, &st);
            MTEST_CHECK(c->errs, rc == MPI_SUCCESS && st.MPI_SOURCE == b, "round %d: go message", c->round);
            logf_(c, "%d c%d go src=%d tag=%d rc=%d", c->round, ci, st.MPI_SOURCE, st.MPI_TAG, rc);
            MPI_Request r[2];
            void *p0 = sendbuf(c, &m[0], a), *p1 = sendbuf(c, &m[1], a);
            MPI_Isend(p0, m[0].count, m[0].type, b, m[0].tag, comm, &r[0]);
            MPI_Isend(p1, m[1].count, m[1].type, b, m[1].tag, comm, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            free(p0);
            free(p1);
        }
        rnd(c);
        if (!late)
            rnd(c);
    }
}

/* window: comm rank a sends a window of k nonblocking messages to b (and,
 * in some rounds, b sends one to a at the same time): the receives are
 * all posted first (specific tags or MPI_ANY_TAG, in the order drawn),
 * the sends after them, and everything completes with one of the
 * completion calls (Waitall, Testall, Wait or Test one by one in a
 * shuffled order, Waitany, Waitsome, Testsome, Request_get_status),
 * sends possibly freed with MPI_Request_free. Which message a receive
 * gets follows from the order rule: the first one not taken yet whose
 * tag it accepts. */
#define MAXWIN 48
static void window(struct ctx *c, int ci, MPI_Comm comm, int crank, int csize)
{
    uint64_t ra = rnd(c), rb = rnd(c);
    int a = (int)(ra % csize), b = (int)((a + 1 + rb % (csize - 1)) % csize);
    int both = rndn(c, 2), how = rndn(c, 8), freed = rndn(c, 5) == 0, small = rndn(c, 2);
    int k[2];
    struct msg m[2][MAXWIN];
    int anytag[2][MAXWIN], ssend[2][MAXWIN];
    for (int d = 0; d < 2; d++) {
        k[d] = 1 + rndn(c, MAXWIN);
        for (int i = 0; i < k[d]; i++) {
            pick(c, &m[d][i]);
            if (small && m[d][i].count * m[d][i].tsize > 256) /* mostly the lane's sizes */
                m[d][i].count = rndn(c, 257) / m[d][i].tsize;
            m[d][i].idx = 100 * d + i;
            m[d][i].tag = tagof(c, 10 + rndn(c, 3));
            anytag[d][i] = rndn(c, 3) == 0;
            ssend[d][i] = rndn(c, 8) == 0;
        }
    }
    /* Direction 0: a -> b; direction 1: b -> a (when both). */
    int sdir = crank == a ? 0 : 1, rdir = 1 - sdir;
    int sends = crank == a || (crank == b && both), recvs = crank == b || (crank == a && both);
    if (crank != a && crank != b) {
        if (freed)
            MPI_Barrier(comm);
        return;
    }
    int peer = crank == a ? b : a, nr = recvs ? k[rdir] : 0, ns = sends ? k[sdir] : 0;
    MPI_Request req[2 * MAXWIN];
    MPI_Status st[2 * MAXWIN];
    void *rbuf[MAXWIN], *sbuf[MAXWIN];
    int rtag[MAXWIN];
    for (int j = 0; j < nr; j++) {
        struct msg *g = &m[rdir][j];
        /* Room for the largest message of the window. */
        long cap = 0;
        for (int i = 0; i < nr; i++)
            if ((long)m[rdir][i].count * m[rdir][i].tsize > cap)
                cap = (long)m[rdir][i].count * m[rdir][i].tsize;
        rbuf[j] = malloc((size_t)cap + 1);
        rtag[j] = anytag[rdir][j] ? MPI_ANY_TAG : g->tag;
        sentinel(&st[j]);
        int rc = MPI_Irecv(rbuf[j], (int)cap, MPI_BYTE, peer, rtag[j], comm, &req[j]);
        MTEST_CHECK(c->errs, rc == MPI_SUCCESS, "round %d: Irecv: rc %d", c->round, rc);
    }
    for (int i = 0; i < ns; i++) {
        struct msg *g = &m[sdir][i];
        sbuf[i] = sendbuf(c, g, crank);
        sentinel(&st[nr + i]);
        int rc = ssend[sdir][i] ? MPI_Issend(sbuf[i], g->count, g->type, peer, g->tag, comm, &req[nr + i])
                                : MPI_Isend(sbuf[i], g->count, g->type, peer, g->tag, comm, &req[nr + i]);
        MTEST_CHECK(c->errs, rc == MPI_SUCCESS, "round %d: Isend: rc %d", c->round, rc);
        if (freed && !ssend[sdir][i]) {
            MPI_Request_free(&req[nr + i]);
            MTEST_CHECK(c->errs, req[nr + i] == MPI_REQUEST_NULL, "round %d: Request_free left a handle", c->round);
        }
    }
    int n = nr + ns, left = n, flag, idx, outn, out[2 * MAXWIN];
    int order[2 * MAXWIN];
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = rndn(c, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    switch (how) {
    case 0:
        MPI_Waitall(n, req, st);
        break;
    case 1:
        for (flag = 0; !flag;)
            MPI_Testall(n, req, &flag, st);
        break;
    case 2:
        for (int i = 0; i < n; i++)
            MPI_Wait(&req[order[i]], &st[order[i]]);
        break;
    case 3:
        for (int i = 0; i < n; i++)
            for (flag = 0; !flag;)
                MPI_Test(&req[order[i]], &flag, &st[order[i]]);
        break;
    case 4:
        while (left > 0) {
            MPI_Status s1;
            sentinel(&s1);
            MPI_Waitany(n, req, &idx, &s1);
            if (idx == MPI_UNDEFINED)
                break;
            st[idx] = s1;
            left--;
        }
        break;
    case 5:
    case 6:
        while (left > 0) {
            MPI_Status s2[2 * MAXWIN];
            for (int i = 0; i < n; i++)
                sentinel(&s2[i]);
            if (how == 5)
                MPI_Waitsome(n, req, &outn, out, s2);
            else
                MPI_Testsome(n, req, &outn, out, s2);
            if (outn == MPI_UNDEFINED)
                break;
            for (int i = 0; i < outn; i++)
                st[out[i]] = s2[i];
            left -= outn;
        }
        break;
    default:
        for (int i = 0; i < n; i++) {
            int j = order[i];
            if (req[j] == MPI_REQUEST_NULL)
                continue;
            for (flag = 0; !flag;)
                MPI_Request_get_status(req[j], &flag, MPI_STATUS_IGNORE);
            MPI_Wait(&req[j], &st[j]);
        }
        break;
    }
    for (int i = 0; i < n; i++) {
        MTEST_CHECK(c->errs, req[i] == MPI_REQUEST_NULL, "round %d: request %d still set after completion %d",
                    c->round, i, how);
    }
    /* The receives in posting order: each gets the first message not taken
     * yet whose tag it accepts. */
    int taken[MAXWIN] = {0};
    for (int j = 0; j < nr; j++) {
        int got = -1;
        for (int i = 0; i < nr && got < 0; i++)
            if (!taken[i] && (rtag[j] == MPI_ANY_TAG || m[rdir][i].tag == rtag[j]))
                got = i;
        if (got < 0) {
            MTEST_CHECK(c->errs, 0, "round %d: no message for receive %d", c->round, j);
            continue;
        }
        taken[got] = 1;
        struct msg g = m[rdir][got];
        /* Received as bytes. */
        g.count = g.count * g.tsize;
        g.tsize = 1;
        g.type = MPI_BYTE;
        /* check() recomputes the payload from (source, idx) with g's
         * byte count. */
        check(c, ci, how == 0 ? "win-waitall" : how == 1 ? "win-testall" : how == 2 ? "win-wait" : how == 3 ? "win-test" :
                     how == 4 ? "win-waitany" : how == 5 ? "win-waitsome" : how == 6 ? "win-testsome" : "win-getstatus",
              MPI_SUCCESS, rbuf[j], g.count, &g, peer, &st[j], NULL, 0);
        free(rbuf[j]);
    }
    if (freed)
        MPI_Barrier(comm); /* the freed sends are done once b has everything */
    for (int i = 0; i < ns; i++)
        free(sbuf[i]);
}

static void run(struct ctx *c, int rounds)
{
    for (c->round = 0; c->round < rounds; c->round++) {
        int ci = rndn(c, c->ncomm), pat = rndn(c, 12), wild = 0, crank, csize;
        MPI_Comm comm = c->comm[ci];
        MPI_Comm_rank(comm, &crank);
        MPI_Comm_size(comm, &csize);
        /* Draw the round's parameters the same on every rank (the halves
         * differ in size only by one: the draws do not depend on it). */
        uint64_t save = c->rng;
        if (csize >= 2) {
            if (pat < 3) {
                stream(c, ci, comm, crank, csize);
            } else if (pat < 6) {
                pingpong(c, ci, comm, crank, csize);
            } else if (pat < 7) {
                fanin(c, ci, comm, crank, csize);
                wild = 1;
            } else if (pat < 9) {
                shift(c, ci, comm, crank, csize);
                wild = 1;
            } else if (pat < 10) {
                cancel(c, ci, comm, crank, csize);
                wild = 1;
            } else {
                window(c, ci, comm, crank, csize);
                wild = 1;
            }
        }
        /* Every rank continues from the same stream position. */
        c->rng = mix(save ^ 0x5bd1e995);
        if (wild || rndn(c, 8) == 0)
            MPI_Barrier(c->comm[0]);
    }
}

static void setup(struct ctx *c, int tid, int threaded)
{
    memset(c, 0, sizeof *c);
    c->tid = tid;
    c->rng = mix(seed + 0x1234567ULL * (tid + 1));
    if (threaded)
        MPI_Comm_dup(MPI_COMM_WORLD, &c->comm[0]);
    else
        c->comm[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(c->comm[0], &c->comm[1]);
    MPI_Comm_dup(c->comm[1], &c->comm[2]);
    MPI_Comm_split(c->comm[0], 0, np - me, &c->comm[3]);      /* reversed */
    MPI_Comm_split(c->comm[0], 0, (me + 1) % np, &c->comm[4]); /* rotated */
    MPI_Comm_dup(c->comm[0], &c->comm[5]);
    c->ncomm = 6;
    if (np >= 4)
        MPI_Comm_split(c->comm[0], me < np / 2, me, &c->comm[c->ncomm++]); /* halves */
    for (int i = 0; i < c->ncomm; i++)
        MPI_Comm_set_errhandler(c->comm[i], MPI_ERRORS_RETURN);
}

static void teardown(struct ctx *c)
{
    for (int i = c->tid == 0 && c->comm[0] == MPI_COMM_WORLD ? 1 : 0; i < c->ncomm; i++)
        MPI_Comm_free(&c->comm[i]);
}

static int rounds = 300;

static void *thread_main(void *arg)
{
    run(arg, rounds);
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = 0, provided;
    const char *e;
    if ((e = getenv("EXPRESS_RAND_THREADS")))
        nthreads = atoi(e);
    if (nthreads > 0)
        MTest_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (nthreads > 0 && provided != MPI_THREAD_MULTIPLE)
        MTestError("MPI_THREAD_MULTIPLE not provided");
    if ((e = getenv("GMPI_EAGER_LIMIT")) && atol(e) > 0)
        eager = atol(e);
    if ((e = getenv("EXPRESS_RAND_ROUNDS")))
        rounds = atoi(e);
    if ((e = getenv("EXPRESS_RAND_SEED")) && *e)
        seed = strtoull(e, NULL, 0);
    else
        seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("express_rand: seed=%llu ranks=%d threads=%d rounds=%d eager=%ld\n", (unsigned long long)seed, np, nthreads,
               rounds, eager);
    fflush(stdout);
    MPI_Type_contiguous(3, MPI_INT, &int3);
    MPI_Type_commit(&int3);

    int nt = nthreads > 0 ? nthreads : 1;
    struct ctx *c = calloc(nt, sizeof *c);
    for (int t = 0; t < nt; t++)
        setup(&c[t], t, nthreads > 0);
    if (nthreads > 0) {
        pthread_t th[64];
        for (int t = 0; t < nt && t < 64; t++)
            pthread_create(&th[t], NULL, thread_main, &c[t]);
        for (int t = 0; t < nt && t < 64; t++)
            pthread_join(th[t], NULL);
    } else {
        run(&c[0], rounds);
    }

    int errs = 0, nrecv = 0;
    FILE *f = NULL;
    if ((e = getenv("EXPRESS_RAND_LOG")) && *e) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", e, me);
        f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "express_rand: cannot write %s\n", path);
            errs++;
        }
    }
    for (int t = 0; t < nt; t++) {
        errs += c[t].errs;
        nrecv += c[t].nrecv;
        if (f)
            fprintf(f, "# thread %d\n%s", t, c[t].log ? c[t].log : "");
        free(c[t].log);
        teardown(&c[t]);
    }
    if (f)
        fclose(f);
    int total = 0;
    MPI_Reduce(&nrecv, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("express_rand: %d receives checked\n", total);
    MPI_Type_free(&int3);
    free(c);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
