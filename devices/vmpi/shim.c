/* See shim.h. Two ABIs: MPICH's (handles are int, MPI_Status is 5 ints
 * {count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR}) and
 * Open MPI's (handles are pointers to exported predefined objects,
 * MPI_Status is {MPI_SOURCE, MPI_TAG, MPI_ERROR, _cancelled, size_t
 * _ucount}). The facts come from the two vendors' mpi.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shim.h"

typedef struct { int count_lo, count_hi, source, tag, error; } mpich_status;
typedef struct { int source, tag, error, cancelled; size_t ucount; } ompi_status;

/* MPICH's predefined handles (mpich/mpi.h). */
#define MPICH_COMM_WORLD 0x44000000
#define MPICH_BYTE 0x4c00010d

/* Function types, per ABI. h is an MPICH handle (int) or an Open MPI one
 * (void *). */
#define VMPI_FUNCS(P, H, ST)                                                   \
	typedef int (*P##init_thread_fn)(int *, char ***, int, int *);         \
	typedef int (*P##finalize_fn)(void);                                   \
	typedef int (*P##comm_dup_fn)(H, H *);                                 \
	typedef int (*P##comm_free_fn)(H *);                                   \
	typedef int (*P##comm_rank_fn)(H, int *);                              \
	typedef int (*P##isend_fn)(const void *, int, H, int, int, H, H *);    \
	typedef int (*P##irecv_fn)(void *, int, H, int, int, H, H *);          \
	typedef int (*P##recv_fn)(void *, int, H, int, int, H, ST *);          \
	typedef int (*P##test_fn)(H *, int *, ST *);                           \
	typedef int (*P##wait_fn)(H *, ST *);                                  \
	typedef int (*P##cancel_fn)(H *);                                      \
	typedef int (*P##get_count_fn)(const ST *, H, int *);
VMPI_FUNCS(ich_, int, mpich_status)
VMPI_FUNCS(om_, void *, ompi_status)

typedef int (*size_fn)(void *, int *);

/* Collective entry points, per ABI. */
#define VMPI_COLL_FUNCS(P, H)                                                  \
	typedef int (*P##comm_group_fn)(H, H *);                               \
	typedef int (*P##group_incl_fn)(H, int, const int *, H *);             \
	typedef int (*P##group_free_fn)(H *);                                  \
	typedef int (*P##comm_create_group_fn)(H, H, int, H *);                \
	typedef int (*P##ibarrier_fn)(H, H *);                                 \
	typedef int (*P##ibcast_fn)(void *, int, H, int, H, H *);              \
	typedef int (*P##iallreduce_fn)(const void *, void *, int, H, H, H, H *); \
	typedef int (*P##ireduce_fn)(const void *, void *, int, H, H, int, H, H *);
VMPI_COLL_FUNCS(ich_, int)
VMPI_COLL_FUNCS(om_, void *)
typedef int (*err_string_fn)(int, char *, int *);

static struct {
	void *lib;
	int abi;
	void *init_thread, *finalize, *comm_dup, *comm_free, *comm_rank, *comm_size;
	void *isend, *irecv, *recv, *test, *wait, *cancel, *get_count, *err_string, *send;
	/* Open MPI's predefined objects (their addresses are the handles). */
	void *om_world, *om_byte;
	void *comm_group, *group_incl, *group_free, *comm_create_group, *ibarrier, *ibcast, *iallreduce, *ireduce;
	/* The device's communicator (a dup of the vendor's MPI_COMM_WORLD). */
	int ich_comm;
	void *om_comm;
} v;

int vmpi_open(const char *path, char *err, int n) {
	if (v.lib) {
		snprintf(err, n, "a vendor MPI library is already loaded");
		return VMPI_ABI_NONE;
	}
	dlerror();
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
	if (!lib) {
		const char *e = dlerror();
		snprintf(err, n, "cannot load %s: %s", path, e ? e : "dlopen failed");
		return VMPI_ABI_NONE;
	}
	int abi = VMPI_ABI_NONE;
	if (dlsym(lib, "ompi_mpi_comm_world") && dlsym(lib, "ompi_mpi_byte")) {
		abi = VMPI_ABI_OMPI;
	} else if (dlsym(lib, "MPII_Version_ABI") || dlsym(lib, "MPIR_Err_create_code")) {
		abi = VMPI_ABI_MPICH;
	} else {
		snprintf(err, n, "%s: unknown MPI ABI (neither Open MPI's ompi_mpi_comm_world nor MPICH's MPII_Version_ABI/MPIR_Err_create_code is exported)", path);
		dlclose(lib);
		return VMPI_ABI_NONE;
	}
	static const char *names[] = {"MPI_Init_thread", "MPI_Finalize", "MPI_Comm_dup", "MPI_Comm_free",
		"MPI_Comm_rank", "MPI_Comm_size", "MPI_Isend", "MPI_Irecv", "MPI_Recv", "MPI_Test", "MPI_Wait",
		"MPI_Cancel", "MPI_Get_count", "MPI_Error_string", "MPI_Send"};
	void **slots[] = {&v.init_thread, &v.finalize, &v.comm_dup, &v.comm_free, &v.comm_rank, &v.comm_size,
		&v.isend, &v.irecv, &v.recv, &v.test, &v.wait, &v.cancel, &v.get_count, &v.err_string, &v.send};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		*slots[i] = dlsym(lib, names[i]);
		if (!*slots[i]) {
			snprintf(err, n, "%s lacks the symbol %s", path, names[i]);
			dlclose(lib);
			memset(&v, 0, sizeof v);
			return VMPI_ABI_NONE;
		}
	}
	if (abi == VMPI_ABI_OMPI) {
		v.om_world = dlsym(lib, "ompi_mpi_comm_world");
		v.om_byte = dlsym(lib, "ompi_mpi_byte");
	}
	v.lib = lib;
	v.abi = abi;
	return abi;
}

int vmpi_init(int required, int *provided, int *rank, int *size) {
	int argc = 0, rc;
	char **argv = NULL;
	if ((rc = ((ich_init_thread_fn)v.init_thread)(&argc, &argv, required, provided)) != 0)
		return rc;
	if (v.abi == VMPI_ABI_MPICH) {
		if ((rc = ((ich_comm_dup_fn)v.comm_dup)(MPICH_COMM_WORLD, &v.ich_comm)) != 0)
			return rc;
		if ((rc = ((ich_comm_rank_fn)v.comm_rank)(v.ich_comm, rank)) != 0)
			return rc;
		return ((ich_comm_rank_fn)v.comm_size)(v.ich_comm, size);
	}
	if ((rc = ((om_comm_dup_fn)v.comm_dup)(v.om_world, &v.om_comm)) != 0)
		return rc;
	if ((rc = ((om_comm_rank_fn)v.comm_rank)(v.om_comm, rank)) != 0)
		return rc;
	return ((om_comm_rank_fn)v.comm_size)(v.om_comm, size);
}

int vmpi_isend(const void *buf, int n, int dest, int tag, uint64_t *req) {
	if (v.abi == VMPI_ABI_MPICH) {
		int r = 0;
		int rc = ((ich_isend_fn)v.isend)(buf, n, MPICH_BYTE, dest, tag, v.ich_comm, &r);
		*req = (uint32_t)r;
		return rc;
	}
	void *r = NULL;
	int rc = ((om_isend_fn)v.isend)(buf, n, v.om_byte, dest, tag, v.om_comm, &r);
	*req = (uint64_t)(uintptr_t)r;
	return rc;
}

/* A negative source is the ABI's MPI_ANY_SOURCE (MPICH -2, Open MPI -1). */
int vmpi_irecv(void *buf, int n, int src, int tag, uint64_t *req) {
	if (src < 0)
		src = v.abi == VMPI_ABI_MPICH ? -2 : -1;
	if (v.abi == VMPI_ABI_MPICH) {
		int r = 0;
		int rc = ((ich_irecv_fn)v.irecv)(buf, n, MPICH_BYTE, src, tag, v.ich_comm, &r);
		*req = (uint32_t)r;
		return rc;
	}
	void *r = NULL;
	int rc = ((om_irecv_fn)v.irecv)(buf, n, v.om_byte, src, tag, v.om_comm, &r);
	*req = (uint64_t)(uintptr_t)r;
	return rc;
}

/* The two status layouts, read the same way. */
static int ich_read(const mpich_status *s, int *src, int *tag, int *count) {
	*src = s->source;
	*tag = s->tag;
	return ((ich_get_count_fn)v.get_count)(s, MPICH_BYTE, count);
}

static int om_read(const ompi_status *s, int *src, int *tag, int *count) {
	*src = s->source;
	*tag = s->tag;
	return ((om_get_count_fn)v.get_count)(s, v.om_byte, count);
}

int vmpi_test(uint64_t *req, int *flag, int *src, int *tag, int *count) {
	int rc;
	if (v.abi == VMPI_ABI_MPICH) {
		int r = (int)(uint32_t)*req;
		mpich_status s;
		if ((rc = ((ich_test_fn)v.test)(&r, flag, &s)) != 0 || !*flag)
			return rc;
		*req = (uint32_t)r;
		return ich_read(&s, src, tag, count);
	}
	void *r = (void *)(uintptr_t)*req;
	ompi_status s;
	if ((rc = ((om_test_fn)v.test)(&r, flag, &s)) != 0 || !*flag)
		return rc;
	*req = (uint64_t)(uintptr_t)r;
	return om_read(&s, src, tag, count);
}

int vmpi_wait(uint64_t *req, int *src, int *tag, int *count) {
	int rc;
	if (v.abi == VMPI_ABI_MPICH) {
		int r = (int)(uint32_t)*req;
		mpich_status s;
		if ((rc = ((ich_wait_fn)v.wait)(&r, &s)) != 0)
			return rc;
		*req = (uint32_t)r;
		return ich_read(&s, src, tag, count);
	}
	void *r = (void *)(uintptr_t)*req;
	ompi_status s;
	if ((rc = ((om_wait_fn)v.wait)(&r, &s)) != 0)
		return rc;
	*req = (uint64_t)(uintptr_t)r;
	return om_read(&s, src, tag, count);
}

int vmpi_recv(void *buf, int n, int src, int tag, int *count) {
	int rc, s_, t_;
	if (v.abi == VMPI_ABI_MPICH) {
		mpich_status s;
		if ((rc = ((ich_recv_fn)v.recv)(buf, n, MPICH_BYTE, src, tag, v.ich_comm, &s)) != 0)
			return rc;
		return ich_read(&s, &s_, &t_, count);
	}
	ompi_status s;
	if ((rc = ((om_recv_fn)v.recv)(buf, n, v.om_byte, src, tag, v.om_comm, &s)) != 0)
		return rc;
	return om_read(&s, &s_, &t_, count);
}

int vmpi_cancel(uint64_t *req) {
	if (v.abi == VMPI_ABI_MPICH) {
		int r = (int)(uint32_t)*req;
		return ((ich_cancel_fn)v.cancel)(&r);
	}
	void *r = (void *)(uintptr_t)*req;
	return ((om_cancel_fn)v.cancel)(&r);
}

int vmpi_finalize(void) {
	int rc;
	if (v.abi == VMPI_ABI_MPICH)
		rc = ((ich_comm_free_fn)v.comm_free)(&v.ich_comm);
	else
		rc = ((om_comm_free_fn)v.comm_free)(&v.om_comm);
	int rc2 = ((ich_finalize_fn)v.finalize)();
	return rc ? rc : rc2;
}

int vmpi_setenv(const char *name, const char *value) {
	return value ? setenv(name, value, 1) : unsetenv(name);
}

void vmpi_error_string(int code, char *buf, int n) {
	char tmp[1024]; /* MPI_MAX_ERROR_STRING is at most this in both */
	int len = 0;
	if (!v.err_string || ((err_string_fn)v.err_string)(code, tmp, &len) != 0)
		snprintf(tmp, sizeof tmp, "error %d", code);
	snprintf(buf, n, "%s", tmp);
}

/* The datatypes and operations the handoff knows: their MPICH handle
 * values (gmpi's) and Open MPI's symbol names. */
static const struct {
	int mpich;
	const char *ompi;
} known[] = {
	{0x4c000102, "ompi_mpi_unsigned_char"}, {0x4c000203, "ompi_mpi_short"},
	{0x4c000204, "ompi_mpi_unsigned_short"}, {0x4c000405, "ompi_mpi_int"},
	{0x4c000406, "ompi_mpi_unsigned"},      {0x4c000807, "ompi_mpi_long"},
	{0x4c000808, "ompi_mpi_unsigned_long"}, {0x4c00040a, "ompi_mpi_float"},
	{0x4c00080b, "ompi_mpi_double"},        {0x4c000809, "ompi_mpi_long_long_int"},
	{0x4c000819, "ompi_mpi_unsigned_long_long"},
	{0x58000001, "ompi_mpi_op_max"},        {0x58000002, "ompi_mpi_op_min"},
	{0x58000003, "ompi_mpi_op_sum"},        {0x58000004, "ompi_mpi_op_prod"},
	{0x58000005, "ompi_mpi_op_land"},       {0x58000006, "ompi_mpi_op_band"},
	{0x58000007, "ompi_mpi_op_lor"},        {0x58000008, "ompi_mpi_op_bor"},
	{0x58000009, "ompi_mpi_op_lxor"},       {0x5800000a, "ompi_mpi_op_bxor"},
};
#define NKNOWN (sizeof known / sizeof known[0])
static void *om_known[NKNOWN];

int vmpi_coll_open(void) {
	if (!v.lib)
		return 0;
	if (v.ibarrier)
		return 1;
	static const char *names[] = {"MPI_Comm_group", "MPI_Group_incl", "MPI_Group_free", "MPI_Comm_create_group",
		"MPI_Ibarrier", "MPI_Ibcast", "MPI_Iallreduce", "MPI_Ireduce"};
	void **slots[] = {&v.comm_group, &v.group_incl, &v.group_free, &v.comm_create_group,
		&v.ibarrier, &v.ibcast, &v.iallreduce, &v.ireduce};
	void *got[8];
	for (size_t i = 0; i < 8; i++)
		if (!(got[i] = dlsym(v.lib, names[i])))
			return 0;
	if (v.abi == VMPI_ABI_OMPI)
		for (size_t i = 0; i < NKNOWN; i++)
			om_known[i] = dlsym(v.lib, known[i].ompi);
	for (size_t i = 0; i < 8; i++)
		*slots[i] = got[i];
	return 1;
}

/* handle finds the vendor's handle for an MPICH handle value (Open MPI:
 * the symbol's address), NULL when unknown. */
static void *om_handle(int h) {
	for (size_t i = 0; i < NKNOWN; i++)
		if (known[i].mpich == h)
			return om_known[i];
	return NULL;
}

static int ich_known(int h) {
	for (size_t i = 0; i < NKNOWN; i++)
		if (known[i].mpich == h)
			return 1;
	return 0;
}

int vmpi_known(int dtype, int op) {
	if (v.abi == VMPI_ABI_MPICH)
		return ich_known(dtype) && ich_known(op);
	return om_handle(dtype) && om_handle(op);
}

int vmpi_comm_create(int n, const int *vranks, int tag, uint64_t *comm) {
	int rc, rc2;
	if (v.abi == VMPI_ABI_MPICH) {
		int wg, g, c = 0;
		if ((rc = ((ich_comm_group_fn)v.comm_group)(v.ich_comm, &wg)) != 0)
			return rc;
		rc = ((ich_group_incl_fn)v.group_incl)(wg, n, vranks, &g);
		((ich_group_free_fn)v.group_free)(&wg);
		if (rc != 0)
			return rc;
		rc = ((ich_comm_create_group_fn)v.comm_create_group)(v.ich_comm, g, tag, &c);
		rc2 = ((ich_group_free_fn)v.group_free)(&g);
		*comm = (uint32_t)c;
		return rc ? rc : rc2;
	}
	void *wg, *g, *c = NULL;
	if ((rc = ((om_comm_group_fn)v.comm_group)(v.om_comm, &wg)) != 0)
		return rc;
	rc = ((om_group_incl_fn)v.group_incl)(wg, n, vranks, &g);
	((om_group_free_fn)v.group_free)(&wg);
	if (rc != 0)
		return rc;
	rc = ((om_comm_create_group_fn)v.comm_create_group)(v.om_comm, g, tag, &c);
	rc2 = ((om_group_free_fn)v.group_free)(&g);
	*comm = (uint64_t)(uintptr_t)c;
	return rc ? rc : rc2;
}

int vmpi_comm_release(uint64_t *comm) {
	if (v.abi == VMPI_ABI_MPICH) {
		int c = (int)(uint32_t)*comm;
		return ((ich_comm_free_fn)v.comm_free)(&c);
	}
	void *c = (void *)(uintptr_t)*comm;
	return ((om_comm_free_fn)v.comm_free)(&c);
}

int vmpi_ibarrier(uint64_t comm, uint64_t *req) {
	if (v.abi == VMPI_ABI_MPICH) {
		int r = 0;
		int rc = ((ich_ibarrier_fn)v.ibarrier)((int)(uint32_t)comm, &r);
		*req = (uint32_t)r;
		return rc;
	}
	void *r = NULL;
	int rc = ((om_ibarrier_fn)v.ibarrier)((void *)(uintptr_t)comm, &r);
	*req = (uint64_t)(uintptr_t)r;
	return rc;
}

int vmpi_ibcast(void *buf, int n, int root, uint64_t comm, uint64_t *req) {
	if (v.abi == VMPI_ABI_MPICH) {
		int r = 0;
		int rc = ((ich_ibcast_fn)v.ibcast)(buf, n, MPICH_BYTE, root, (int)(uint32_t)comm, &r);
		*req = (uint32_t)r;
		return rc;
	}
	void *r = NULL;
	int rc = ((om_ibcast_fn)v.ibcast)(buf, n, v.om_byte, root, (void *)(uintptr_t)comm, &r);
	*req = (uint64_t)(uintptr_t)r;
	return rc;
}

int vmpi_ireduce(const void *sbuf, void *rbuf, int count, int dtype, int op, int root, uint64_t comm, uint64_t *req) {
	if (!vmpi_known(dtype, op))
		return VMPI_UNKNOWN;
	int rc;
	if (v.abi == VMPI_ABI_MPICH) {
		int r = 0, c = (int)(uint32_t)comm;
		if (root < 0)
			rc = ((ich_iallreduce_fn)v.iallreduce)(sbuf, rbuf, count, dtype, op, c, &r);
		else
			rc = ((ich_ireduce_fn)v.ireduce)(sbuf, rbuf, count, dtype, op, root, c, &r);
		*req = (uint32_t)r;
		return rc;
	}
	void *r = NULL, *c = (void *)(uintptr_t)comm, *dt = om_handle(dtype), *o = om_handle(op);
	if (root < 0)
		rc = ((om_iallreduce_fn)v.iallreduce)(sbuf, rbuf, count, dt, o, c, &r);
	else
		rc = ((om_ireduce_fn)v.ireduce)(sbuf, rbuf, count, dt, o, root, c, &r);
	*req = (uint64_t)(uintptr_t)r;
	return rc;
}

/* The frame receive (shim.h). state: 0 none, 1 posted, 2 a frame is
 * there (tested complete, not taken yet). */
static struct {
	uint8_t *buf;
	int cap, state, src, count;
	int err; /* a repost failed: the next vmpi_frame_next reports it */
	int ich_req;
	void *om_req;
} fr;

static int frame_post(void)
{
	int rc;
	if (v.abi == VMPI_ABI_MPICH)
		rc = ((ich_irecv_fn)v.irecv)(fr.buf, fr.cap, MPICH_BYTE, -2, 1, v.ich_comm, &fr.ich_req);
	else
		rc = ((om_irecv_fn)v.irecv)(fr.buf, fr.cap, v.om_byte, -1, 1, v.om_comm, &fr.om_req);
	if (rc == 0)
		fr.state = 1;
	return rc;
}

int vmpi_frame_start(void *buf, int cap)
{
	fr.buf = buf;
	fr.cap = cap;
	fr.state = 0;
	return frame_post();
}

int vmpi_frame_repost(void)
{
	fr.state = 0;
	int rc = frame_post();
	if (rc != 0)
		fr.err = rc;
	return rc;
}

/* frame_test tests the posted receive; 1: a frame is there (state 2). The
 * count is read from the status as the vendors' mpi.h lay it out (bytes,
 * as the datatype is MPI_BYTE; frames are far below 2 GiB). */
static int frame_test(int *rc)
{
	int flag = 0;
	if (v.abi == VMPI_ABI_MPICH) {
		mpich_status s;
		if ((*rc = ((ich_test_fn)v.test)(&fr.ich_req, &flag, &s)) != 0 || !flag)
			return 0;
		fr.src = s.source;
		fr.count = s.count_lo;
	} else {
		ompi_status s;
		if ((*rc = ((om_test_fn)v.test)(&fr.om_req, &flag, &s)) != 0 || !flag)
			return 0;
		fr.src = s.source;
		fr.count = (int)s.ucount;
	}
	fr.state = 2;
	return 1;
}

int vmpi_frame_next(int consumed, int *flag, int *src, int *count)
{
	int rc = 0;
	*flag = 0;
	if (fr.err != 0 && !consumed)
		return fr.err;
	if (consumed && (rc = vmpi_frame_repost()) != 0)
		return rc;
	if (fr.state == 2 || (fr.state == 1 && frame_test(&rc))) {
		*flag = 1;
		*src = fr.src;
		*count = fr.count;
		fr.state = 3; /* the caller's */
	}
	return rc;
}

const uint8_t *vmpi_frame_peek(int *src, int *count, int *rc)
{
	*rc = fr.err;
	if (fr.state == 2 || (fr.state == 1 && frame_test(rc))) {
		*src = fr.src;
		*count = fr.count;
		return fr.buf;
	}
	return NULL;
}

int vmpi_frame_take(void) { return vmpi_frame_repost(); }

int vmpi_frame_stop(void)
{
	int rc = 0;
	if (fr.state == 1) {
		if (v.abi == VMPI_ABI_MPICH) {
			mpich_status s;
			((ich_cancel_fn)v.cancel)(&fr.ich_req);
			rc = ((ich_wait_fn)v.wait)(&fr.ich_req, &s);
		} else {
			ompi_status s;
			((om_cancel_fn)v.cancel)(&fr.om_req);
			rc = ((om_wait_fn)v.wait)(&fr.om_req, &s);
		}
	}
	fr.state = 0;
	fr.err = 0;
	return rc;
}

typedef int (*ich_send_fn)(const void *, int, int, int, int, int);
typedef int (*om_send_fn)(const void *, int, void *, int, int, void *);

int vmpi_send_small(int dest, const void *hdr, const void *payload, int n)
{
	return vmpi_send_small_tag(dest, hdr, payload, n, 0);
}

int vmpi_send_small_tag(int dest, const void *hdr, const void *payload, int n, int btag)
{
	uint8_t f[VMPI_PREFIX + VMPI_HEADER + VMPI_SMALL];
	if (n < 0 || n > VMPI_SMALL)
		return -1;
	uint64_t len = (uint64_t)n;
	uint32_t one = 1, bt = (uint32_t)btag;
	memcpy(f, &len, 8);
	memcpy(f + 8, &one, 4);
	memcpy(f + 12, &bt, 4);
	memcpy(f + VMPI_PREFIX, hdr, VMPI_HEADER);
	if (n)
		memcpy(f + VMPI_PREFIX + VMPI_HEADER, payload, (size_t)n);
	int total = VMPI_PREFIX + VMPI_HEADER + n;
	if (v.abi == VMPI_ABI_MPICH)
		return ((ich_send_fn)v.send)(f, total, MPICH_BYTE, dest, 1, v.ich_comm);
	return ((om_send_fn)v.send)(f, total, v.om_byte, dest, 1, v.om_comm);
}

int vmpi_send_small_fields(int dest, uint64_t w0, uint64_t w1, uint64_t len, uint64_t send_id,
	uint64_t recv_id, uint64_t offset, const void *payload, int n, int btag)
{
	uint64_t h[6] = {w0, w1, len, send_id, recv_id, offset};
	return vmpi_send_small_tag(dest, h, payload, n, btag);
}
